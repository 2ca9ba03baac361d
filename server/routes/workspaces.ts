import type { AgentList, SingleAgent, WorkspaceAgent } from '@svc/agent-sdk/protocol';
import { z } from 'zod';
import { security, WHOAMI_REFUSALS, workspaceAdminHook, workspaceAdminRefusals } from '../http/auth.js';
import { notFound } from '../http/errors.js';
import { described } from '../http/openapi.js';
import type { AppContext } from '../services/context.js';
import { setSmsLimit, smsLimitOf } from '../services/sms-codes.js';
import { type AgentRow, agentById, agentsOfWorkspace } from '../store/agent-rows.js';
import { workspaceById } from '../store/workspace-rows.js';
import type { ZodApp } from './route-module.js';

const slugParams = z.object({ slug: z.string() });
const agentParams = slugParams.extend({ agentId: z.string() });

const workspace = described(
  "The workspace of the key, and the key's id.",
  z.object({
    workspace_id: z.string(),
    slug: z.string(),
    display_name: z.string(),
    status: z.string().describe('From the fixture: `active`.'),
    api_key_id: z.string(),
  }),
  { workspace_id: 'ws_Ab3dE6gH9', slug: 'acme', display_name: 'Acme', status: 'active', api_key_id: 'key_acme_1' },
);

const workspaceAgent = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  avatar_url: z.string().nullable(),
  runtime: z.string().describe('What runs the agent: `echo`, `demo` or `model`.'),
  created_at: z.string().datetime(),
});
const AGENT = {
  id: 'agent_echo',
  name: 'Echo',
  description: '',
  avatar_url: null,
  runtime: 'echo',
  created_at: '2026-11-21T10:00:00.000Z',
};

const agentList = described(
  "The workspace's agents, at most 500, in creation order.",
  z.object({
    scope: z.literal('workspace'),
    workspace_id: z.string(),
    agents: z.array(workspaceAgent),
  }),
  { scope: 'workspace', workspace_id: 'ws_Ab3dE6gH9', agents: [AGENT] },
);
const singleAgent = described(
  'The agent.',
  z.object({ scope: z.literal('workspace'), workspace_id: z.string(), agent: workspaceAgent }),
  { scope: 'workspace', workspace_id: 'ws_Ab3dE6gH9', agent: AGENT },
);

const smsLimit = described(
  "The workspace's cap on SMS codes, and what it sent in the last 24 hours.",
  z.object({
    daily_limit: z.number().int().describe('SMS codes the workspace sends in any 24 hours, at most.'),
    custom: z.boolean().describe("Whether the owner set it; otherwise it is the service's default."),
    sent_last_24h: z.number().int(),
  }),
  { daily_limit: 1000, custom: false, sent_last_24h: 3 },
);

const smsLimitBody = described(
  'The new cap.',
  z.object({
    daily_limit: z
      .number()
      .int()
      .min(0)
      .max(1_000_000)
      .nullable()
      .describe("0 turns SMS sign-in's codes off; null returns to the service's default."),
  }),
  { daily_limit: 200 },
);

const KEY_OR_OWNER = workspaceAdminRefusals(true);

const toWorkspaceAgent = ({ id, name, description, avatar_url, runtime, created_at }: AgentRow): WorkspaceAgent => ({
  id,
  name,
  description,
  avatar_url,
  runtime,
  created_at,
});

/**
 * Workspace administration (spec 4.1): the key's workspace, its agents and its cap on SMS codes (its members are
 * workspace-members.ts). The credential is checked first (workspaceAdminHook, by each route's `security`), then
 * the body, then things are looked up (docs/protocol.md "Credentials").
 */
export default function workspaceRoutes(app: ZodApp, { db, quotas }: AppContext) {
  app.addHook('onRequest', workspaceAdminHook(db));
  const tags = ['workspaces'];

  app.get(
    '/workspaces/whoami',
    {
      schema: {
        tags,
        operationId: 'whoami',
        summary: 'The workspace of this key',
        description: 'Which workspace the API key belongs to. Only a workspace API key is accepted.',
        security: security.workspaceKey,
        response: { 200: workspace },
        refusals: [WHOAMI_REFUSALS],
      },
    },
    async (req) => {
      // The hook admits only a workspace key here.
      if (req.credential.kind !== 'workspace_key') throw new Error('whoami without a workspace key');
      const ws = await workspaceById(db, req.credential.workspaceId);
      if (!ws) throw new Error('workspace of a live key is missing');
      return {
        workspace_id: ws.id,
        slug: ws.slug,
        display_name: ws.display_name,
        status: ws.status,
        api_key_id: req.credential.keyId,
      };
    },
  );

  app.get(
    '/workspaces/:slug/agents',
    {
      schema: {
        tags,
        operationId: 'listAgents',
        summary: "List the workspace's agents",
        description: 'The first 500 agents by creation order; no pagination.',
        security: security.workspaceKeyOrOwner,
        params: slugParams,
        response: { 200: agentList },
        refusals: [KEY_OR_OWNER],
      },
    },
    async (req): Promise<AgentList> => ({
      scope: 'workspace',
      workspace_id: req.workspace.id,
      agents: (await agentsOfWorkspace(db, req.workspace.id)).map(toWorkspaceAgent),
    }),
  );

  app.get(
    '/workspaces/:slug/agents/:agentId',
    {
      schema: {
        tags,
        operationId: 'getAgent',
        summary: 'Get one agent',
        description: 'An agent of the workspace.',
        security: security.workspaceKeyOrOwner,
        params: agentParams,
        response: { 200: singleAgent },
        refusals: [KEY_OR_OWNER, { 404: { 'Agent not found in this workspace': 'No such agent in the workspace.' } }],
      },
    },
    async (req): Promise<SingleAgent> => {
      const agent = await agentById(db, req.params.agentId);
      if (!agent || agent.workspace_id !== req.workspace.id) throw notFound('Agent not found in this workspace');
      return { scope: 'workspace', workspace_id: req.workspace.id, agent: toWorkspaceAgent(agent) };
    },
  );

  const smsLimitSchema = {
    tags,
    security: security.workspaceKeyOrOwner,
    params: slugParams,
    response: { 200: smsLimit },
  };

  app.get(
    '/workspaces/:slug/sms/limit',
    {
      schema: {
        ...smsLimitSchema,
        operationId: 'getSmsLimit',
        summary: "Read the workspace's cap on SMS codes",
        description: 'How many SMS sign-in codes the workspace sends in any 24 hours at most, and how many it sent.',
        refusals: [KEY_OR_OWNER],
      },
    },
    async (req) => smsLimitOf(db, quotas, req.workspace),
  );

  app.put(
    '/workspaces/:slug/sms/limit',
    {
      schema: {
        ...smsLimitSchema,
        operationId: 'setSmsLimit',
        summary: "Set the workspace's cap on SMS codes",
        description: "Sets the daily cap (0 sends none), or with `null` returns to the service's default.",
        body: smsLimitBody,
        refusals: [
          KEY_OR_OWNER,
          {
            400: {
              'body/daily_limit Number must be less than or equal to 1000000':
                'A field is missing or invalid (zod words each problem).',
            },
          },
        ],
      },
    },
    async (req) => setSmsLimit(db, quotas, req.workspace.id, req.body.daily_limit),
  );
}
