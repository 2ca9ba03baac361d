import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { issueSessionToken } from '../../server/store/credential-rows.js';
import { type ApiInit, startTestServer, type TestServer } from '../helpers/server.js';
import { provision, sendCode, uniquePhone, uniqueRef } from '../helpers/workspace.js';

/** A success status, or the exact error status and `detail`. */
type Expect = number | readonly [number, string];

const INVALID = [401, 'invalid Bearer token'] as const;
const KEY_REQUIRED = [401, 'workspace API key required'] as const;
const NOT_OWNER = [403, 'not the owner of this workspace'] as const;
const REVOKED = [403, 'API key revoked'] as const;
const MISMATCH = [403, 'API key does not match workspace'] as const;
const NO_CREDENTIALS = [403, 'SMS sign-in takes no credentials'] as const;

type Column = 'key' | 'owner' | 'session' | 'none';
type Request = ApiInit & { path: string };

interface Row {
  operation: string;
  /** Builds a request that succeeds with an accepted credential (fresh members, keys and phones each time). */
  request: (server: TestServer) => Promise<Request>;
  /** The cells of spec 5.3, with the outcome of each refusal decided in docs/protocol.md. */
  cells: Record<Column, Expect>;
  /** Which admin credential the route takes, for the rows beyond the spec's four columns. */
  admin?: 'key' | 'keyOrOwner';
}

const keyOnly = { owner: KEY_REQUIRED, session: NOT_OWNER, none: INVALID } as const;
const keyOrOwner = { owner: 200, session: NOT_OWNER, none: INVALID } as const;
const noCredential = { key: NO_CREDENTIALS, owner: NO_CREDENTIALS, session: NO_CREDENTIALS } as const;

const ROWS: Row[] = [
  {
    operation: 'whoami',
    request: async () => ({ path: '/workspaces/whoami' }),
    cells: { key: 200, owner: INVALID, session: INVALID, none: INVALID },
  },
  {
    operation: 'provisionMember',
    request: async () => ({ path: '/workspaces/acme/members', method: 'POST', json: { sp_user_ref: uniqueRef() } }),
    cells: { key: 200, ...keyOnly },
    admin: 'key',
  },
  {
    operation: 'listMembers',
    request: async () => ({ path: '/workspaces/acme/members' }),
    cells: { key: 200, ...keyOrOwner },
    admin: 'keyOrOwner',
  },
  {
    operation: 'suspendMember',
    request: async (server) => ({ path: `/workspaces/acme/members/${await provision(server)}`, method: 'DELETE' }),
    cells: { key: 204, ...keyOnly },
    admin: 'key',
  },
  {
    operation: 'grantCredits',
    request: async (server) => ({
      path: `/workspaces/acme/members/${await provision(server)}/credits`,
      method: 'POST',
      json: { amount: 1, idempotency_key: uniqueRef('grant') },
    }),
    cells: { key: 200, ...keyOrOwner },
    admin: 'keyOrOwner',
  },
  {
    operation: 'mintSession',
    request: async (server) => {
      const ref = uniqueRef();
      await provision(server, ref);
      return { path: '/workspaces/acme/sessions', method: 'POST', json: { sp_user_ref: ref } };
    },
    cells: { key: 200, ...keyOnly },
    admin: 'key',
  },
  {
    operation: 'listAgents',
    request: async () => ({ path: '/workspaces/acme/agents' }),
    cells: { key: 200, ...keyOrOwner },
    admin: 'keyOrOwner',
  },
  {
    operation: 'getAgent',
    request: async () => ({ path: '/workspaces/acme/agents/agent_echo' }),
    cells: { key: 200, ...keyOrOwner },
    admin: 'keyOrOwner',
  },
  {
    operation: 'sendSmsCode',
    request: async () => ({ path: '/workspaces/acme/sms/send', method: 'POST', json: { phone: uniquePhone() } }),
    cells: { ...noCredential, none: 204 },
  },
  {
    operation: 'verifySmsCode',
    request: async (server) => ({ path: '/workspaces/acme/sms/verify', method: 'POST', json: await sendCode(server) }),
    cells: { ...noCredential, none: 200 },
  },
];

/** Credentials beyond the spec's columns, and what each admin route answers (docs/protocol.md "Credentials"). */
const MORE_CREDENTIALS: { label: string; token: (t: Tokens) => string; key: Expect; keyOrOwner: Expect }[] = [
  { label: 'a personal API key', token: () => 'pk_alice', key: KEY_REQUIRED, keyOrOwner: KEY_REQUIRED },
  { label: 'a revoked workspace key', token: () => 'sk_acme_2', key: REVOKED, keyOrOwner: REVOKED },
  { label: "another workspace's key", token: () => 'sk_globex_1', key: MISMATCH, keyOrOwner: MISMATCH },
  { label: "another workspace's owner", token: () => 'lt_globex_owner', key: KEY_REQUIRED, keyOrOwner: NOT_OWNER },
  { label: 'a token that matches nothing', token: () => 'sk_unknown', key: INVALID, keyOrOwner: INVALID },
  { label: 'an expired session token', token: (t) => t.expired, key: INVALID, keyOrOwner: INVALID },
];

interface Tokens {
  session: string;
  expired: string;
}

const outcome = (expected: Expect) =>
  typeof expected === 'number' ? `answers ${expected}` : `refuses with ${expected[0]} ${expected[1]}`;

const COLUMN_LABELS: Record<Column, string> = {
  key: 'with the workspace key',
  owner: 'with the owner login',
  session: 'with a session token',
  none: 'without a credential',
};

function assertOutcome(res: { status: number; body: any }, expected: Expect) {
  if (typeof expected === 'number') {
    assert.equal(res.status, expected, `expected ${expected}, got ${res.status} ${JSON.stringify(res.body)}`);
  } else {
    assert.deepEqual({ status: res.status, body: res.body }, { status: expected[0], body: { detail: expected[1] } });
  }
}

describe('credentials of the workspace routes (spec 5.3)', () => {
  let server: TestServer;
  const tokens: Tokens = { session: '', expired: '' };

  before(async () => {
    server = await startTestServer();
    const ref = uniqueRef('session-holder');
    const memberId = await provision(server, ref);
    const minted = await server.api('/workspaces/acme/sessions', {
      method: 'POST',
      token: 'sk_acme_1',
      json: { sp_user_ref: ref },
    });
    tokens.session = minted.body.token;
    const acme = await server.api('/workspaces/whoami', { token: 'sk_acme_1' });
    tokens.expired = (await issueSessionToken(server.ctx.db, memberId, acme.body.workspace_id, -1)).token;
  });
  after(() => server.close());

  const columnToken = (column: Column) =>
    ({ key: 'sk_acme_1', owner: 'lt_acme_owner', session: tokens.session, none: undefined })[column];

  for (const row of ROWS) {
    describe(row.operation, () => {
      for (const column of Object.keys(row.cells) as Column[]) {
        const expected = row.cells[column];
        it(`${COLUMN_LABELS[column]} ${outcome(expected)}`, async () => {
          const request = await row.request(server);
          assertOutcome(await server.api(request.path, { ...request, token: columnToken(column) }), expected);
        });
      }
      const admin = row.admin;
      if (!admin) return;
      for (const credential of MORE_CREDENTIALS) {
        it(`with ${credential.label} ${outcome(credential[admin])}`, async () => {
          const request = await row.request(server);
          assertOutcome(
            await server.api(request.path, { ...request, token: credential.token(tokens) }),
            credential[admin],
          );
        });
      }
    });
  }

  describe('whoami beyond the four columns', () => {
    const cases: [string, (t: Tokens) => string, Expect][] = [
      ['a personal API key', () => 'pk_alice', INVALID],
      ['a revoked key', () => 'sk_acme_2', REVOKED],
      ['a token that matches nothing', () => 'sk_unknown', INVALID],
      ['an expired session token', (t) => t.expired, INVALID],
    ];
    for (const [label, token, expected] of cases) {
      it(`with ${label} ${outcome(expected)}`, async () => {
        assertOutcome(await server.api('/workspaces/whoami', { token: token(tokens) }), expected);
      });
    }

    it("answers with each key's own workspace", async () => {
      const res = await server.api('/workspaces/whoami', { token: 'sk_globex_1' });
      assert.equal(res.status, 200);
      assert.equal(res.body.slug, 'globex');
      assert.equal(res.body.api_key_id, 'key_globex_1');
    });
  });

  describe('rules of docs/protocol.md', () => {
    it('checks revocation before the workspace match', async () => {
      assertOutcome(await server.api('/workspaces/globex/members', { token: 'sk_acme_2' }), REVOKED);
    });

    it('treats an unknown slug like another workspace, so a key cannot probe for slugs', async () => {
      assertOutcome(await server.api('/workspaces/nowhere/members', { token: 'sk_acme_1' }), MISMATCH);
      assertOutcome(await server.api('/workspaces/nowhere/members', { token: 'lt_acme_owner' }), NOT_OWNER);
    });

    it("refuses a session token on another workspace's routes as well", async () => {
      assertOutcome(await server.api('/workspaces/globex/agents', { token: tokens.session }), NOT_OWNER);
    });

    it('accepts the owner login with or without X-Login-Type', async () => {
      const res = await server.api('/workspaces/acme/agents', {
        token: 'lt_acme_owner',
        headers: { 'x-login-type': 'login' },
      });
      assert.equal(res.status, 200);
    });

    it('reads the Bearer scheme case-insensitively and refuses other schemes', async () => {
      const lower = await server.api('/workspaces/whoami', { headers: { authorization: 'bearer sk_acme_1' } });
      assert.equal(lower.status, 200);
      const basic = await server.api('/workspaces/whoami', { headers: { authorization: 'Basic c2tfYWNtZV8xOg==' } });
      assertOutcome(basic, INVALID);
    });

    it('accepts X-Act-As only when it names the caller itself', async () => {
      const self = await server.api('/workspaces/acme/members', {
        token: 'lt_acme_owner',
        headers: { 'x-act-as': 'owner_acme' },
      });
      assert.equal(self.status, 200);
      const other = await server.api('/workspaces/acme/members', {
        token: 'lt_acme_owner',
        headers: { 'x-act-as': 'alice' },
      });
      assertOutcome(other, [403, 'cannot act as this account']);
      const byKey = await server.api('/workspaces/acme/members', {
        token: 'sk_acme_1',
        headers: { 'x-act-as': 'owner_acme' },
      });
      assertOutcome(byKey, [403, 'cannot act as this account']);
    });

    it('checks the credential before the body', async () => {
      const invalidBody = { method: 'POST', json: { sp_user_ref: 42 } };
      assertOutcome(await server.api('/workspaces/acme/members', invalidBody), INVALID);
      const grant = await server.api('/workspaces/acme/members/u_missing/credits', {
        method: 'POST',
        token: tokens.session,
        json: { amount: 0 },
      });
      assertOutcome(grant, NOT_OWNER);
    });

    it('validates the body before looking anything up', async () => {
      const grant = await server.api('/workspaces/acme/members/u_missing/credits', {
        method: 'POST',
        token: 'sk_acme_1',
        json: { amount: 0, idempotency_key: 'k' },
      });
      assertOutcome(grant, [400, 'body/amount Number must be greater than 0']);
    });

    it("checks the credential before looking up another workspace's agent", async () => {
      assertOutcome(await server.api('/workspaces/acme/agents/agent_globex', { token: 'sk_globex_1' }), MISMATCH);
    });

    it('refuses any credential on the SMS routes, even one that matches nothing', async () => {
      const res = await server.api('/workspaces/acme/sms/send', {
        method: 'POST',
        token: 'garbage',
        json: { phone: uniquePhone() },
      });
      assertOutcome(res, NO_CREDENTIALS);
    });
  });
});
