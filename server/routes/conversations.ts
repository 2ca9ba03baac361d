import { Readable } from 'node:stream';
import type { ChatStreamRecord } from '@svc/agent-sdk/protocol';
import { z } from 'zod';
import { ownConversation, security, userHook } from '../http/auth.js';
import { baseUrlOf } from '../http/public-url.js';
import { resumeCursor, sendRecordStream } from '../http/sse.js';
import type { AppContext } from '../services/context.js';
import { boundedText, LIMITS } from '../services/limits.js';
import type { Db } from '../store/db.js';
import { historyPage, messagesAfter, parseCursor } from '../store/record-rows.js';
import { beginTurn } from '../turns/begin-turn.js';
import { resolveConversation } from '../turns/send-target.js';
import {
  booleanFlag,
  historyPageOf,
  historyQuery,
  historyResult,
  idParams,
  interruptResult,
  messageFields,
  notEmpty,
  recordStream,
  sendHeaders,
  sendKeyOf,
  streamQuery,
} from './conversation-schemas.js';
import { chatStreamRecord } from './record-schemas.js';
import type { ZodApp } from './route-module.js';

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
