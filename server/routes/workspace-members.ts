import { z } from 'zod';
import { security, workspaceAdminHook, workspaceAdminRefusals } from '../http/auth.js';
import { fixedValidationDetail } from '../http/errors.js';
import { described, documented } from '../http/openapi.js';
import type { AppContext } from '../services/context.js';
import { grantCredits, listMembers, provisionMember, sessionFor, suspendMember } from '../services/members.js';
import { documentedRefusals } from './refusal-answers.js';
import type { ZodApp } from './route-module.js';
import { sessionToken } from './session-schemas.js';

const slugParams = z.object({ slug: z.string() });
const memberParams = slugParams.extend({ memberId: z.string() });

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

const KEY_ONLY = workspaceAdminRefusals(false);
const KEY_OR_OWNER = workspaceAdminRefusals(true);

/**
 * A workspace's members (spec 4.1): provisioned by the site's backend, listed, suspended, granted credits and
 * given session tokens. The credential is checked first (workspaceAdminHook, by each route's `security`), then
 * the body, then things are looked up (docs/protocol.md "Credentials").
 */
export default function workspaceMemberRoutes(app: ZodApp, { db }: AppContext) {
  app.addHook('onRequest', workspaceAdminHook(db));
  const tags = ['workspaces'];

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
        refusals: [KEY_ONLY, { 400: { 'request body validation failed': 'Any invalid body (spec 7).' } }],
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
        refusals: [KEY_ONLY, documentedRefusals({ member_not_found: 'No such member, or it is suspended already.' })],
      },
    },
    async (req, reply) => {
      await suspendMember(db, req.workspace.id, req.params.memberId);
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
          },
          documentedRefusals({
            wallet_insufficient: "The owner's wallet holds less than `amount`.",
            member_not_found: 'No such member in the workspace.',
            grant_key_reused: 'The key was used for another member or amount.',
          }),
        ],
      },
    },
    async (req) => {
      const { amount, idempotency_key } = req.body;
      return grantCredits(db, req.workspace.id, req.params.memberId, amount, idempotency_key);
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
          },
          documentedRefusals({
            member_suspended: 'The member is suspended.',
            member_ref_unknown: 'No member was provisioned with `sp_user_ref`.',
          }),
        ],
      },
    },
    async (req) => sessionFor(db, req.workspace.id, req.body.sp_user_ref, req.body.ttl_seconds),
  );
}
