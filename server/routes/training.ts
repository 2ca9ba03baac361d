import { z } from 'zod';
import { security, TRAINING_REFUSALS, trainingHook } from '../http/auth.js';
import { described } from '../http/openapi.js';
import { baseUrlOf } from '../http/public-url.js';
import { answerRecordStream } from '../http/sse.js';
import type { AppContext } from '../services/context.js';
import { historyPage } from '../store/history-rows.js';
import { beginTurn } from '../turns/begin-turn.js';
import {
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
import type { ZodApp } from './route-module.js';

/** A training message has no `toolAction`: one that carries `metadata` answers a card. */
const trainingSendBody = described(
  'The message; with `metadata`, it answers a card.',
  z.object(messageFields).superRefine((body, issue) => notEmpty(body, body.metadata !== undefined, issue)),
  { message: 'What can you do?' },
);

const trainingSendResult = described(
  "The message is stored and the agent's reply has begun: `msgId` is the id its first message will carry.",
  z.object({ ok: z.boolean(), msgId: z.string().optional() }),
  { ok: true, msgId: 'm_Q2w9Er4Ty7Ui1Op3As6DfA' },
);

/**
 * Training routes (spec 4.3): an operator of the agent's workspace talks to it in one training
 * conversation per (agent, operator), with the same turn runner, store and stream as every chat. The
 * hook resolves the operator, the agent and that conversation before the body is validated.
 */
export default function trainingRoutes(app: ZodApp, ctx: AppContext) {
  app.addHook('onRequest', trainingHook(ctx.db));
  const tags = ['training'];
  const schema = { tags, security: security.workspaceKeyOrOwner, params: idParams };

  app.post(
    '/agents/:id/dev/send',
    {
      schema: {
        ...schema,
        operationId: 'trainingSend',
        summary: 'Send a message to the agent in training',
        description:
          "Stores the message in the caller's training conversation with agent `{id}` and starts its reply, " +
          'read from the training stream. `Idempotency-Key` works as on `send`.',
        headers: sendHeaders,
        body: trainingSendBody,
        response: { 200: trainingSendResult },
        refusals: [TRAINING_REFUSALS, MESSAGE_REFUSALS],
      },
    },
    async (req) => {
      const { conversation } = req.training;
      const message = { ...req.body, text: req.body.message, baseUrl: baseUrlOf(ctx, req) };
      const sent = await beginTurn(ctx, async () => conversation, message, sendKeyOf(req, conversation.ownerId));
      return { ok: true, msgId: sent.results[0]?.msgId };
    },
  );

  app.get(
    '/agents/:id/messages/stream',
    {
      schema: {
        ...schema,
        operationId: 'trainingStream',
        summary: 'Read the training conversation as it comes',
        description: 'The record stream of the training conversation, as `stream` has it for a chat.',
        ...recordStreamSchema,
        refusals: [TRAINING_REFUSALS, streamRefusals(ctx.quotas.streamsPerUser)],
      },
    },
    async (req, reply) => {
      const { conversation } = req.training;
      await answerRecordStream(ctx, req, reply, async () => conversation, conversation.ownerId);
    },
  );

  app.get(
    '/agents/:id/messages/history',
    {
      schema: {
        ...schema,
        operationId: 'trainingMessages',
        summary: 'Read a page of the training history',
        description: 'A page of the training conversation before `before`, as `history` has it for a chat.',
        ...historySchema,
        refusals: [TRAINING_REFUSALS, HISTORY_REFUSALS],
      },
    },
    async (req) => historyPage(ctx.db, req.training.conversation.id, historyPageOf(req.query)),
  );

  app.post(
    '/agents/:id/dev/interrupt',
    {
      schema: {
        ...schema,
        operationId: 'trainingInterrupt',
        summary: "Stop the agent's running reply in training",
        description: "Interrupts the running turn of the training conversation, as `interrupt` does a chat's.",
        body: ignoredBody,
        response: { 200: interruptResult },
        refusals: [TRAINING_REFUSALS],
      },
    },
    async (req) => ctx.turns.interrupt(req.training.conversation.id),
  );
}
