import { z } from 'zod';
import {
  OPERATOR_CONVERSATION_REFUSALS,
  OPERATOR_REFUSALS,
  operatorConversation,
  operatorHook,
  operatorKey,
  security,
} from '../http/auth.js';
import { described } from '../http/openapi.js';
import { queueFrame, sendQueueStream } from '../http/queue-stream.js';
import { answerRecordStream, EXPIRED, STREAM_HEADERS } from '../http/sse.js';
import type { AppContext } from '../services/context.js';
import { formatBytes, LIMITS } from '../services/limits.js';
import {
  expiredEvent,
  HISTORY_REFUSALS,
  historyPageOf,
  historySchema,
  idParams,
  ignoredBody,
  messageFields,
  notEmpty,
  recordStreamSchema,
  sendHeaders,
  sendKeyOf,
  streamRefusals,
} from './conversation-schemas.js';
import { handoffResult, OPERATOR, operatorQueue } from './handoff-schemas.js';
import { chatStreamRecord, RECORD_EXAMPLE } from './record-schemas.js';
import { documentedRefusals } from './refusal-answers.js';
import type { ZodApp } from './route-module.js';

const messageBody = described(
  "The person's message: text, and attachments uploaded with `POST /files/upload`.",
  z
    .object({ message: messageFields.message, parts: messageFields.parts })
    .superRefine((body, issue) => notEmpty(body, false, issue)),
  { message: 'Hello, this is Alex from support. Let me look at your order.' },
);

const messageResult = described(
  "The stored `operator_message` record (for a repeated `Idempotency-Key`, the first one's).",
  z.object({ conversationId: z.string(), message: chatStreamRecord }),
  {
    conversationId: RECORD_EXAMPLE.conversationId!,
    message: {
      ...RECORD_EXAMPLE,
      agentId: undefined,
      agentName: undefined,
      turnId: undefined,
      sender: 'system',
      raw: {
        type: 'operator_message',
        operator: OPERATOR,
        message: { id: 'm_Q2w9Er4Ty7Ui1Op3As6DfA', content: [{ type: 'text', text: 'Hello, this is Alex.' }] },
      },
    },
  },
);

const queueStream = {
  200: {
    description: `Server-Sent Events (\`text/event-stream\`): \`event: queue\`, \`data: <the queue as JSON>\` (the answer
of \`GET /operators/queue\`) at once, then again whenever it may have changed, on any instance of the service. Each
event is the whole queue: a client that reconnects reads it afresh, with no cursor. A comment \`: ping\` every 15
seconds; \`event: expired\` last when the operator's token expires.`,
    headers: {
      'Cache-Control': { type: 'string', const: STREAM_HEADERS['cache-control'], description: 'No cache keeps it.' },
    },
    content: {
      'text/event-stream': {
        schema: z.string().describe('The events, as the stream writes them.'),
        'x-itemSchema': z.discriminatedUnion('event', [
          z.object({ event: z.literal('queue'), data: operatorQueue }).describe('The whole queue.'),
          expiredEvent,
        ]),
        example: `: connected\n\n${queueFrame({ waiting: [], mine: [], missed: [] })}${EXPIRED}`,
      },
    },
  },
};

/** What take, release and close refuse, besides the credential and the conversation. */
const HOLD_REFUSALS = documentedRefusals({
  already_taken: 'Another person took the conversation first (take).',
  not_waiting: 'Nobody asked for a person, or the wait ended (take).',
  not_holder: 'The operator does not hold the conversation (release, close, a message).',
});

/**
 * The routes of a person of the staff (our extension: docs/protocol.md "A person in the conversation"): the queue
 * and its stream, a conversation's history and stream, take, release, close and the person's messages. An operator's
 * session token, and only its workspace's conversations (any other is 404, as a stranger's is to a visitor).
 */
export default function operatorRoutes(app: ZodApp, ctx: AppContext) {
  app.addHook('onRequest', operatorHook(ctx.db));
  const tags = ['operators'];
  const base = { tags, security: security.operator };

  app.get(
    '/operators/queue',
    {
      schema: {
        ...base,
        operationId: 'operatorQueue',
        summary: 'Read the queue',
        description:
          'The conversations of the workspace waiting for a person (newest request first), those this operator ' +
          'holds, and the latest that nobody took, each with its visitor, reason and newest messages.',
        response: { 200: operatorQueue },
        refusals: [OPERATOR_REFUSALS],
      },
    },
    async (req) => ctx.queues.read(req.operator.workspaceId, req.operator.identity.id),
  );

  app.get(
    '/operators/queue/stream',
    {
      schema: {
        ...base,
        operationId: 'operatorQueueStream',
        summary: 'Follow the queue',
        description: 'The queue as Server-Sent Events: at once, then whenever it may have changed.',
        response: queueStream,
        refusals: [OPERATOR_REFUSALS, { 429: streamRefusals(ctx.quotas.streamsPerUser)[429]! }],
      },
    },
    async (req, reply) => sendQueueStream(ctx, reply, req.operator),
  );

  app.get(
    '/operators/conversations/:id/stream',
    {
      schema: {
        ...base,
        operationId: 'operatorStream',
        summary: "Read a conversation's records as they come",
        description: "The conversation's record stream, as its visitor reads it (`GET /conversations/{id}/stream`).",
        params: idParams,
        ...recordStreamSchema,
        refusals: [OPERATOR_REFUSALS, OPERATOR_CONVERSATION_REFUSALS, streamRefusals(ctx.quotas.streamsPerUser)],
      },
    },
    async (req, reply) =>
      answerRecordStream(
        ctx,
        req,
        reply,
        () => operatorConversation(ctx.db, req.operator, req.params.id),
        operatorKey(req.operator.identity),
        req.operator.expiresAt,
      ),
  );

  app.get(
    '/operators/conversations/:id/history',
    {
      schema: {
        ...base,
        operationId: 'operatorHistory',
        summary: 'Read a page of history',
        description: "A page of the conversation's history, as its visitor reads it, and who holds it.",
        params: idParams,
        ...historySchema,
        refusals: [OPERATOR_REFUSALS, OPERATOR_CONVERSATION_REFUSALS, HISTORY_REFUSALS],
      },
    },
    async (req) => {
      const page = historyPageOf(req.query);
      const conversation = await operatorConversation(ctx.db, req.operator, req.params.id);
      return ctx.handoffs.historyPage(conversation.id, page);
    },
  );

  const hold = (action: 'take' | 'release' | 'close', summary: string, description: string) =>
    app.post(
      `/operators/conversations/:id/${action}`,
      {
        schema: {
          ...base,
          operationId: `${action}Conversation`,
          summary,
          description,
          params: idParams,
          body: ignoredBody,
          response: { 200: handoffResult },
          refusals: [OPERATOR_REFUSALS, OPERATOR_CONVERSATION_REFUSALS, HOLD_REFUSALS],
        },
      },
      async (req) => {
        const conversation = await operatorConversation(ctx.db, req.operator, req.params.id);
        const { identity } = req.operator;
        if (action === 'take') return ctx.handoffs.take(identity, conversation);
        return ctx.handoffs.leave(identity, conversation, action === 'release' ? 'released' : 'closed');
      },
    );
  hold(
    'take',
    'Take a waiting conversation',
    'The operator holds the conversation (`operator_joined`): what the visitor writes is for them, and the agents ' +
      'answer no more (a reply still running stops, `interrupted`, before this answers). Exactly once: of operators ' +
      'taking it at once, on any instances, one holds it and the ' +
      'others get 409. Taking one held already by the same operator answers as before.',
  );
  hold(
    'release',
    'Give a conversation back to its agents',
    'The holder leaves (`operator_left`, `released`): the agents answer the next message, reading what was said.',
  );
  hold(
    'close',
    'Close a conversation',
    'The holder leaves (`operator_left`, `closed`): the matter is done; the agents answer what the visitor writes next.',
  );

  app.post(
    '/operators/conversations/:id/messages',
    {
      schema: {
        ...base,
        operationId: 'operatorMessage',
        summary: 'Write to the visitor',
        description:
          "The holder's message, stored as a person's (`operator_message`, with the operator's name and picture) and " +
          'streamed to the visitor. With an `Idempotency-Key`, a repeat answers the first result and stores nothing.',
        params: idParams,
        headers: sendHeaders,
        body: messageBody,
        response: { 200: messageResult },
        refusals: [
          OPERATOR_REFUSALS,
          OPERATOR_CONVERSATION_REFUSALS,
          {
            400: {
              'body/message Required': 'No `message` (every field is checked; zod words the problem of each).',
              'body/message String must contain at least 1 character(s)': 'An empty message without parts.',
              [`body/message must be at most ${formatBytes(LIMITS.messageBytes)}`]: 'The text is over its limit.',
              [`body/parts/0 must be at most ${formatBytes(LIMITS.partBytes)} as JSON`]: 'A part is over its limit.',
              'headers/idempotency-key must be 1 to 200 visible ASCII characters': 'A malformed `Idempotency-Key`.',
            },
          },
          documentedRefusals({
            not_holder: 'The operator does not hold the conversation: take it first.',
            send_key_reused: 'The key was sent within 24 hours with another message.',
          }),
        ],
      },
    },
    async (req) => {
      const conversation = await operatorConversation(ctx.db, req.operator, req.params.id);
      const { message, parts } = req.body;
      const once = sendKeyOf(req, operatorKey(req.operator.identity));
      return ctx.handoffs.say(req.operator.identity, conversation, { text: message, parts }, once);
    },
  );
}
