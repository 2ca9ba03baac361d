import type { z } from 'zod';
import { badRequest } from './errors.js';

/**
 * Parses `value` with a zod schema. A failure becomes 400 with the message a zod type provider prints,
 * `body/amount Number must be greater than 0`, or with `detail` when the route fixes its own message.
 */
export function parse<T extends z.ZodTypeAny>(
  schema: T,
  value: unknown,
  part: 'body' | 'querystring' | 'params' = 'body',
  detail?: string,
): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  if (detail) throw badRequest(detail);
  const issue = result.error.issues[0];
  const path = issue?.path.length ? `${part}/${issue.path.join('/')}` : part;
  throw badRequest(`${path} ${issue?.message ?? 'is invalid'}`);
}
