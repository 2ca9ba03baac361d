import type { AgentList, SingleAgent, SmsLimit, WorkspaceAgent } from '@svc/agent-sdk/protocol';
import { z } from 'zod';
import { security, WHOAMI_REFUSALS, workspaceAdminHook, workspaceAdminRefusals } from '../http/auth.js';
import { conflict, fixedValidationDetail, HttpError, notFound, type Refusals } from '../http/errors.js';
import { described, documented } from '../http/openapi.js';
import type { AppContext } from '../services/context.js';
import { type AgentRow, agentById, agentsOfWorkspace } from '../store/agent-rows.js';
import { grantCredits, listMembers, provisionMember, suspendMember } from '../store/member-rows.js';
import { smsSentToday } from '../store/sms-code-rows.js';
import { setSmsDailyLimit, workspaceById } from '../store/workspace-rows.js';
import type { ZodApp } from './route-module.js';
import { issueSession, sessionToken } from './session-schemas.js';

const slugParams = z.object({ slug: z.string() });
const memberParams = slugParams.extend({ memberId: z.string() });
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

const provisionBody = described(
  "The provider's own reference for the user: provisioning is idempotent by it.",
  z.object({
    sp_user_ref: z.string().min(1).max(200),
    display_name: z.string().max(200).optional(),
  }),
  { sp_user_ref: 'user-1842', display_name: 'Ada' },
);

const provisionResult = described(
  'The member (`member_id` is its `user_id`); `created` is false when `sp_user_ref` was provisioned before.',
  z.object({ member_id: z.string(), billing_account_id: z.string(), created: z.boolean() }),
  { member_id: 'u_Jd82kQm1Zx7Lp0Ws5Rt9Vg', billing_account_id: 'ba_Tq6Yx3Nc8Hb1Mv4Ke7Pz2A', created: true },
);

const MEMBER = {
  user_id: 'u_Jd82kQm1Zx7Lp0Ws5Rt9Vg',
  billing_account_id: 'ba_Tq6Yx3Nc8Hb1Mv4Ke7Pz2A',
  sp_user_ref: 'user-1842',
  status: 'active',
  joined_at: '2026-11-21T10:00:00.000Z',
  balance: 12.5,
};

const member = z.object({
  user_id: z.string(),
  billing_account_id: z.string(),
  sp_user_ref: z.string(),
  status: z.string().describe('`active` or `suspended`'),
  joined_at: z.string().datetime(),
  balance: z.number().describe('Credits, in whole cents.'),
});

/** Credits are whole cents: an amount has at most 2 decimal places, and is at most a billion. */
const MAX_AMOUNT = 1_000_000_000;

const grantBody = described(
  "Credits drawn from the owner's wallet, and the key that makes the grant happen once.",
  z.object({
    amount: documented(
      z
        .number()
        .positive()
        .refine((amount) => amount <= MAX_AMOUNT, `Number must be less than or equal to ${MAX_AMOUNT}`)
        .refine((amount) => Number(amount.toFixed(2)) === amount, 'Number must have at most 2 decimal places'),
      { maximum: MAX_AMOUNT, multipleOf: 0.01, description: 'Whole cents: at most 2 decimal places.' },
    ),
    idempotency_key: z.string().min(1).max(200).describe('A replay of the key answers the first grant again.'),
  }),
  { amount: 12.5, idempotency_key: 'grant-7f3a' },
);

const grantResult = described(
  "The member's balance after the grant; `idempotent` when this answers a replay of its key.",
  z.object({ balance: z.number(), purchase_id: z.string(), idempotent: z.boolean() }),
  { balance: 12.5, purchase_id: 'pur_Lm3Nb6Vc9Xz2Qw5Er8Ty1Ua', idempotent: false },
);

const sessionBody = described(
  'The member, and how long the token lives.',
  z.object({
    sp_user_ref: z.string().min(1).max(200),
    ttl_seconds: z.number().int().positive().max(86400).default(3600).describe('Seconds.'),
  }),
  { sp_user_ref: 'user-1842', ttl_seconds: 3600 },
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

const KEY_ONLY = workspaceAdminRefusals(false);
const KEY_OR_OWNER = workspaceAdminRefusals(true);
/** A route's body, refused by zod: an example for each route that takes one. */
const invalid = (detail: string, when = 'A field is missing or invalid (zod words each problem).'): Refusals => ({
  400: { [detail]: when },
});

const toWorkspaceAgent = ({ id, name, description, avatar_url, runtime, created_at }: AgentRow): WorkspaceAgent => ({
  id,
  name,
  description,
  avatar_url,
  runtime,
  created_at,
});

const GRANT_REFUSED = {
  key_reused: () => conflict('idempotency_key was already used with a different request'),
  unknown_member: () => notFound('member not found'),
  insufficient_wallet: () => new HttpError(402, 'insufficient owner wallet balance'),
};

/**
 * Workspace administration (spec 4.1). The credential is checked first (workspaceAdminHook, by each
 * route's `security`), then the body, then things are looked up (docs/protocol.md "Credentials").
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

  app.post(
    '/workspaces/:slug/members',
    {
      schema: {
        tags,
        operationId: 'provisionMember',
        summary: 'Provision a member',
        description:
          "Creates the member for the provider's `sp_user_ref`, or answers the one that exists (`created: false`; " +
          'a suspended member stays suspended). Parallel calls with one reference create one member.',
        security: security.workspaceKey,
        params: slugParams,
        body: provisionBody,
        response: { 200: provisionResult },
        refusals: [KEY_ONLY, invalid('request body validation failed', 'Any invalid body (spec 7).')],
      },
      schemaErrorFormatter: fixedValidationDetail('request body validation failed'),
    },
    async (req) => provisionMember(db, req.workspace.id, req.body.sp_user_ref, req.body.display_name),
  );

  app.get(
    '/workspaces/:slug/members',
    {
      schema: {
        tags,
        operationId: 'listMembers',
        summary: "List the workspace's members",
        description: 'The first 500 members by join order, suspended ones too; no pagination.',
        security: security.workspaceKeyOrOwner,
        params: slugParams,
        response: { 200: described('The members.', z.object({ members: z.array(member) }), { members: [MEMBER] }) },
        refusals: [KEY_OR_OWNER],
      },
    },
    async (req) => ({ members: await listMembers(db, req.workspace.id) }),
  );

  app.delete(
    '/workspaces/:slug/members/:memberId',
    {
      schema: {
        tags,
        operationId: 'suspendMember',
        summary: 'Suspend a member',
        description:
          'The member gets no new session token; tokens already issued keep working, and the member keeps ' +
          'receiving grants. Not idempotent: a second call is 404.',
        security: security.workspaceKey,
        params: memberParams,
        response: { 204: described('Suspended.', z.null()) },
        refusals: [KEY_ONLY, { 404: { 'member not found': 'No such member, or it is suspended already.' } }],
      },
    },
    async (req, reply) => {
      if (!(await suspendMember(db, req.workspace.id, req.params.memberId))) throw notFound('member not found');
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/workspaces/:slug/members/:memberId/credits',
    {
      schema: {
        tags,
        operationId: 'grantCredits',
        summary: 'Grant credits to a member',
        description:
          "Moves `amount` from the owner's wallet to the member's balance, once per `idempotency_key`: a replay " +
          'answers the first result with `idempotent: true`. Sums are kept in whole cents.',
        security: security.workspaceKeyOrOwner,
        params: memberParams,
        body: grantBody,
        response: { 200: grantResult },
        refusals: [
          KEY_OR_OWNER,
          {
            400: {
              'body/amount Number must be greater than 0': 'A zero or negative amount.',
              'body/amount Number must have at most 2 decimal places': 'Credits are whole cents.',
              [`body/amount Number must be less than or equal to ${MAX_AMOUNT}`]: 'Over a billion.',
              'body/idempotency_key Required': 'A field is missing or invalid (zod words each problem).',
            },
            402: { 'insufficient owner wallet balance': "The owner's wallet holds less than `amount`." },
            404: { 'member not found': 'No such member in the workspace.' },
            409: {
              'idempotency_key was already used with a different request':
                'The key was used for another member or amount.',
            },
          },
        ],
      },
    },
    async (req) => {
      const { amount, idempotency_key } = req.body;
      const grant = await grantCredits(db, req.workspace.id, req.params.memberId, amount, idempotency_key);
      if ('refused' in grant) throw GRANT_REFUSED[grant.refused]();
      return grant;
    },
  );

  app.post(
    '/workspaces/:slug/sessions',
    {
      schema: {
        tags,
        operationId: 'mintSession',
        summary: 'Mint a session token for a member',
        description:
          'A session token (`st_…`) for the member of `sp_user_ref`, for the conversation routes; it expires ' +
          'after `ttl_seconds`. A visitor session (spec `startVisitorSession`) is provisionMember, then this.',
        security: security.workspaceKey,
        params: slugParams,
        body: sessionBody,
        response: { 200: sessionToken },
        refusals: [
          KEY_ONLY,
          {
            400: {
              'body/ttl_seconds Number must be less than or equal to 86400': 'A day at most.',
              'body/ttl_seconds Number must be greater than 0':
                'A field is missing or invalid (zod words each problem).',
            },
            403: { 'member status is suspended': 'The member is suspended.' },
            404: { 'member not found for sp_user_ref': 'No member was provisioned with `sp_user_ref`.' },
          },
        ],
      },
    },
    async (req) => issueSession(db, req.workspace.id, req.body.sp_user_ref, req.body.ttl_seconds),
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

  /** The workspace's daily cap on SMS codes (our extension: spec section 8 leaves quotas open). */
  const smsLimitOf = async (workspace: { id: string; sms_daily_limit: number | null }): Promise<SmsLimit> => ({
    daily_limit: workspace.sms_daily_limit ?? quotas.smsPerWorkspacePerDay,
    custom: workspace.sms_daily_limit !== null,
    sent_last_24h: await smsSentToday(db, workspace.id),
  });
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
    async (req) => smsLimitOf(req.workspace),
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
        refusals: [KEY_OR_OWNER, invalid('body/daily_limit Number must be less than or equal to 1000000')],
      },
    },
    async (req) => {
      await setSmsDailyLimit(db, req.workspace.id, req.body.daily_limit);
      return smsLimitOf({ id: req.workspace.id, sms_daily_limit: req.body.daily_limit });
    },
  );
}
