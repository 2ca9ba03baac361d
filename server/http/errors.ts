import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import { type ZodIssue, z } from 'zod';
import { routeOf } from './request-log.js';

/** An error that becomes an HTTP response `{ "detail": detail }` with `status` (and `headers`, e.g. `retry-after`). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
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
/** 410: it was there and is gone for good (an order whose conversation was deleted). */
export const gone = (detail: string) => new HttpError(410, detail);
/** `Retry-After` in whole seconds (at least 1). */
export const retryAfter = (ms: number) => ({ 'retry-after': String(Math.max(1, Math.ceil(ms / 1000))) });
/** 429 with `Retry-After` in whole seconds (at least 1). */
export const tooMany = (detail: string, retryAfterMs: number) => new HttpError(429, detail, retryAfter(retryAfterMs));
/** 503 with `Retry-After` in whole seconds (at least 1): this instance cannot serve it now, another may. */
export const unavailable = (detail: string, retryAfterMs: number) =>
  new HttpError(503, detail, retryAfter(retryAfterMs));

/** Every error body (spec section 7). */
export const errorBody = z.object({ detail: z.string() }).describe('Every error answers with this body.');

/**
 * A route's refusals as its OpenAPI description lists them (openapi.ts): by status, each `detail` and when it
 * is answered. A detail `<part>/<field> …` stands for zod's validation messages of that part of the request.
 */
export type Refusals = { [status: number]: Record<string, string> };

/** Headers every response carries: any origin may call, since credentials are bearer tokens, never cookies. */
export const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'content-disposition, retry-after',
} as const;

/**
 * Headers of every response besides CORS: nothing the service answers is for a shared cache (replies carry
 * tokens and conversations; routes that serve files set their own), and no body is sniffed into another type.
 */
export const SAFETY_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
} as const;

/** Fastify's own 4xx codes, worded for people. */
export const FASTIFY_DETAILS: Record<string, string> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Content-Type must be application/json',
  FST_ERR_CTP_BODY_TOO_LARGE: 'request body too large',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'Content-Length does not match the body',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'request body is not valid JSON',
  FST_ERR_CTP_INVALID_JSON_BODY: 'request body is not valid JSON',
  FST_ERR_BAD_URL: 'the URL is malformed',
  FST_ERR_MAX_PARAM_LENGTH: 'a path segment of the URL is too long',
};

/** An error as one log line: its stack and its causes. Logged, never sent to a client. */
export function errorText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause === undefined ? '' : ` | caused by: ${errorText(err.cause)}`;
  return `${(err.stack ?? `${err.name}: ${err.message}`).replace(/\s*\n\s*/g, ' | ')}${cause}`;
}

/**
 * The one error handler: every failure answers `{ "detail" }`; a 5xx says nothing more and is logged at
 * `error` (written at every log level but `silent`) with its cause and stack. The route is named by its
 * pattern, so no capability id of a URL reaches the log.
 */
export function errorHandler(error: FastifyError | HttpError, req: FastifyRequest, reply: FastifyReply) {
  if (error instanceof HttpError) return reply.code(error.status).headers(error.headers).send({ detail: error.detail });
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    const detail = (error.code && FASTIFY_DETAILS[error.code]) || error.message || 'bad request';
    return reply.code(status).send({ detail });
  }
  req.log.error({ err: error }, `500 ${req.method} ${routeOf(req)}`);
  return reply.code(500).send({ detail: 'internal server error' });
}

/**
 * The router's own refusals (a malformed URL, a path segment over 100 characters) answer before any hook:
 * without this they carry Fastify's body (echoing the path) instead of `{ detail }` and no CORS.
 */
export function frameworkErrors(error: FastifyError, _req: FastifyRequest, reply: FastifyReply) {
  const detail = FASTIFY_DETAILS[error.code] ?? 'bad request';
  reply
    .headers({ ...CORS_HEADERS, ...SAFETY_HEADERS })
    .code(error.statusCode ?? 400)
    .send({ detail });
}

/** What Node's HTTP parser refuses before a request exists, by its error code (`''`: anything else), and when. */
const CLIENT_ERRORS: Record<string, { status: number; detail: string; when: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    detail: 'request headers too large (limit 16 KB)',
    when: 'The headers are over 16 KB; the connection is closed.',
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    detail: 'request timed out',
    when: "The request did not arrive within Node's request timeout.",
  },
  '': {
    status: 400,
    detail: 'malformed HTTP request',
    when:
      'The HTTP parser refused the request (a NUL in a header, both `Content-Length` and `Transfer-Encoding`, ' +
      'an obs-fold line, a bad header name); the connection is closed.',
  },
};

/**
 * Requests Node's HTTP parser refuses (a NUL in a header, both Content-Length and Transfer-Encoding, an
 * obs-fold line, headers over 16 KB) never reach Fastify's routing: they are answered here, on the socket,
 * with `{ detail }` and the CORS headers like every other error, and the connection is closed.
 */
export function clientErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, detail } = CLIENT_ERRORS[err.code ?? ''] ?? CLIENT_ERRORS['']!;
  const body = JSON.stringify({ detail });
  const headers = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    ...CORS_HEADERS,
    ...SAFETY_HEADERS,
    connection: 'close',
  };
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  if (socket.writable) socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head.join('')}\r\n${body}`);
  socket.destroySoon();
}

/** What any request may be answered before a route sees it (clientErrorHandler): documented on every route. */
export const REQUEST_REFUSALS: Refusals = {};
for (const { status, detail, when } of Object.values(CLIENT_ERRORS)) {
  REQUEST_REFUSALS[status] = { ...REQUEST_REFUSALS[status], [detail]: when };
}

/** What the router refuses of a path parameter (frameworkErrors), on every route that has one. */
export const PATH_REFUSALS: Refusals = {
  400: { [FASTIFY_DETAILS.FST_ERR_BAD_URL]: 'The path is not valid percent-encoding.' },
  414: { [FASTIFY_DETAILS.FST_ERR_MAX_PARAM_LENGTH]: 'A path parameter is over 100 characters.' },
};

/** The refusal of a JSON body nested deeper than `levels` (checked before it is parsed). */
export const tooDeep = (levels: number) => `request body nests deeper than ${levels} levels`;

/**
 * The refusal of a JSON body holding a string (a key or a value) with a NUL or an unpaired surrogate: no
 * engine would store it as written (PostgreSQL turns both into U+FFFD, so two keys would become one).
 */
export const UNSTORABLE_TEXT = 'request body holds a NUL character or an unpaired surrogate';

/** What the JSON body parser refuses (server/http/app.ts), on every route that reads a JSON body. */
export const jsonBodyRefusals = (levels: number): Refusals => ({
  400: {
    [FASTIFY_DETAILS.FST_ERR_CTP_INVALID_JSON_BODY]: 'The body is not JSON.',
    [tooDeep(levels)]: `Arrays and objects nest deeper than ${levels} levels.`,
    [UNSTORABLE_TEXT]: 'A string holds U+0000 or a lone UTF-16 surrogate (`\\ud800`), which cannot be stored as sent.',
    [FASTIFY_DETAILS.FST_ERR_CTP_INVALID_CONTENT_LENGTH]: '`Content-Length` is not the length of the body.',
  },
  413: { [FASTIFY_DETAILS.FST_ERR_CTP_BODY_TOO_LARGE]: 'The body is over 1 MB.' },
  415: { [FASTIFY_DETAILS.FST_ERR_CTP_INVALID_MEDIA_TYPE]: 'A body of another `Content-Type`.' },
});

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
