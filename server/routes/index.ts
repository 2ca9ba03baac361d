import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../context.js';
import audio from './audio.js';
import conversations from './conversations.js';
import demo from './demo.js';
import files from './files.js';
import payPage from './pay-page.js';
import payments from './payments.js';
import profile from './profile.js';
import sms from './sms.js';
import training from './training.js';
import workspaces from './workspaces.js';

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

/** Every area of the service, one module each. `payPage` and `demo` set their own prefix (`/`). */
export const routeModules: RouteModule[] = [
  workspaces,
  sms,
  conversations,
  training,
  files,
  payments,
  audio,
  profile,
  payPage,
  demo,
];
