import Fastify, { type FastifyInstance, type FastifyReply, type FastifyServerOptions } from 'fastify';
import type { AppContext } from './context.js';
import { HttpError } from './errors.js';
import { routeModules } from './routes/index.js';

/** Headers every response carries: any origin may call, since credentials are bearer tokens, never cookies. */
export const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'content-disposition, retry-after',
} as const;

const PREFLIGHT_HEADERS = {
  ...CORS_HEADERS,
  'access-control-allow-methods': 'GET, POST, PUT, DELETE, OPTIONS',
  'access-control-allow-headers': 'Authorization, Content-Type, Last-Event-ID, X-Login-Type, X-Act-As',
  'access-control-max-age': '600',
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

export function buildApp(ctx: AppContext, options: FastifyServerOptions = {}): FastifyInstance {
  const app = Fastify({
    bodyLimit: 1024 * 1024,
    // Streams are long-lived: closing the service must not wait for their clients.
    forceCloseConnections: true,
    // Request logs carry method and path only; tokens live in headers and are never logged.
    logger: false,
    // The router's own refusals (a malformed URL, a path segment over 100 characters) answer before any
    // hook: without this they carry Fastify's body (echoing the path) instead of `{ detail }` and no CORS.
    frameworkErrors: (error, _req, reply) => {
      const detail = FASTIFY_DETAILS[error.code] ?? 'bad request';
      (reply as FastifyReply)
        .headers(CORS_HEADERS)
        .code(error.statusCode ?? 400)
        .send({ detail });
    },
    ...options,
  });

  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new HttpError(400, 'request body is not valid JSON'), undefined);
    }
  });

  app.addHook('onRequest', async (req, reply) => {
    reply.headers(CORS_HEADERS);
    if (req.method === 'OPTIONS') {
      return reply.code(204).headers(PREFLIGHT_HEADERS).send();
    }
  });

  app.setErrorHandler((error, req, reply) => {
    if (error instanceof HttpError) return reply.code(error.status).send({ detail: error.detail });
    const err = error as { code?: string; statusCode?: number; message?: string };
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const detail = (err.code && FASTIFY_DETAILS[err.code]) || err.message || 'bad request';
      return reply.code(status).send({ detail });
    }
    req.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send({ detail: 'internal server error' });
  });

  app.setNotFoundHandler((_req, reply) => reply.code(404).send({ detail: 'route not found' }));

  for (const routes of routeModules) {
    app.register(async (scope) => routes(scope, ctx), { prefix: routes.prefix ?? '/api/v2' });
  }
  return app;
}
