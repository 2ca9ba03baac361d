import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { ChatStreamRecord } from '@svc/agent-sdk/protocol';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { type Caller, ownConversation, security, userHook } from '../http/auth.js';
import { badRequest, notFound } from '../http/errors.js';
import { baseUrlOf } from '../http/public-url.js';
import { resumeCursor, sendRecordStream } from '../http/sse.js';
import type { AppContext } from '../services/context.js';
import { boundedJson, boundedText, LIMITS } from '../services/limits.js';
import { type AgentRow, agentById, agentsOfWorkspace } from '../store/agent-rows.js';
import { createConversation, latestConversation, type StoredConversation } from '../store/conversation-rows.js';
import type { Db } from '../store/db.js';
import { type HistoryPage, historyPage, messagesAfter, parseCursor } from '../store/record-rows.js';
import type { SendKey } from '../store/send-result-rows.js';
import { beginTurn } from '../turns/begin-turn.js';
import { chatStreamRecord, messagePart } from './record-schemas.js';
import type { ZodApp } from './route-module.js';

// ---------------------------------------------------------------- shapes shared with the training routes

/** What a message carries and is stored with: each bounded (docs/protocol.md "Limits"). */
const messageFields = {
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
const notEmpty = (body: { message: string; parts?: unknown[] }, answersCard: boolean, issue: z.RefinementCtx) => {
  if (body.message.trim() === '' && !body.parts?.length && !answersCard) {
    issue.addIssue({ code: 'custom', path: ['message'], message: 'String must contain at least 1 character(s)' });
  }
};

export const trainingSendBody = z
  .object(messageFields)
  .superRefine((body, issue) => notEmpty(body, body.metadata !== undefined, issue));

const booleanFlag = z
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

// ---------------------------------------------------------------- conversation routes

const sendBody = z
  .object({
    ...messageFields,
    conversationId: z.string().min(1).optional(),
    targetAgentIds: z.array(z.string().min(1)).min(1).max(10).optional(),
    newConversation: z.boolean().optional(),
    mcpTokens: z
      .record(z.string().max(200), boundedText(z.string(), LIMITS.mcpTokenBytes))
      .refine(
        (tokens) => Object.keys(tokens).length <= LIMITS.mcpTokens,
        `must hold at most ${LIMITS.mcpTokens} tokens`,
      )
      .optional(),
    toolAction: z.boolean().optional(),
    senderName: z.string().max(200).optional(),
    senderAvatar: z.string().max(2048).optional(),
  })
  .superRefine((body, issue) => notEmpty(body, !!body.toolAction, issue));

const sendResult = z.object({
  conversationId: z.string(),
  userMessage: chatStreamRecord.optional(),
  userEventId: z.string().optional(),
  results: z.array(
    z.object({
      agentId: z.string(),
      msgId: z.string().describe("The id the agent's first reply message will carry."),
      streamId: z.string().describe('The turn id.'),
    }),
  ),
});

/** Conversation routes (spec 4.2): send, stream, messages, history, interrupt. */
export default function conversationsRoutes(app: ZodApp, ctx: AppContext) {
  app.addHook('onRequest', userHook(ctx.db));
  const tags = ['conversations'];

  app.post(
    '/conversations/send',
    {
      schema: {
        tags,
        summary: 'send',
        security: security.user,
        headers: sendHeaders,
        body: sendBody,
        response: { 200: sendResult },
      },
    },
    async (req) => {
      const message = { ...req.body, text: req.body.message, baseUrl: baseUrlOf(ctx, req) };
      const target = (tx: Db) => resolveConversation(tx, req.caller, req.body);
      return beginTurn(ctx, target, message, sendKeyOf(req, req.caller.userId));
    },
  );

  app.get(
    '/conversations/:id/stream',
    {
      schema: {
        tags,
        summary: 'stream',
        security: security.user,
        params: idParams,
        querystring: streamQuery,
        response: recordStream,
      },
    },
    async (req, reply) => {
      const after = resumeCursor(req, req.query.lastEventId);
      const conversation = await ownConversation(ctx.db, req.caller, req.params.id);
      const { userId, expiresAt } = req.caller;
      await sendRecordStream(
        ctx,
        reply,
        { conversationId: conversation.id, after, turns: req.query.turns },
        userId,
        expiresAt,
      );
    },
  );

  app.get(
    '/conversations/:id/messages',
    {
      schema: {
        tags,
        summary: 'messages',
        security: security.user,
        params: idParams,
        querystring: z.object({ includeThinking: booleanFlag }),
        response: {
          200: {
            description: 'The whole history, oldest first, written as it is read from the database.',
            content: { 'application/json': { schema: z.object({ entries: z.array(chatStreamRecord) }) } },
          },
        },
      },
    },
    async (req, reply) => {
      const conversation = await ownConversation(ctx.db, req.caller, req.params.id);
      const body = Readable.from(messagesJson(ctx.db, conversation.id, req.query.includeThinking));
      // Fastify pipes a stream as it is; the type provider only knows the shape the stream writes.
      return reply.type('application/json; charset=utf-8').send(body as unknown as { entries: ChatStreamRecord[] });
    },
  );

  app.get(
    '/conversations/:id/history',
    {
      schema: {
        tags,
        summary: 'history',
        security: security.user,
        params: idParams,
        querystring: historyQuery,
        response: { 200: historyResult },
      },
    },
    async (req) => {
      const page = historyPageOf(req.query);
      const conversation = await ownConversation(ctx.db, req.caller, req.params.id);
      return historyPage(ctx.db, conversation.id, page);
    },
  );

  app.post(
    '/conversations/:id/interrupt',
    {
      schema: {
        tags,
        summary: 'interrupt',
        security: security.user,
        params: idParams,
        response: { 200: interruptResult },
      },
    },
    async (req) => ctx.turns.interrupt((await ownConversation(ctx.db, req.caller, req.params.id)).id),
  );
}

/** Records per database read while `messages` is written. */
const MESSAGES_PAGE = 50;

/**
 * The body of `messages`, `{"entries":[…]}`, written a page of records at a time as the client reads it: a
 * whole conversation (up to LIMITS.conversationBytes) is never held in memory at once.
 */
async function* messagesJson(db: Db, conversationId: string, includeThinking: boolean): AsyncGenerator<string> {
  yield '{"entries":[';
  let after = 0;
  let separator = '';
  for (;;) {
    const page = await messagesAfter(db, conversationId, after, MESSAGES_PAGE, includeThinking);
    for (const record of page) {
      yield separator + JSON.stringify(record);
      separator = ',';
    }
    if (page.length < MESSAGES_PAGE) break;
    after = parseCursor(page.at(-1)!.id)!;
  }
  yield ']}';
}

/**
 * The conversation a send goes to: the named one; else, unless `newConversation`, the caller's most
 * recent one (with the same agents when `targetAgentIds` is given; in the token's workspace for a session
 * token); else a new one with `targetAgentIds` or the first agent of the token's workspace.
 */
async function resolveConversation(
  tx: Db,
  caller: Caller,
  body: { conversationId?: string; targetAgentIds?: string[]; newConversation?: boolean },
): Promise<StoredConversation> {
  if (body.conversationId) return ownConversation(tx, caller, body.conversationId);
  let agents: AgentRow[] | undefined;
  if (body.targetAgentIds) {
    agents = [];
    for (const id of new Set(body.targetAgentIds)) agents.push(await allowedAgent(tx, caller, id));
  }
  const agentIds = agents?.map((a) => a.id);
  if (!body.newConversation) {
    const latest = await latestConversation(tx, caller.userId, { workspaceId: caller.workspaceId, agentIds });
    if (latest) return latest;
  }
  const first = agents?.[0] ?? (await defaultAgent(tx, caller));
  return createConversation(tx, {
    kind: 'chat',
    ownerId: caller.userId,
    workspaceId: first.workspace_id,
    agentIds: agentIds ?? [first.id],
  });
}

/** A session token reaches the agents of its workspace; a personal key any agent. */
async function allowedAgent(db: Db, caller: Caller, agentId: string): Promise<AgentRow> {
  const agent = await agentById(db, agentId);
  if (!agent || (caller.workspaceId && agent.workspace_id !== caller.workspaceId)) throw notFound('agent not found');
  return agent;
}

async function defaultAgent(db: Db, caller: Caller): Promise<AgentRow> {
  if (!caller.workspaceId) throw badRequest('body/targetAgentIds Required');
  const [first] = await agentsOfWorkspace(db, caller.workspaceId, 1);
  if (!first) throw notFound('agent not found');
  return first;
}
