import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { badRequest, type Refusals } from '../http/errors.js';
import { described, documented, documentedAs } from '../http/openapi.js';
import { EXPIRED, EXPIRED_DETAIL, STREAM_HEADERS, sseFrame, tooManyStreams } from '../http/sse.js';
import { boundedJson, boundedText, formatBytes, LIMITS } from '../services/limits.js';
import type { HistoryPage } from '../store/history-rows.js';
import { parseCursor } from '../store/record-rows.js';
import type { SendKey } from '../store/send-result-rows.js';
import { handoffStatus } from './handoff-schemas.js';
import { chatStreamRecord, messagePart, RECORD_EXAMPLE, recordId } from './record-schemas.js';
import { documentedRefusals } from './refusal-answers.js';

/*
 * What the conversation routes and the training routes (and the files routes' `:id`) share of their
 * requests and answers: a message's fields, the send's Idempotency-Key, the stream and history queries and
 * what they answer. Each area's own schemas stay beside its routes.
 */

/** What a message carries and is stored with: each bounded (docs/protocol.md "Limits"). */
export const messageFields = {
  message: boundedText(z.string(), LIMITS.messageBytes),
  parts: documented(z.array(boundedJson(messagePart, LIMITS.partBytes)).max(20), {
    description: `Attachments: at most 20, each at most ${formatBytes(LIMITS.partBytes)} as JSON.`,
  }).optional(),
  metadata: documented(boundedJson(z.record(z.unknown()), LIMITS.metadataBytes), {
    description: `Extra data for the agent, e.g. the answer of a card: at most ${formatBytes(LIMITS.metadataBytes)} as JSON.`,
  }).optional(),
};

/** What a send and a training send refuse of the message itself. */
export const MESSAGE_REFUSALS: Refusals = {
  400: {
    'body/message Required': 'No `message` (every field is checked; zod words the problem of each).',
    'body/message String must contain at least 1 character(s)': 'An empty message without parts or a card answer.',
    [`body/message must be at most ${formatBytes(LIMITS.messageBytes)}`]: 'The text is over its limit.',
    [`body/metadata must be at most ${formatBytes(LIMITS.metadataBytes)} as JSON`]: '`metadata` is over its limit.',
    [`body/parts/0 must be at most ${formatBytes(LIMITS.partBytes)} as JSON`]: 'A part is over its limit.',
    'headers/idempotency-key must be 1 to 200 visible ASCII characters': 'A malformed `Idempotency-Key`.',
    'the Host header is not a valid host':
      'Without `--public-url`, the links the service hands out are made from `Host` when it names the service (else from its own address): it must be a host name or address.',
  },
  ...documentedRefusals({
    reply_running: 'A turn is running: wait for its `result`, or interrupt it.',
    conversation_full: 'The records of the conversation hold its limit.',
    send_key_reused: 'The key was sent within 24 hours with another request (the body without `mcpTokens`).',
  }),
};

/** `Idempotency-Key` of a send: a key the client makes per message (a UUID) and repeats on every retry of it. */
export const sendHeaders = z
  .object({
    'idempotency-key': z
      .string()
      .regex(/^[\x21-\x7e]{1,200}$/, 'must be 1 to 200 visible ASCII characters')
      .optional()
      .describe(
        'Makes the send safe to retry: a repeat of the key within 24 hours answers the first result again ' +
          'and stores nothing; a repeat with another request is 409.',
      ),
  })
  .passthrough();

/**
 * The key a send is remembered under, for `owner` (the caller): the header, and a hash of the request
 * without `mcpTokens` (credentials that a client may renew between retries, and that are never stored).
 */
export function sendKeyOf(req: FastifyRequest, owner: string): SendKey | undefined {
  const key = req.headers['idempotency-key'];
  if (typeof key !== 'string') return undefined;
  const { mcpTokens: _, ...request } = req.body as Record<string, unknown>;
  const fingerprint = createHash('sha256').update(JSON.stringify(request)).digest('base64url');
  return { ownerId: owner, key, fingerprint };
}

/** An empty message says nothing: it must carry parts or answer a card. */
export const notEmpty = (
  body: { message: string; parts?: unknown[] },
  answersCard: boolean,
  issue: z.RefinementCtx,
) => {
  if (body.message.trim() === '' && !body.parts?.length && !answersCard) {
    issue.addIssue({ code: 'custom', path: ['message'], message: 'String must contain at least 1 character(s)' });
  }
};

/** `includeThinking` of messages and history: a boolean in the query string (`true`, else false). */
export const booleanFlag = documentedAs(
  z
    .enum(['true', 'false'])
    .optional()
    .transform((v) => v === 'true'),
  { type: 'boolean', default: false, description: 'Keep `thinking` blocks (removed by default).' },
);

const streamQuery = z.object({
  lastEventId: recordId('Resume after this record (wins over the `Last-Event-ID` header).').optional(),
  turns: z.coerce.number().int().min(1).max(100).optional().describe('Without a cursor: replay the last N turns.'),
});

/** `Last-Event-ID`, the cursor as EventSource sends it (the query's `lastEventId` wins). */
const streamHeaders = z
  .object({ 'last-event-id': recordId('Resume after this record, as `lastEventId` (which wins).').optional() })
  .passthrough();

const historyQuery = z.object({
  before: recordId('The page ends before this record (default: the end).').optional(),
  turns: z.coerce.number().int().min(1).max(100).default(10).describe('At most this many turns.'),
  maxEntries: z.coerce.number().int().min(1).max(500).default(200).describe('At most this many records.'),
  includeThinking: booleanFlag,
});

/** What the history routes refuse of their query. */
export const HISTORY_REFUSALS: Refusals = {
  400: {
    'invalid before': '`before` is not a record id.',
    'querystring/turns Number must be less than or equal to 100': 'A number out of its range (zod words each).',
  },
};

export const idParams = z.object({ id: z.string() });

const historyResult = described(
  'The page before the cursor, oldest first; `hasMore` when older records exist (the next page is `before` its ' +
    'first entry); `handoff`, who holds the conversation now (a person may have joined many pages back).',
  z.object({ entries: z.array(chatStreamRecord), hasMore: z.boolean(), handoff: handoffStatus.optional() }),
  { entries: [RECORD_EXAMPLE], hasMore: true, handoff: { state: 'agent', at: null } },
);

export const interruptResult = described(
  'Whether a reply was running; its `result` record (`subtype: interrupted`) follows in the stream within 200 ms.',
  z.union([
    z.object({ interrupted: z.literal(true), turnId: z.string() }),
    z.object({ interrupted: z.literal(false), reason: z.string() }),
  ]),
  { interrupted: true, turnId: 't_Vb7Xw1c9RkP2sQe5Nm4HzA' },
);

/** An interrupt takes nothing but the conversation: a body, if any, is read as JSON and ignored. */
export const ignoredBody = documentedAs(z.unknown().optional(), {
  description: 'Ignored: a client sends none. Whatever is sent must be JSON.',
});

/** The query and answer of every history route (a conversation's, an operator's, training's). */
export const historySchema = { querystring: historyQuery, response: { 200: historyResult } };

/** The last event of a stream whose token expired. */
export const expiredEvent = z
  .object({ event: z.literal('expired'), data: z.object({ detail: z.literal(EXPIRED_DETAIL) }) })
  .describe('The last event, when the session token the stream was opened with expired.');

/** One event of a record stream, its `data` read as JSON: what `x-itemSchema` names. */
const streamEvent = z
  .discriminatedUnion('event', [
    z
      .object({
        id: recordId('The record id: the cursor to resume after.'),
        event: z.literal('record'),
        data: chatStreamRecord,
      })
      .describe('A record, its JSON on one `data:` line.'),
    expiredEvent,
  ])
  .describe("One event of the stream, its `data` read as JSON (OpenAPI 3.2's `itemSchema`).");

/** The stream's OpenAPI description; the handler writes the events itself (server/http/sse.ts). */
const recordStream = {
  200: {
    description: `Server-Sent Events (\`text/event-stream\`), one event per record, in order: \`id: <record id>\`,
\`event: record\`, \`data: <the record as JSON>\`, a blank line. First a comment \`: connected\`; then, after a
cursor (\`lastEventId\` or \`Last-Event-ID\`), every later record; without one, the last \`turns\` turns (or
nothing); then each new record as it is stored. A comment \`: ping\` every 15 seconds keeps proxies from closing it.

The service ends a stream only when it stops, or when the session token it was opened with expires: at once if
no reply is running then, else right after that reply's \`result\`. The last event is then \`event: expired\`,
\`data: {"detail":"${EXPIRED_DETAIL}"}\`. A client resumes from its cursor after any end or cut (with a renewed
token). Personal API keys and operators' credentials do not expire.`,
    headers: {
      'Cache-Control': {
        type: 'string',
        const: STREAM_HEADERS['cache-control'],
        description: 'No cache keeps the stream, no proxy transforms it.',
      },
      'X-Accel-Buffering': {
        type: 'string',
        const: STREAM_HEADERS['x-accel-buffering'],
        description: 'nginx does not buffer the stream.',
      },
    },
    content: {
      'text/event-stream': {
        schema: z.string().describe('The events, as the stream writes them.'),
        'x-itemSchema': streamEvent,
        example: `: connected\n\n${sseFrame(RECORD_EXAMPLE)}${EXPIRED}`,
      },
    },
  },
};

/** The query, headers and answer of every record stream route (answered by answerRecordStream, server/http/sse.ts). */
export const recordStreamSchema = { querystring: streamQuery, headers: streamHeaders, response: recordStream };

/** What the stream routes refuse, besides their credentials, to a caller who may hold `streams` open. */
export const streamRefusals = (streams: number): Refusals => ({
  400: {
    'invalid lastEventId': 'The cursor is not a record id.',
    'lastEventId is past the newest record of this conversation':
      'The cursor is of another conversation, or of a database restored to an earlier state: the stream would ' +
      'never hear a record.',
    'querystring/turns Number must be less than or equal to 100': '`turns` out of 1 to 100 (zod words each problem).',
  },
  429: {
    [tooManyStreams(streams)]: 'The caller holds this many open streams on this process; one has to close first.',
  },
});

/** A history query as the store takes it. 400 `invalid before` for a cursor that is not one of ours. */
export function historyPageOf(query: z.output<typeof historyQuery>): HistoryPage {
  const before = query.before === undefined || query.before === '' ? undefined : parseCursor(query.before);
  if (query.before && before === undefined) throw badRequest('invalid before');
  return { before, turns: query.turns, maxEntries: query.maxEntries, includeThinking: query.includeThinking };
}
