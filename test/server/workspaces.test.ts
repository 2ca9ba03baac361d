import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FIXTURE, startTestServer, type TestServer } from '../helpers/server.js';
import { provision, uniqueRef } from '../helpers/workspace.js';

const KEY = 'sk_acme_1';
const OWNER = 'lt_acme_owner';

describe('workspace routes (spec 4.1)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  const members = async (slug = 'acme', token = KEY) => {
    const res = await server.api(`/workspaces/${slug}/members`, { token });
    assert.equal(res.status, 200);
    return res.body.members as any[];
  };
  const memberById = async (id: string, slug = 'acme', token = KEY) =>
    (await members(slug, token)).find((m) => m.user_id === id);
  const grant = (memberId: string, json: unknown, slug = 'acme', token = KEY) =>
    server.api(`/workspaces/${slug}/members/${memberId}/credits`, { method: 'POST', token, json });
  const mint = (json: unknown) => server.api('/workspaces/acme/sessions', { method: 'POST', token: KEY, json });
  const suspend = (memberId: string, slug = 'acme', token = KEY) =>
    server.api(`/workspaces/${slug}/members/${memberId}`, { method: 'DELETE', token });

  describe('whoami', () => {
    it("describes the key's workspace with exactly the fields of spec 2", async () => {
      const res = await server.api('/workspaces/whoami', { token: KEY });
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body).sort(), ['api_key_id', 'display_name', 'slug', 'status', 'workspace_id']);
      assert.match(res.body.workspace_id, /^ws_/);
      assert.deepEqual(
        { slug: res.body.slug, display_name: res.body.display_name, status: res.body.status, key: res.body.api_key_id },
        { slug: 'acme', display_name: 'Acme', status: 'active', key: 'key_acme_1' },
      );
    });
  });

  describe('provisionMember', () => {
    it('creates a member once and returns the same one for the same sp_user_ref', async () => {
      const ref = uniqueRef();
      const first = await server.api('/workspaces/acme/members', {
        method: 'POST',
        token: KEY,
        json: { sp_user_ref: ref, display_name: 'Ada' },
      });
      assert.equal(first.status, 200);
      assert.equal(first.body.created, true);
      assert.match(first.body.member_id, /^u_/);
      assert.match(first.body.billing_account_id, /^ba_/);
      const again = await server.api('/workspaces/acme/members', {
        method: 'POST',
        token: KEY,
        json: { sp_user_ref: ref },
      });
      assert.deepEqual(again.body, { ...first.body, created: false });
    });

    it('lists the new member with the fields of spec 2, active and with no credits', async () => {
      const ref = uniqueRef();
      const id = await provision(server, ref);
      const member = await memberById(id);
      assert.deepEqual(Object.keys(member).sort(), [
        'balance',
        'billing_account_id',
        'joined_at',
        'sp_user_ref',
        'status',
        'user_id',
      ]);
      assert.equal(member.sp_user_ref, ref);
      assert.equal(member.status, 'active');
      assert.equal(member.balance, 0);
      assert.ok(Math.abs(Date.parse(member.joined_at) - Date.now()) < 60_000, member.joined_at);
    });

    it('keeps members of different workspaces apart, even with the same sp_user_ref', async () => {
      const ref = uniqueRef();
      const inAcme = await provision(server, ref);
      const inGlobex = await provision(server, ref, 'globex', 'sk_globex_1');
      assert.notEqual(inAcme, inGlobex);
      assert.equal(await memberById(inAcme, 'globex', 'sk_globex_1'), undefined);
    });

    const invalidBodies: [string, unknown][] = [
      ['no body', undefined],
      ['no sp_user_ref', { display_name: 'Ada' }],
      ['an empty sp_user_ref', { sp_user_ref: '' }],
      ['a numeric sp_user_ref', { sp_user_ref: 42 }],
      ['a numeric display_name', { sp_user_ref: 'x', display_name: 7 }],
      ['an array', [{ sp_user_ref: 'x' }]],
    ];
    for (const [label, json] of invalidBodies) {
      it(`refuses ${label} with 400 request body validation failed`, async () => {
        const res = await server.api('/workspaces/acme/members', { method: 'POST', token: KEY, json });
        assert.deepEqual([res.status, res.body], [400, { detail: 'request body validation failed' }]);
      });
    }
  });

  describe('suspendMember and the member states of spec 3', () => {
    it('suspends an active member with an empty 204', async () => {
      const id = await provision(server);
      const res = await suspend(id);
      assert.equal(res.status, 204);
      assert.equal(res.body, undefined);
      assert.equal((await memberById(id)).status, 'suspended');
    });

    it('is not idempotent: a second suspension is 404 member not found', async () => {
      const id = await provision(server);
      await suspend(id);
      const again = await suspend(id);
      assert.deepEqual([again.status, again.body], [404, { detail: 'member not found' }]);
      assert.equal((await memberById(id)).status, 'suspended');
    });

    it("answers 404 for an unknown member and for another workspace's member", async () => {
      const unknown = await suspend('u_nobody');
      assert.deepEqual([unknown.status, unknown.body], [404, { detail: 'member not found' }]);
      const acmeMember = await provision(server);
      const foreign = await suspend(acmeMember, 'globex', 'sk_globex_1');
      assert.deepEqual([foreign.status, foreign.body], [404, { detail: 'member not found' }]);
      assert.equal((await memberById(acmeMember)).status, 'active');
    });

    it('provisioning a suspended sp_user_ref returns the same member, still suspended', async () => {
      const ref = uniqueRef();
      const id = await provision(server, ref);
      await suspend(id);
      const res = await server.api('/workspaces/acme/members', {
        method: 'POST',
        token: KEY,
        json: { sp_user_ref: ref },
      });
      assert.equal(res.status, 200);
      assert.equal(res.body.member_id, id);
      assert.equal(res.body.created, false);
      assert.equal((await memberById(id)).status, 'suspended');
    });

    it('refuses a session for a suspended member with 403 member status is suspended', async () => {
      const ref = uniqueRef();
      await suspend(await provision(server, ref));
      const res = await mint({ sp_user_ref: ref });
      assert.deepEqual([res.status, res.body], [403, { detail: 'member status is suspended' }]);
    });

    it('leaves tokens issued before the suspension working', async () => {
      const ref = uniqueRef();
      const id = await provision(server, ref);
      const { token } = (await mint({ sp_user_ref: ref })).body;
      await suspend(id);
      // A live session token is told it is not the owner; a dead one would be 401 invalid Bearer token.
      const res = await server.api('/workspaces/acme/members', { token });
      assert.deepEqual([res.status, res.body], [403, { detail: 'not the owner of this workspace' }]);
    });
  });

  describe('grantCredits', () => {
    it("moves credits from the owner's wallet to the member", async () => {
      const id = await provision(server);
      const first = await grant(id, { amount: 25, idempotency_key: uniqueRef('k') });
      assert.equal(first.status, 200);
      assert.equal(first.body.balance, 25);
      assert.equal(first.body.idempotent, false);
      assert.match(first.body.purchase_id, /^pur_/);
      const second = await grant(id, { amount: 5.5, idempotency_key: uniqueRef('k') }, 'acme', OWNER);
      assert.equal(second.body.balance, 30.5);
      assert.notEqual(second.body.purchase_id, first.body.purchase_id);
      assert.equal((await memberById(id)).balance, 30.5);
    });

    it('replays a key with the original result and no second debit', async () => {
      const id = await provision(server);
      const key = uniqueRef('k');
      const first = await grant(id, { amount: 10, idempotency_key: key });
      await grant(id, { amount: 3, idempotency_key: uniqueRef('k') });
      const replay = await grant(id, { amount: 10, idempotency_key: key });
      assert.equal(replay.status, 200);
      assert.deepEqual(replay.body, { ...first.body, idempotent: true });
      assert.equal((await memberById(id)).balance, 13);
    });

    it('refuses a replayed key with a different amount or member with 409', async () => {
      const id = await provision(server);
      const other = await provision(server);
      const key = uniqueRef('k');
      await grant(id, { amount: 10, idempotency_key: key });
      const conflict = { detail: 'idempotency_key was already used with a different request' };
      const amount = await grant(id, { amount: 11, idempotency_key: key });
      assert.deepEqual([amount.status, amount.body], [409, conflict]);
      const member = await grant(other, { amount: 10, idempotency_key: key });
      assert.deepEqual([member.status, member.body], [409, conflict]);
      assert.equal((await memberById(id)).balance, 10);
      assert.equal((await memberById(other)).balance, 0);
    });

    it('answers 404 member not found for an unknown member', async () => {
      const res = await grant('u_nobody', { amount: 1, idempotency_key: uniqueRef('k') });
      assert.deepEqual([res.status, res.body], [404, { detail: 'member not found' }]);
    });

    it('grants to a suspended member too (suspension only stops new sessions)', async () => {
      const id = await provision(server);
      await suspend(id);
      const res = await grant(id, { amount: 2, idempotency_key: uniqueRef('k') });
      assert.equal(res.status, 200);
      assert.equal(res.body.balance, 2);
    });

    it('keeps amounts exact in whole cents: 0.1 + 0.2 is 0.3, and so is what the wallet lost', async () => {
      const wallet = async (slug: string) =>
        ((await server.ctx.db.get('SELECT wallet FROM workspaces WHERE slug = ?', slug)) as { wallet: number }).wallet;
      const id = await provision(server);
      const before = await wallet('acme');
      await grant(id, { amount: 0.1, idempotency_key: uniqueRef('k') });
      const second = await grant(id, { amount: 0.2, idempotency_key: uniqueRef('k') });
      assert.equal(second.body.balance, 0.3);
      assert.equal((await memberById(id)).balance, 0.3);
      let balance = 0.3;
      for (let i = 0; i < 10; i++)
        balance = (await grant(id, { amount: 0.07, idempotency_key: uniqueRef('k') })).body.balance;
      assert.equal(balance, 1);
      assert.equal(await wallet('acme'), Math.round((before - 1) * 100) / 100);
    });

    const invalidBodies: [string, unknown, string][] = [
      [
        'an amount with more than 2 decimal places',
        { amount: 0.001, idempotency_key: 'k' },
        'body/amount Number must have at most 2 decimal places',
      ],
      [
        'the smallest number there is',
        { amount: 5e-324, idempotency_key: 'k' },
        'body/amount Number must have at most 2 decimal places',
      ],
      [
        'an amount over a billion',
        { amount: 1e12, idempotency_key: 'k' },
        'body/amount Number must be less than or equal to 1000000000',
      ],
      ['a zero amount', { amount: 0, idempotency_key: 'k' }, 'body/amount Number must be greater than 0'],
      ['a negative amount', { amount: -5, idempotency_key: 'k' }, 'body/amount Number must be greater than 0'],
      ['a string amount', { amount: '5', idempotency_key: 'k' }, 'body/amount Expected number, received string'],
      ['no amount', { idempotency_key: 'k' }, 'body/amount Required'],
      ['no idempotency_key', { amount: 1 }, 'body/idempotency_key Required'],
      [
        'an empty idempotency_key',
        { amount: 1, idempotency_key: '' },
        'body/idempotency_key String must contain at least 1 character(s)',
      ],
      [
        'an idempotency_key over 200 characters',
        { amount: 1, idempotency_key: 'k'.repeat(201) },
        'body/idempotency_key String must contain at most 200 character(s)',
      ],
    ];
    for (const [label, json, detail] of invalidBodies) {
      it(`refuses ${label} with 400 ${detail}`, async () => {
        const res = await grant(await provision(server), json);
        assert.deepEqual([res.status, res.body], [400, { detail }]);
      });
    }
  });

  describe("grantCredits against the owner's wallet (globex holds 50)", () => {
    it('refuses a grant larger than the wallet with 402, and a failed grant does not use up its key', async () => {
      const token = 'sk_globex_1';
      const id = await provision(server, uniqueRef(), 'globex', token);
      const key = uniqueRef('k');
      const tooMuch = await grant(id, { amount: 50.01, idempotency_key: key }, 'globex', token);
      assert.deepEqual([tooMuch.status, tooMuch.body], [402, { detail: 'insufficient owner wallet balance' }]);
      assert.equal((await memberById(id, 'globex', token)).balance, 0);
      const retried = await grant(id, { amount: 30, idempotency_key: key }, 'globex', token);
      assert.equal(retried.status, 200);
      assert.equal(retried.body.idempotent, false);
      const overdraw = await grant(id, { amount: 20.01, idempotency_key: uniqueRef('k') }, 'globex', token);
      assert.equal(overdraw.status, 402);
      const rest = await grant(id, { amount: 20, idempotency_key: uniqueRef('k') }, 'globex', token);
      assert.equal(rest.body.balance, 50);
      const empty = await grant(id, { amount: 0.01, idempotency_key: uniqueRef('k') }, 'globex', token);
      assert.deepEqual([empty.status, empty.body], [402, { detail: 'insufficient owner wallet balance' }]);
    });
  });

  describe('mintSession', () => {
    const minted = async (ttl?: number) => {
      const ref = uniqueRef();
      const memberId = await provision(server, ref);
      const res = await mint(ttl === undefined ? { sp_user_ref: ref } : { sp_user_ref: ref, ttl_seconds: ttl });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return { memberId, session: res.body, secondsLeft: (Date.parse(res.body.expires_at) - Date.now()) / 1000 };
    };

    it("returns a 256-bit token for the member's user_id, valid 3600 seconds by default", async () => {
      const { memberId, session, secondsLeft } = await minted();
      assert.deepEqual(Object.keys(session).sort(), ['expires_at', 'token', 'user_id']);
      assert.match(session.token, /^st_[A-Za-z0-9_-]{43}$/);
      assert.equal(session.user_id, memberId);
      assert.ok(Math.abs(secondsLeft - 3600) < 60, `${secondsLeft}`);
    });

    it('honours ttl_seconds up to the maximum of 86400', async () => {
      assert.ok(Math.abs((await minted(60)).secondsLeft - 60) < 30);
      assert.ok(Math.abs((await minted(86400)).secondsLeft - 86400) < 60);
    });

    it('mints a different token each time', async () => {
      const ref = uniqueRef();
      await provision(server, ref);
      const a = await mint({ sp_user_ref: ref });
      const b = await mint({ sp_user_ref: ref });
      assert.notEqual(a.body.token, b.body.token);
    });

    const invalidBodies: [string, unknown, string][] = [
      ['a ttl over the maximum', 86401, 'body/ttl_seconds Number must be less than or equal to 86400'],
      ['a zero ttl', 0, 'body/ttl_seconds Number must be greater than 0'],
      ['a fractional ttl', 1.5, 'body/ttl_seconds Expected integer, received float'],
      ['a string ttl', '60', 'body/ttl_seconds Expected number, received string'],
    ];
    for (const [label, ttl, detail] of invalidBodies) {
      it(`refuses ${label} with 400 ${detail}`, async () => {
        const ref = uniqueRef();
        await provision(server, ref);
        const res = await mint({ sp_user_ref: ref, ttl_seconds: ttl });
        assert.deepEqual([res.status, res.body], [400, { detail }]);
      });
    }

    it('refuses a missing sp_user_ref with 400 and an unknown one with 404', async () => {
      const missing = await mint({});
      assert.deepEqual([missing.status, missing.body], [400, { detail: 'body/sp_user_ref Required' }]);
      const unknown = await mint({ sp_user_ref: uniqueRef('never-provisioned') });
      assert.deepEqual([unknown.status, unknown.body], [404, { detail: 'member not found for sp_user_ref' }]);
    });
  });

  describe('listAgents and getAgent', () => {
    it("lists the workspace's agents in order with the WorkspaceAgent fields", async () => {
      const whoami = await server.api('/workspaces/whoami', { token: KEY });
      const res = await server.api('/workspaces/acme/agents', { token: OWNER });
      assert.equal(res.status, 200);
      assert.equal(res.body.scope, 'workspace');
      assert.equal(res.body.workspace_id, whoami.body.workspace_id);
      assert.deepEqual(
        res.body.agents.map((a: any) => [a.id, a.name, a.runtime]),
        [
          ['agent_echo', 'Echo', 'echo'],
          ['agent_demo', 'Demo', 'demo'],
          ['agent_scout', 'Scout', 'demo'],
        ],
      );
      const [echo] = res.body.agents;
      assert.deepEqual(Object.keys(echo).sort(), ['avatar_url', 'created_at', 'description', 'id', 'name', 'runtime']);
      assert.equal(echo.description, '');
      assert.equal(echo.avatar_url, null);
    });

    it('gets one agent of the workspace', async () => {
      const list = await server.api('/workspaces/acme/agents', { token: KEY });
      const res = await server.api('/workspaces/acme/agents/agent_demo', { token: KEY });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, {
        scope: 'workspace',
        workspace_id: list.body.workspace_id,
        agent: list.body.agents[1],
      });
    });

    it("answers 404 Agent not found in this workspace for unknown agents and another workspace's", async () => {
      for (const agentId of ['agent_nobody', 'agent_globex']) {
        const res = await server.api(`/workspaces/acme/agents/${agentId}`, { token: KEY });
        assert.deepEqual([res.status, res.body], [404, { detail: 'Agent not found in this workspace' }]);
      }
    });

    it('lists only the agents of its own workspace', async () => {
      const res = await server.api('/workspaces/globex/agents', { token: 'lt_globex_owner' });
      assert.deepEqual(
        res.body.agents.map((a: any) => a.id),
        ['agent_globex'],
      );
    });
  });
});

describe('limits of spec 8: at most 500 entries per list', () => {
  let server: TestServer;
  const crowd = FIXTURE.workspaces![0]!;
  before(async () => {
    const agents = Array.from({ length: 501 }, (_, i) => ({ id: `agent_${i}`, name: `Agent ${i}`, runtime: 'echo' }));
    server = await startTestServer({ fixture: { workspaces: [{ ...crowd, agents }] } });
  });
  after(() => server.close());

  it('listMembers returns the first 500 of 501 members, in join order', async () => {
    for (let i = 0; i < 501; i++) await provision(server, `member-${i}`);
    const res = await server.api('/workspaces/acme/members', { token: KEY });
    assert.equal(res.body.members.length, 500);
    assert.deepEqual(
      res.body.members.map((m: any) => m.sp_user_ref),
      Array.from({ length: 500 }, (_, i) => `member-${i}`),
    );
  });

  it('listAgents returns the first 500 of 501 agents, in order', async () => {
    const res = await server.api('/workspaces/acme/agents', { token: KEY });
    assert.equal(res.body.agents.length, 500);
    assert.equal(res.body.agents[0].id, 'agent_0');
    assert.equal(res.body.agents[499].id, 'agent_499');
  });
});
