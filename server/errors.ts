import type { FastifyError, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import { type ZodIssue, z } from 'zod';

/** An error that becomes an HTTP response `{ "detail": detail }` with `status`. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
  ) {
    super(detail);
    this.name = 'HttpError';
  }
}

export const badRequest = (detail: string) => new HttpError(400, detail);
export const unauthorized = (detail: string) => new HttpError(401, detail);
export const forbidden = (detail: string) => new HttpError(403, detail);
export const notFound = (detail: string) => new HttpError(404, detail);
export const conflict = (detail: string) => new HttpError(409, detail);

/** Every error body (spec section 7). */
export const errorBody = z.object({ detail: z.string() }).describe('Every error answers with this body.');

/** Headers every response carries: any origin may call, since credentials are bearer tokens, never cookies. */
export const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'content-disposition, retry-after',
} as const;

/** Fastify's own 4xx codes, worded for people. */
const FASTIFY_DETAILS: Record<string, string> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Content-Type must be application/json',
  FST_ERR_CTP_BODY_TOO_LARGE: 'request body too large',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'Content-Length does not match the body',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'request body is not valid JSON',
  FST_ERR_CTP_INVALID_JSON_BODY: 'request body is not valid JSON',
  FST_ERR_BAD_URL: 'the URL is malformed',
  FST_ERR_MAX_PARAM_LENGTH: 'a path segment of the URL is too long',
};

/** The one error handler: every failure answers `{ "detail" }`; a 5xx is logged and says nothing more. */
export function errorHandler(error: FastifyError | HttpError, req: FastifyRequest, reply: FastifyReply) {
  if (error instanceof HttpError) return reply.code(error.status).send({ detail: error.detail });
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    const detail = (error.code && FASTIFY_DETAILS[error.code]) || error.message || 'bad request';
    return reply.code(status).send({ detail });
  }
  req.log.error({ err: error }, 'unhandled error');
  return reply.code(500).send({ detail: 'internal server error' });
}

/**
 * The router's own refusals (a malformed URL, a path segment over 100 characters) answer before any hook:
 * without this they carry Fastify's body (echoing the path) instead of `{ detail }` and no CORS.
 */
export function frameworkErrors(error: FastifyError, _req: FastifyRequest, reply: FastifyReply) {
  const detail = FASTIFY_DETAILS[error.code] ?? 'bad request';
  reply
    .headers(CORS_HEADERS)
    .code(error.statusCode ?? 400)
    .send({ detail });
}

type SchemaErrorFormatter = NonNullable<RouteShorthandOptions['schemaErrorFormatter']>;
type RequestPart = Parameters<SchemaErrorFormatter>[1];

/**
 * The detail of a failed validation: the first problem, as `body/amount Number must be greater than 0`
 * (the part, the path of the field, zod's message).
 */
export function validationDetail(part: string, issues: readonly ZodIssue[]): string {
  const issue = issues[0];
  const path = issue?.path.length ? `${part}/${issue.path.join('/')}` : part;
  return `${path} ${issue?.message ?? 'is invalid'}`;
}

/** Fastify's formatter for what the zod type provider reports: each error carries its zod issue. */
export const schemaErrorFormatter: SchemaErrorFormatter = (errors, part) =>
  new Error(
    validationDetail(
      part,
      errors.map((error) => (error.params as { issue: ZodIssue }).issue),
    ),
  );

/** A route whose spec fixes one message for any invalid `part` (e.g. `request body validation failed`). */
export function fixedValidationDetail(detail: string, part: RequestPart = 'body'): SchemaErrorFormatter {
  return (errors, dataVar) => (dataVar === part ? new Error(detail) : schemaErrorFormatter(errors, dataVar));
}
