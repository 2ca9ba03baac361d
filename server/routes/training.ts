import { z } from 'zod';
import { operatorHook, security } from '../http/auth.js';
import { baseUrlOf } from '../http/public-url.js';
import { resumeCursor, sendRecordStream } from '../http/sse.js';
import type { AppContext } from '../services/context.js';
import { historyPage } from '../store/record-rows.js';
import { beginTurn } from '../turns/begin-turn.js';
import {
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
import type { ZodApp } from './route-module.js';

/** A training message has no `toolAction`: one that carries `metadata` answers a card. */
const trainingSendBody = z
  .object(messageFields)
  .superRefine((body, issue) => notEmpty(body, body.metadata !== undefined, issue));

/**
 * Training routes (spec 4.3): an operator of the agent's workspace talks to it in one training
 * conversation per (agent, operator), with the same turn runner, store and stream as every chat. The
 * hook resolves the operator, the agent and that conversation before the body is validated.
 */
export default function trainingRoutes(app: ZodApp, ctx: AppContext) {
  app.addHook('onRequest', operatorHook(ctx.db));
  const tags = ['training'];
  const schema = { tags, security: security.workspaceKeyOrOwner, params: idParams };

  app.post(
    '/agents/:id/dev/send',
    {
      schema: {
        ...schema,
        summary: 'trainingSend',
        headers: sendHeaders,
        body: trainingSendBody,
        response: { 200: z.object({ ok: z.boolean(), msgId: z.string().optional() }) },
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
    { schema: { ...schema, summary: 'trainingStream', querystring: streamQuery, response: recordStream } },
    async (req, reply) => {
      const after = resumeCursor(req, req.query.lastEventId);
      const { conversation } = req.training;
      await sendRecordStream(
        ctx,
        reply,
        { conversationId: conversation.id, after, turns: req.query.turns },
        conversation.ownerId,
      );
    },
  );

  app.get(
    '/agents/:id/messages/history',
    { schema: { ...schema, summary: 'trainingMessages', querystring: historyQuery, response: { 200: historyResult } } },
    async (req) => historyPage(ctx.db, req.training.conversation.id, historyPageOf(req.query)),
  );

  app.post(
    '/agents/:id/dev/interrupt',
    { schema: { ...schema, summary: 'trainingInterrupt', response: { 200: interruptResult } } },
    async (req) => ctx.turns.interrupt(req.training.conversation.id),
  );
}
