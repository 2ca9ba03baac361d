import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requireWorkspaceOperator } from '../auth.js';
import type { AppContext } from '../context.js';
import {
  baseUrlOf,
  historyPageOf,
  historyQuerySchema,
  idParams,
  streamQuerySchema,
  trainingSendSchema,
} from '../conversations/requests.js';
import { beginTurn } from '../conversations/runner.js';
import { resumeCursor, streamRecords } from '../sse.js';
import { type Conversation, historyPage, trainingConversation } from '../store/conversations.js';
import { agentById } from '../store/identity.js';
import { parse } from '../validation.js';

/**
 * Training routes (spec 4.3): an operator of the agent's workspace talks to it in one training
 * conversation per (agent, operator), with the same turn runner, store and stream as every chat.
 */
export default function trainingRoutes(app: FastifyInstance, ctx: AppContext) {
  app.post('/agents/:id/dev/send', async (req) => {
    const conversation = operatorConversation(ctx, req);
    const body = parse(trainingSendSchema, req.body);
    const sent = beginTurn(ctx, conversation, { ...body, text: body.message, baseUrl: baseUrlOf(req) });
    return { ok: true, msgId: sent.results[0]?.msgId };
  });

  app.get('/agents/:id/messages/stream', async (req, reply) => {
    const conversation = operatorConversation(ctx, req);
    const query = parse(streamQuerySchema, req.query, 'querystring');
    streamRecords(ctx, reply, conversation.id, { after: resumeCursor(req, query.lastEventId), turns: query.turns });
  });

  app.get('/agents/:id/messages/history', async (req) => {
    const conversation = operatorConversation(ctx, req);
    const page = historyPageOf(parse(historyQuerySchema, req.query, 'querystring'));
    return historyPage(ctx.db, conversation.id, page);
  });

  app.post('/agents/:id/dev/interrupt', async (req) => {
    const conversation = operatorConversation(ctx, req);
    return ctx.turns.interrupt(conversation.id);
  });
}

/**
 * The caller's training conversation with the agent in the path (created on first use). The workspace
 * key and the owner login are different operators, each with a conversation of its own.
 */
function operatorConversation(ctx: AppContext, req: FastifyRequest): Conversation {
  const { id } = parse(idParams, req.params, 'params');
  const agent = agentById(ctx.db, id);
  // An unknown agent fails the workspace match: 404 `agent not found`, after the credential checks.
  const credential = requireWorkspaceOperator(ctx.db, req, agent?.workspace_id ?? '');
  const operator = credential.kind === 'workspace_key' ? `key:${credential.keyId}` : `owner:${credential.userId}`;
  return trainingConversation(ctx.db, agent!, operator);
}
