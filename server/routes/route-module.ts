import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../services/context.js';

/** A Fastify scope whose route schemas are zod schemas: they validate, type the handler and document the route. */
export type ZodApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  ZodTypeProvider
>;

export interface RouteModule {
  (app: ZodApp, ctx: AppContext): void | Promise<void>;
  /** Mount point; `/api/v2` unless set. */
  prefix?: string;
}
