import type { AgentList, SingleAgent, SmsLimit, WorkspaceAgent } from '@svc/agent-sdk/protocol';
import { z } from 'zod';
import { security, workspaceAdminHook } from '../http/auth.js';
import { conflict, fixedValidationDetail, HttpError, notFound } from '../http/errors.js';
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

const workspace = z.object({
  workspace_id: z.string(),
  slug: z.string(),
  display_name: z.string(),
  status: z.string(),
  api_key_id: z.string(),
});

const provisionBody = z.object({
  sp_user_ref: z.string().min(1).max(200),
  display_name: z.string().max(200).optional(),
});

const provisionResult = z.object({ member_id: z.string(), billing_account_id: z.string(), created: z.boolean() });

const member = z.object({
  user_id: z.string(),
  billing_account_id: z.string(),
  sp_user_ref: z.string(),
  status: z.string().describe('`active` or `suspended`'),
  joined_at: z.string(),
  balance: z.number(),
});

/** Credits are whole cents: an amount has at most 2 decimal places, and is at most a billion. */
const MAX_AMOUNT = 1_000_000_000;

const grantBody = z.object({
  amount: z
    .number()
    .positive()
    .refine((amount) => amount <= MAX_AMOUNT, `Number must be less than or equal to ${MAX_AMOUNT}`)
    .refine((amount) => Number(amount.toFixed(2)) === amount, 'Number must have at most 2 decimal places'),
  idempotency_key: z.string().min(1).max(200),
});

const grantResult = z.object({ balance: z.number(), purchase_id: z.string(), idempotent: z.boolean() });

const sessionBody = z.object({
  sp_user_ref: z.string().min(1).max(200),
  ttl_seconds: z.number().int().positive().max(86400).default(3600),
});

const workspaceAgent = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  avatar_url: z.string().nullable(),
  runtime: z.string(),
  created_at: z.string(),
});

const agentList = z.object({
  scope: z.literal('workspace'),
  workspace_id: z.string(),
  agents: z.array(workspaceAgent),
});
const singleAgent = z.object({ scope: z.literal('workspace'), workspace_id: z.string(), agent: workspaceAgent });

const noContent = z.null().describe('No body.');

const smsLimit = z.object({
  daily_limit: z.number().int().describe('SMS codes the workspace sends in any 24 hours, at most.'),
  custom: z.boolean().describe("Whether the owner set it; otherwise it is the service's default."),
  sent_last_24h: z.number().int(),
});

const smsLimitBody = z.object({
  daily_limit: z
    .number()
    .int()
    .min(0)
    .max(1_000_000)
    .nullable()
    .describe("0 turns SMS sign-in's codes off; null returns to the service's default."),
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
    { schema: { tags, summary: 'whoami', security: security.workspaceKey, response: { 200: workspace } } },
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
        summary: 'provisionMember',
        security: security.workspaceKey,
        params: slugParams,
        body: provisionBody,
        response: { 200: provisionResult },
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
        summary: 'listMembers',
        security: security.workspaceKeyOrOwner,
        params: slugParams,
        response: { 200: z.object({ members: z.array(member) }) },
      },
    },
    async (req) => ({ members: await listMembers(db, req.workspace.id) }),
  );

  app.delete(
    '/workspaces/:slug/members/:memberId',
    {
      schema: {
        tags,
        summary: 'suspendMember',
        security: security.workspaceKey,
        params: memberParams,
        response: { 204: noContent },
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
        summary: 'grantCredits',
        security: security.workspaceKeyOrOwner,
        params: memberParams,
        body: grantBody,
        response: { 200: grantResult },
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
        summary: 'mintSession',
        security: security.workspaceKey,
        params: slugParams,
        body: sessionBody,
        response: { 200: sessionToken },
      },
    },
    async (req) => issueSession(db, req.workspace.id, req.body.sp_user_ref, req.body.ttl_seconds),
  );

  app.get(
    '/workspaces/:slug/agents',
    {
      schema: {
        tags,
        summary: 'listAgents',
        security: security.workspaceKeyOrOwner,
        params: slugParams,
        response: { 200: agentList },
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
        summary: 'getAgent',
        security: security.workspaceKeyOrOwner,
        params: agentParams,
        response: { 200: singleAgent },
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
  const smsLimitSchema = { tags, security: security.workspaceKeyOrOwner, params: slugParams };

  app.get(
    '/workspaces/:slug/sms/limit',
    { schema: { ...smsLimitSchema, summary: 'getSmsLimit', response: { 200: smsLimit } } },
    async (req) => smsLimitOf(req.workspace),
  );

  app.put(
    '/workspaces/:slug/sms/limit',
    { schema: { ...smsLimitSchema, summary: 'setSmsLimit', body: smsLimitBody, response: { 200: smsLimit } } },
    async (req) => {
      await setSmsDailyLimit(db, req.workspace.id, req.body.daily_limit);
      return smsLimitOf({ id: req.workspace.id, sms_daily_limit: req.body.daily_limit });
    },
  );
}
