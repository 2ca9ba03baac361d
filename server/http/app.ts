import { randomBytes } from 'node:crypto';
import { type IncomingMessage, Server } from 'node:http';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyServerFactory,
} from 'fastify';
import type { FastifyRouteSchemaDef, FastifySerializerCompiler } from 'fastify/types/schema.js';
import { ResponseSerializationError, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { ZodType, type ZodTypeAny } from 'zod';
import { routeModules } from '../routes/all-routes.js';
import { handoffComponents } from '../routes/handoff-schemas.js';
import { recordComponents } from '../routes/record-schemas.js';
import { answerOf, EVERY_ROUTE_REFUSALS } from '../routes/refusal-answers.js';
import type { AppContext } from '../services/context.js';
import { LIMITS } from '../services/limits.js';
import { Refusal } from '../services/refusal.js';
import { DatabaseUnavailable } from '../store/db.js';
import {
  badRequest,
  CORS_HEADERS,
  clientErrorHandler,
  errorHandler,
  frameworkErrors,
  type HttpError,
  SAFETY_HEADERS,
  schemaErrorFormatter,
  tooDeep,
  UNSTORABLE_TEXT,
} from './errors.js';
import { healthRoutes } from './health.js';
import { metricsRoutes } from './metrics-endpoint.js';
import { API_PREFIX, registerOpenApi } from './openapi.js';
import { type OverloadOptions, registerOverload } from './overload.js';
import { RequestLog } from './request-log.js';

const PREFLIGHT_HEADERS = {
  ...CORS_HEADERS,
  'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
  'access-control-allow-headers': 'Authorization, Content-Type, Idempotency-Key, Last-Event-ID, X-Login-Type, X-Act-As',
  'access-control-max-age': '600',
} as const;

/**
 * Reads and discards what is left of a request's body, up to `bound` bytes: true once it has all arrived (at
 * once when nothing is left), false when it declares or sends more, or the client went.
 */
export function discardBody(req: IncomingMessage, bound: number): Promise<boolean> {
  if (req.complete) return Promise.resolve(true);
  if (req.destroyed || Number(req.headers['content-length']) > bound) return Promise.resolve(false);
  return new Promise((resolve) => {
    let seen = 0;
    const done = (whole: boolean) => {
      req.off('data', onData).off('end', onEnd).off('close', onClose);
      resolve(whole);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > bound) done(false);
    };
    const onEnd = () => done(true);
    const onClose = () => done(req.complete);
    req.on('data', onData).on('end', onEnd).on('close', onClose);
    req.resume();
  });
}

/**
 * Node's HTTP server, answering also a client that closed its sending side once its request was written (`nc -N`,
 * some proxies) when the answer waits (on the database, a verifier): as Node handles the end of a socket it drops
 * the requests not answered yet unless the server's `httpAllowHalfOpen` is set, and no option of Node 20's
 * `http.createServer` sets it. Fastify's `serverFactory` is where a server of our own goes; Fastify applies its
 * timeouts only to a server it makes, so they are applied here as it would.
 */
class HalfOpenServer extends Server {
  httpAllowHalfOpen = true;
}

const halfOpenServer: FastifyServerFactory = (handler, options) => {
  const server = new HalfOpenServer(handler);
  server.keepAliveTimeout = Number(options.keepAliveTimeout);
  server.requestTimeout = Number(options.requestTimeout);
  server.setTimeout(Number(options.connectionTimeout));
  return server;
};

/**
 * Answers checked against their route's response schema (zod), and written as the handler made them: the type
 * provider's own serializer writes what zod parsed instead, which drops what a schema does not name. An answer
 * that does not fit is the type provider's ResponseSerializationError: a 500, logged with zod's issues.
 */
const checkedAnswers: FastifySerializerCompiler<unknown> = ({ schema, method, url }) => {
  if (!(schema instanceof ZodType)) return (data) => JSON.stringify(data);
  return (data) => {
    const checked = schema.safeParse(data);
    if (!checked.success)
      throw new ResponseSerializationError(method, url, {
        cause: checked.error,
      });
    return JSON.stringify(data);
  };
};

/** How the app is run: its log, its proxies, its bounds (docs/server.md "Running it" and "Deployment"). */
export interface AppOptions {
  logger: FastifyBaseLogger;
  /**
   * The addresses of reverse proxies whose `X-Forwarded-For` names the client (Fastify's `trustProxy`: a
   * comma-separated list of addresses or CIDR ranges). Without it, the client is the TCP peer.
   */
  trustProxy?: string;
  overload: OverloadOptions;
  /** The bearer token `GET /metrics` asks for; without it the metrics are open. */
  metricsToken?: string;
  /** Checks every JSON answer against its route's response schema (the test suites' mode; see checkedAnswers). */
  checkResponses?: boolean;
}

/**
 * The service as a Fastify app: operational routes (health, metrics) and the overload guards, then route
 * plugins by area, each with its zod schemas (which validate the request, type the handler and make the
 * OpenAPI document) and its credential hook.
 */
export async function buildApp(ctx: AppContext, options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    bodyLimit: 1024 * 1024,
    // Streams are long-lived: closing the service must not wait for their clients.
    forceCloseConnections: true,
    // One line per request, naming its route by pattern (request-log.ts); tokens are never logged.
    loggerInstance: options.logger,
    logController: new RequestLog(),
    // Random, so the lines of several instances in one log never share an id.
    genReqId: () => randomBytes(8).toString('hex'),
    ...(options.trustProxy && { trustProxy: options.trustProxy }),
    frameworkErrors,
    clientErrorHandler,
    schemaErrorFormatter,
    serverFactory: halfOpenServer,
  }).withTypeProvider<ZodTypeProvider>();

  // Fastify hands a missing body to the validator as null; zod then calls it `Required`, as it does a field.
  app.setValidatorCompiler((route) => {
    const validate = validatorCompiler(route as FastifyRouteSchemaDef<ZodTypeAny>);
    return route.httpPart === 'body' ? (data) => validate(data ?? undefined) : validate;
  });
  // Replies are written as the handlers make them: their types already hold them to the response schemas. The
  // test suites check them at run time too (checkResponses).
  app.setSerializerCompiler(options.checkResponses ? checkedAnswers : () => (data) => JSON.stringify(data));

  // JSON is the one body the API reads (uploads are multipart, in their own scope): a text/plain body gets
  // the 415 of docs/protocol.md rather than Fastify's built-in text parser.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    // Checked before parsing: what is too deep to store must never reach a handler, nor overflow the stack.
    if (nestsDeeperThan(text, LIMITS.jsonDepth)) {
      return done(badRequest(tooDeep(LIMITS.jsonDepth)), undefined);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return done(badRequest('request body is not valid JSON'), undefined);
    }
    if (!storableText(parsed)) return done(badRequest(UNSTORABLE_TEXT), undefined);
    done(null, parsed);
  });

  app.addHook('onRequest', async (req, reply) => {
    reply.headers({ ...CORS_HEADERS, ...SAFETY_HEADERS });
    // A draining instance closes each connection after its answer: clients and proxies reconnect elsewhere.
    if (ctx.drain.draining) reply.header('connection', 'close');
    if (req.method === 'OPTIONS') {
      return reply.code(204).headers(PREFLIGHT_HEADERS).send();
    }
  });
  // A body refused as too large is read and thrown away (up to LIMITS.discardBytes) before the 413 goes out:
  // a client still sending when the connection closed would be reset before reading its answer (Node's fetch
  // and browsers fail the request instead of showing the 413).
  app.addHook('onSend', async (req, reply, payload) => {
    if (reply.statusCode === 413 && !(await discardBody(req.raw, LIMITS.discardBytes))) {
      reply.header('connection', 'close');
    }
    return payload;
  });
  await registerOverload(app, options.overload);

  // A refusal of a service or a turn, and the database away, get their status and detail from
  // routes/refusal-answers.ts.
  app.setErrorHandler<FastifyError | HttpError | Refusal | DatabaseUnavailable>((error, req, reply) =>
    errorHandler(
      error instanceof Refusal || error instanceof DatabaseUnavailable ? answerOf(error) : error,
      req,
      reply,
    ),
  );
  app.setNotFoundHandler((_req, reply) => reply.code(404).send({ detail: 'route not found' }));

  healthRoutes(app, ctx);
  metricsRoutes(app, ctx.metrics, options.metricsToken);

  for (const name of ['caller', 'credential', 'workspace', 'training', 'smsWorkspace'] as const) {
    app.decorateRequest(name, null as never);
  }
  app.decorateRequest('credentialChecked', false);
  await registerOpenApi(app, {
    schemas: { ...recordComponents, ...handoffComponents },
    jsonDepth: LIMITS.jsonDepth,
    everyRoute: EVERY_ROUTE_REFUSALS,
  });
  for (const routes of routeModules) {
    await app.register(async (scope) => routes(scope, ctx), {
      prefix: routes.prefix ?? API_PREFIX,
    });
  }
  return app;
}

/** Whether JSON text nests arrays and objects deeper than `limit`, read without parsing it (strings skipped). */
/**
 * Whether every string of a parsed body, keys included, can be stored as written: no NUL (PostgreSQL's text
 * cannot hold one) and no unpaired surrogate (not UTF-8). Depth is bounded before this runs.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what is looked for.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function storableText(value: unknown): boolean {
  if (typeof value === 'string') return !UNSTORABLE.test(value);
  if (typeof value !== 'object' || value === null) return true;
  if (Array.isArray(value)) return value.every(storableText);
  return Object.entries(value).every(([key, item]) => storableText(key) && storableText(item));
}

function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}
