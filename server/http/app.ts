import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { FastifyRouteSchemaDef } from 'fastify/types/schema.js';
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { ZodTypeAny } from 'zod';
import { routeModules } from '../routes/all-routes.js';
import { recordComponents } from '../routes/record-schemas.js';
import type { AppContext } from '../services/context.js';
import { LIMITS } from '../services/limits.js';
import {
  badRequest,
  CORS_HEADERS,
  clientErrorHandler,
  errorHandler,
  frameworkErrors,
  SAFETY_HEADERS,
  schemaErrorFormatter,
  tooDeep,
} from './errors.js';
import { API_PREFIX, registerOpenApi } from './openapi.js';

const PREFLIGHT_HEADERS = {
  ...CORS_HEADERS,
  'access-control-allow-methods': 'GET, POST, PUT, DELETE, OPTIONS',
  'access-control-allow-headers': 'Authorization, Content-Type, Idempotency-Key, Last-Event-ID, X-Login-Type, X-Act-As',
  'access-control-max-age': '600',
} as const;

/**
 * The service as a Fastify app: route plugins by area, each with its zod schemas (which validate the
 * request, type the handler and make the OpenAPI document) and its credential hook.
 */
export async function buildApp(ctx: AppContext, options: FastifyServerOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    bodyLimit: 1024 * 1024,
    // Streams are long-lived: closing the service must not wait for their clients.
    forceCloseConnections: true,
    // Request logs carry method and path only; tokens live in headers and are never logged.
    logger: false,
    frameworkErrors,
    clientErrorHandler,
    schemaErrorFormatter,
    ...options,
  }).withTypeProvider<ZodTypeProvider>();
  // A client may close its sending side once its request is written (`nc -N`, some proxies): it is still
  // answered, also when the answer waits on the database. Node's HTTP server reads this property as it
  // handles the end of a socket; without it, an answer not written yet is dropped.
  (app.server as typeof app.server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;

  // Fastify hands a missing body to the validator as null; zod then calls it `Required`, as it does a field.
  app.setValidatorCompiler((route) => {
    const validate = validatorCompiler(route as FastifyRouteSchemaDef<ZodTypeAny>);
    return route.httpPart === 'body' ? (data) => validate(data ?? undefined) : validate;
  });
  // Replies are written as the handlers make them: the handlers' types already hold them to the response
  // schemas, and the type provider's serializer would parse each reply again (dropping undocumented fields).
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

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
    try {
      done(null, JSON.parse(text));
    } catch {
      done(badRequest('request body is not valid JSON'), undefined);
    }
  });

  app.addHook('onRequest', async (req, reply) => {
    reply.headers({ ...CORS_HEADERS, ...SAFETY_HEADERS });
    if (req.method === 'OPTIONS') {
      return reply.code(204).headers(PREFLIGHT_HEADERS).send();
    }
  });

  app.setErrorHandler(errorHandler(ctx.logError));
  app.setNotFoundHandler((_req, reply) => reply.code(404).send({ detail: 'route not found' }));

  for (const name of ['caller', 'credential', 'workspace', 'training', 'smsWorkspace'] as const) {
    app.decorateRequest(name, null as never);
  }
  await registerOpenApi(app, { schemas: recordComponents, jsonDepth: LIMITS.jsonDepth });
  for (const routes of routeModules) {
    await app.register(async (scope) => routes(scope, ctx), { prefix: routes.prefix ?? API_PREFIX });
  }
  return app;
}

/** Whether JSON text nests arrays and objects deeper than `limit`, read without parsing it (strings skipped). */
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
