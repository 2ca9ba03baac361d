import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { badRequest } from '../http/errors.js';
import { boundedJson, boundedText, LIMITS } from '../services/limits.js';
import { type HistoryPage, parseCursor } from '../store/record-rows.js';
import type { SendKey } from '../store/send-result-rows.js';
import { chatStreamRecord, messagePart } from './record-schemas.js';

/*
 * What the conversation routes and the training routes (and the files routes' `:id`) share of their
 * requests and answers: a message's fields, the send's Idempotency-Key, the stream and history queries and
 * what they answer. Each area's own schemas stay beside its routes.
 */

/** What a message carries and is stored with: each bounded (docs/protocol.md "Limits"). */
export const messageFields = {
  message: boundedText(z.string(), LIMITS.messageBytes),
  parts: z.array(boundedJson(messagePart, LIMITS.partBytes)).max(20).optional(),
  metadata: boundedJson(z.record(z.unknown()), LIMITS.metadataBytes).optional(),
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

/** A query flag: `true`, else false. */
export const booleanFlag = z
  .enum(['true', 'false'])
  .optional()
  .transform((v) => v === 'true');

export const streamQuery = z.object({
  lastEventId: z.string().optional().describe('Resume after this record id (wins over the `Last-Event-ID` header).'),
  turns: z.coerce.number().int().min(1).max(100).optional().describe('Without a cursor: replay the last N turns.'),
});

export const historyQuery = z.object({
  before: z.string().optional().describe('A record id: the page ends before it (default: the end).'),
  turns: z.coerce.number().int().min(1).max(100).default(10),
  maxEntries: z.coerce.number().int().min(1).max(500).default(200),
  includeThinking: booleanFlag,
});

export const idParams = z.object({ id: z.string() });

export const historyResult = z.object({ entries: z.array(chatStreamRecord), hasMore: z.boolean() });

export const interruptResult = z.union([
  z.object({ interrupted: z.literal(true), turnId: z.string() }),
  z.object({ interrupted: z.literal(false), reason: z.string() }),
]);

/** The stream's OpenAPI description; the handler writes the events itself. */
export const recordStream = {
  200: {
    description:
      'Server-Sent Events, one per record: `id: <record id>`, `event: record`, `data: <the record as JSON>`; ' +
      'comment lines `: connected` and `: ping` keep the connection open. The service never ends the stream.',
    content: { 'text/event-stream': { schema: chatStreamRecord } },
  },
};

/** A history query as the store takes it. 400 `invalid before` for a cursor that is not one of ours. */
export function historyPageOf(query: z.output<typeof historyQuery>): HistoryPage {
  const before = query.before === undefined || query.before === '' ? undefined : parseCursor(query.before);
  if (query.before && before === undefined) throw badRequest('invalid before');
  return { before, turns: query.turns, maxEntries: query.maxEntries, includeThinking: query.includeThinking };
}
