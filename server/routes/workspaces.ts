import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AgentList, SingleAgent, WorkspaceAgent } from '../../src/client/types.js';
import { requireAnyWorkspaceKey, requireWorkspaceAdmin } from '../auth.js';
import type { AppContext } from '../context.js';
import { notFound } from '../errors.js';
import { type AgentRow, agentById, agentsOfWorkspace, workspaceById } from '../store/identity.js';
import { grantCredits, listMembers, mintSession, provisionMember, suspendMember } from '../store/workspace.js';
import { parse } from '../validation.js';

const provisionBody = z.object({
  sp_user_ref: z.string().min(1).max(200),
  display_name: z.string().max(200).optional(),
});

const grantBody = z.object({
  amount: z.number().positive(),
  idempotency_key: z.string().min(1).max(200),
});

const sessionBody = z.object({
  sp_user_ref: z.string().min(1).max(200),
  ttl_seconds: z.number().int().positive().max(86400).default(3600),
});

const toWorkspaceAgent = ({ id, name, description, avatar_url, runtime, created_at }: AgentRow): WorkspaceAgent => ({
  id,
  name,
  description,
  avatar_url,
  runtime,
  created_at,
});

type Slug = { Params: { slug: string } };
type SlugMember = { Params: { slug: string; memberId: string } };
type SlugAgent = { Params: { slug: string; agentId: string } };

/**
 * Workspace administration (spec 4.1). Every handler checks the credential first, then the body, then looks
 * things up (docs/protocol.md "Credentials").
 */
export default function workspaceRoutes(app: FastifyInstance, { db }: AppContext) {
  app.get('/workspaces/whoami', async (req) => {
    const key = requireAnyWorkspaceKey(db, req);
    const ws = workspaceById(db, key.workspaceId);
    if (!ws) throw new Error('workspace of a live key is missing');
    return {
      workspace_id: ws.id,
      slug: ws.slug,
      display_name: ws.display_name,
      status: ws.status,
      api_key_id: key.keyId,
    };
  });

  app.post<Slug>('/workspaces/:slug/members', async (req) => {
    const { workspace } = requireWorkspaceAdmin(db, req, req.params.slug, false);
    const body = parse(provisionBody, req.body, 'body', 'request body validation failed');
    return provisionMember(db, workspace.id, body.sp_user_ref, body.display_name);
  });

  app.get<Slug>('/workspaces/:slug/members', async (req) => {
    const { workspace } = requireWorkspaceAdmin(db, req, req.params.slug, true);
    return { members: listMembers(db, workspace.id) };
  });

  app.delete<SlugMember>('/workspaces/:slug/members/:memberId', async (req, reply) => {
    const { workspace } = requireWorkspaceAdmin(db, req, req.params.slug, false);
    suspendMember(db, workspace.id, req.params.memberId);
    return reply.code(204).send();
  });

  app.post<SlugMember>('/workspaces/:slug/members/:memberId/credits', async (req) => {
    const { workspace } = requireWorkspaceAdmin(db, req, req.params.slug, true);
    const body = parse(grantBody, req.body);
    return grantCredits(db, workspace.id, req.params.memberId, body.amount, body.idempotency_key);
  });

  app.post<Slug>('/workspaces/:slug/sessions', async (req) => {
    const { workspace } = requireWorkspaceAdmin(db, req, req.params.slug, false);
    const body = parse(sessionBody, req.body);
    return mintSession(db, workspace.id, body.sp_user_ref, body.ttl_seconds);
  });

  app.get<Slug>('/workspaces/:slug/agents', async (req): Promise<AgentList> => {
    const { workspace } = requireWorkspaceAdmin(db, req, req.params.slug, true);
    const agents = agentsOfWorkspace(db, workspace.id).map(toWorkspaceAgent);
    return { scope: 'workspace', workspace_id: workspace.id, agents };
  });

  app.get<SlugAgent>('/workspaces/:slug/agents/:agentId', async (req): Promise<SingleAgent> => {
    const { workspace } = requireWorkspaceAdmin(db, req, req.params.slug, true);
    const agent = agentById(db, req.params.agentId);
    if (!agent || agent.workspace_id !== workspace.id) throw notFound('Agent not found in this workspace');
    return { scope: 'workspace', workspace_id: workspace.id, agent: toWorkspaceAgent(agent) };
  });
}
