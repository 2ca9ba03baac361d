import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Caller, requireUser } from '../auth.js';
import type { AppContext } from '../context.js';
import {
  baseUrlOf,
  historyPageOf,
  historyQuerySchema,
  idParams,
  messagesQuerySchema,
  sendRequestSchema,
  streamQuerySchema,
} from '../conversations/requests.js';
import { beginTurn } from '../conversations/runner.js';
import { badRequest, notFound } from '../errors.js';
import { resumeCursor, streamRecords } from '../sse.js';
import {
  type Conversation,
  createConversation,
  getConversation,
  historyPage,
  latestConversation,
  messages,
} from '../store/conversations.js';
import { type AgentRow, agentById, agentsOfWorkspace } from '../store/identity.js';
import { parse } from '../validation.js';

/** Conversation routes (spec 4.2): send, stream, messages, history, interrupt. */
export default function conversationsRoutes(app: FastifyInstance, ctx: AppContext) {
  // Streams never end by themselves and turns may be mid-reply: end both so the service can close.
  app.addHook('preClose', (done) => {
    ctx.turns.stopAll();
    ctx.hub.closeAll();
    done();
  });

  app.post('/conversations/send', async (req) => {
    const caller = requireUser(ctx.db, req);
    const body = parse(sendRequestSchema, req.body);
    const conversation = resolveConversation(ctx, caller, body);
    return beginTurn(ctx, conversation, { ...body, text: body.message, baseUrl: baseUrlOf(req) });
  });

  app.get('/conversations/:id/stream', async (req, reply) => {
    const caller = requireUser(ctx.db, req);
    const query = parse(streamQuerySchema, req.query, 'querystring');
    const after = resumeCursor(req, query.lastEventId);
    const conversation = ownConversation(ctx, caller, req);
    streamRecords(ctx, reply, conversation.id, { after, turns: query.turns });
  });

  app.get('/conversations/:id/messages', async (req) => {
    const caller = requireUser(ctx.db, req);
    const query = parse(messagesQuerySchema, req.query, 'querystring');
    const conversation = ownConversation(ctx, caller, req);
    return { entries: messages(ctx.db, conversation.id, query.includeThinking) };
  });

  app.get('/conversations/:id/history', async (req) => {
    const caller = requireUser(ctx.db, req);
    const page = historyPageOf(parse(historyQuerySchema, req.query, 'querystring'));
    const conversation = ownConversation(ctx, caller, req);
    return historyPage(ctx.db, conversation.id, page);
  });

  app.post('/conversations/:id/interrupt', async (req) => {
    const caller = requireUser(ctx.db, req);
    const conversation = ownConversation(ctx, caller, req);
    return ctx.turns.interrupt(conversation.id);
  });
}

/** The caller's own chat; anyone else's (or a training one) is 404, never 403. */
function ownChat(ctx: AppContext, caller: Caller, id: string): Conversation {
  const conversation = getConversation(ctx.db, id);
  if (conversation?.kind !== 'chat' || conversation.ownerId !== caller.userId) throw notFound('conversation not found');
  return conversation;
}

/** The caller's own chat named in the path. */
function ownConversation(ctx: AppContext, caller: Caller, req: FastifyRequest): Conversation {
  return ownChat(ctx, caller, parse(idParams, req.params, 'params').id);
}

/**
 * The conversation a send goes to: the named one; else, unless `newConversation`, the caller's most
 * recent one (with the same agents when `targetAgentIds` is given; in the token's workspace for a session
 * token); else a new one with `targetAgentIds` or the first agent of the token's workspace.
 */
function resolveConversation(
  ctx: AppContext,
  caller: Caller,
  body: { conversationId?: string; targetAgentIds?: string[]; newConversation?: boolean },
): Conversation {
  if (body.conversationId) return ownChat(ctx, caller, body.conversationId);
  const agents = body.targetAgentIds && [...new Set(body.targetAgentIds)].map((id) => allowedAgent(ctx, caller, id));
  const agentIds = agents?.map((a) => a.id);
  if (!body.newConversation) {
    const latest = latestConversation(ctx.db, caller.userId, { workspaceId: caller.workspaceId, agentIds });
    if (latest) return latest;
  }
  const first = agents?.[0] ?? defaultAgent(ctx, caller);
  return createConversation(ctx.db, {
    kind: 'chat',
    ownerId: caller.userId,
    workspaceId: first.workspace_id,
    agentIds: agentIds ?? [first.id],
  });
}

/** A session token reaches the agents of its workspace; a personal key any agent. */
function allowedAgent(ctx: AppContext, caller: Caller, agentId: string): AgentRow {
  const agent = agentById(ctx.db, agentId);
  if (!agent || (caller.workspaceId && agent.workspace_id !== caller.workspaceId)) throw notFound('agent not found');
  return agent;
}

function defaultAgent(ctx: AppContext, caller: Caller): AgentRow {
  if (!caller.workspaceId) throw badRequest('body/targetAgentIds Required');
  const [first] = agentsOfWorkspace(ctx.db, caller.workspaceId, 1);
  if (!first) throw notFound('agent not found');
  return first;
}
