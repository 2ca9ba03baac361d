import { Readable } from 'node:stream';
import type { ChatStreamRecord } from '@svc/agent-sdk/protocol';
import { z } from 'zod';
import { CONVERSATION_REFUSALS, ownConversation, security, USER_REFUSALS, userHook } from '../http/auth.js';
import { described, documented } from '../http/openapi.js';
import { baseUrlOf } from '../http/public-url.js';
import { answerRecordStream } from '../http/sse.js';
import type { AppContext } from '../services/context.js';
import { boundedText, LIMITS } from '../services/limits.js';
import type { Db } from '../store/db.js';
import { messagesAfter } from '../store/history-rows.js';
import { parseCursor } from '../store/record-rows.js';
import { beginTurn } from '../turns/begin-turn.js';
import { resolveConversation } from '../turns/send-target.js';
import { CLIENT_TOOL_REFUSALS, checkClientToolAnswer, clientTools } from './client-tool-schemas.js';
import {
  booleanFlag,
  HISTORY_REFUSALS,
  historyPageOf,
  historySchema,
  idParams,
  ignoredBody,
  interruptResult,
  MESSAGE_REFUSALS,
  messageFields,
  notEmpty,
  recordStreamSchema,
  sendHeaders,
  sendKeyOf,
  streamRefusals,
} from './conversation-schemas.js';
import { chatStreamRecord, RECORD_EXAMPLE } from './record-schemas.js';
import { documentedRefusals } from './refusal-answers.js';
import type { ZodApp } from './route-module.js';

export const sendBody = described(
  'The message, and which conversation it goes to.',
  z
    .object({
      ...messageFields,
      conversationId: z.string().min(1).optional().describe('Continues this conversation.'),
      targetAgentIds: z
        .array(z.string().min(1))
        .min(1)
        .max(10)
        .optional()
        .describe(
          "The agents of a new conversation (default: the first of the token's workspace); without " +
            '`conversationId`, the most recent conversation with exactly these agents continues.',
        ),
      newConversation: z.boolean().optional().describe('Without `conversationId`: start a new conversation.'),
      mcpTokens: documented(
        z
          .record(z.string().max(200), boundedText(z.string(), LIMITS.mcpTokenBytes))
          .refine(
            (tokens) => Object.keys(tokens).length <= LIMITS.mcpTokens,
            `must hold at most ${LIMITS.mcpTokens} tokens`,
          ),
        {
          maxProperties: LIMITS.mcpTokens,
          description: 'Credentials of external tools for this turn, by MCP server: never stored or logged.',
        },
      ).optional(),
      toolAction: z
        .boolean()
        .optional()
        .describe(
          "Answers a card or a page tool call (with `metadata`): given to the agent, not shown as the user's message.",
        ),
      senderName: z.string().max(200).optional(),
      senderAvatar: z.string().max(2048).optional(),
      clientTools,
    })
    .superRefine((body, issue) => {
      notEmpty(body, !!body.toolAction, issue);
      checkClientToolAnswer(body, issue);
    }),
  { message: 'Hello', targetAgentIds: ['agent_echo'] },
);

const { agentId: _, agentName: __, ...recordBase } = RECORD_EXAMPLE;
const USER_RECORD: ChatStreamRecord = {
  ...recordBase,
  id: 'e000000000000041',
  seq: 6,
  sender: 'user',
  raw: { type: 'user', message: { role: 'user', content: [{ type: 'text', text: 'Hello' }] } },
};

export const sendResult = described(
  'The message is stored and its reply has begun: read it from the stream after `userEventId`.',
  z.object({
    conversationId: z.string(),
    userMessage: chatStreamRecord.optional(),
    userEventId: z.string().optional().describe("The user record's id: the stream read after it yields the reply."),
    results: z.array(
      z.object({
        agentId: z.string(),
        msgId: z.string().describe("The id the agent's first reply message will carry."),
        streamId: z.string().describe('The turn id.'),
      }),
    ),
  }),
  {
    conversationId: USER_RECORD.conversationId!,
    userMessage: USER_RECORD,
    userEventId: USER_RECORD.id,
    results: [{ agentId: 'agent_echo', msgId: 'm_Q2w9Er4Ty7Ui1Op3As6DfA', streamId: USER_RECORD.turnId! }],
  },
);

/** Conversation routes (spec 4.2): send, stream, messages, history, interrupt. */
export default function conversationsRoutes(app: ZodApp, ctx: AppContext) {
  app.addHook('onRequest', userHook(ctx.db));
  const tags = ['conversations'];

  app.post(
    '/conversations/send',
    {
      schema: {
        tags,
        operationId: 'send',
        summary: 'Send a message',
        description:
          "Stores the user's message and starts the agents' reply, and answers at once: the reply is read from " +
          "the stream after `userEventId`. Without `conversationId`, the caller's most recent conversation " +
          "(with exactly `targetAgentIds`, when given; in the token's workspace, for a session token) continues, " +
          'unless `newConversation`. One reply runs at a time in a conversation. With an `Idempotency-Key`, a ' +
          'repeat of the send is answered with the first result and stores nothing. `clientTools` offers the ' +
          "model the page's tools for this turn; a message with `toolAction` and `metadata.clientTool` answers a " +
          'call of one, once.',
        security: security.user,
        headers: sendHeaders,
        body: sendBody,
        response: { 200: sendResult },
        refusals: [
          USER_REFUSALS,
          MESSAGE_REFUSALS,
          {
            400: { [`body/mcpTokens must hold at most ${LIMITS.mcpTokens} tokens`]: '`mcpTokens` is over its limit.' },
            404: CONVERSATION_REFUSALS[404]!,
          },
          CLIENT_TOOL_REFUSALS,
          documentedRefusals({
            no_agent_named: "A personal API key's first conversation names no agent.",
            agent_not_found: "An agent of `targetAgentIds` is unknown, or not of the session token's workspace.",
            client_tool_not_pending:
              '`metadata.clientTool` answers a call that waits for no answer: answered already, never made, or of a ' +
              'turn asked again since.',
          }),
        ],
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
        operationId: 'stream',
        summary: "Read a conversation's records as they come",
        description:
          'The record stream (Server-Sent Events): from a cursor, every later record, then each new one. A client ' +
          'reads it with streaming `fetch` (EventSource cannot send `Authorization`) and resumes from the last ' +
          'record it handled after any cut.',
        security: security.user,
        params: idParams,
        ...recordStreamSchema,
        refusals: [USER_REFUSALS, CONVERSATION_REFUSALS, streamRefusals(ctx.quotas.streamsPerUser)],
      },
    },
    async (req, reply) =>
      answerRecordStream(
        ctx,
        req,
        reply,
        () => ownConversation(ctx.db, req.caller, req.params.id),
        req.caller.userId,
        req.caller.expiresAt,
      ),
  );

  app.get(
    '/conversations/:id/messages',
    {
      schema: {
        tags,
        operationId: 'messages',
        summary: "Read a conversation's whole history",
        description:
          'Every record but `assistant_delta` and `agent_status`, oldest first; `thinking` blocks only with ' +
          '`includeThinking=true`. Bounded by what a conversation holds (16 MB of records); the body is written ' +
          'as it is read, 50 records at a time (chunked, no `Content-Length`).',
        security: security.user,
        params: idParams,
        querystring: z.object({ includeThinking: booleanFlag }),
        response: {
          200: {
            description: 'The whole history, oldest first, written as it is read from the database.',
            content: {
              'application/json': {
                schema: described('Every record kept.', z.object({ entries: z.array(chatStreamRecord) }), {
                  entries: [USER_RECORD, RECORD_EXAMPLE],
                }),
              },
            },
          },
        },
        refusals: [
          USER_REFUSALS,
          CONVERSATION_REFUSALS,
          {
            400: {
              "querystring/includeThinking Invalid enum value. Expected 'true' | 'false', received 'yes'":
                '`includeThinking` is neither `true` nor `false`.',
            },
          },
        ],
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
        operationId: 'history',
        summary: 'Read a page of history',
        description:
          'The records (as `messages` keeps them), oldest first, of at most `turns` turns and `maxEntries` records ' +
          'before the cursor `before`, and who holds the conversation now (`handoff`). A turn starts at a user record.',
        security: security.user,
        params: idParams,
        ...historySchema,
        refusals: [USER_REFUSALS, CONVERSATION_REFUSALS, HISTORY_REFUSALS],
      },
    },
    async (req) => {
      const page = historyPageOf(req.query);
      const conversation = await ownConversation(ctx.db, req.caller, req.params.id);
      return ctx.handoffs.historyPage(conversation.id, page);
    },
  );

  app.post(
    '/conversations/:id/interrupt',
    {
      schema: {
        tags,
        operationId: 'interrupt',
        summary: 'Stop the running reply',
        description:
          "Interrupts the conversation's running turn: an `assistant` record with the text streamed so far, then " +
          'its `result` (`subtype: interrupted`), follow in the stream.',
        security: security.user,
        params: idParams,
        body: ignoredBody,
        response: { 200: interruptResult },
        refusals: [USER_REFUSALS, CONVERSATION_REFUSALS],
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
