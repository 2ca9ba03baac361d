import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  NotFoundError,
  PermissionDeniedError,
  SvcClient,
} from '../../src/index.js';
import { adminClient } from '../helpers/client.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { codeFor, uniquePhone, uniqueRef } from '../helpers/workspace.js';

describe('client: workspaces', () => {
  let server: TestServer;
  let admin: SvcClient;
  before(async () => {
    server = await startTestServer();
    admin = adminClient(server);
  });
  after(() => server.close());

  it('whoami names the workspace and the key in use', async () => {
    const me = await admin.workspaces.whoami();
    assert.equal(me.slug, 'acme');
    assert.equal(me.display_name, 'Acme');
    assert.equal(me.api_key_id, 'key_acme_1');
  });

  it('provisions a member once per sp_user_ref and lists it', async () => {
    const ref = uniqueRef();
    const first = await admin.workspaces.provisionMember('acme', { sp_user_ref: ref, display_name: 'Ada' });
    const again = await admin.workspaces.provisionMember('acme', { sp_user_ref: ref });
    assert.equal(first.created, true);
    assert.equal(again.created, false);
    assert.equal(again.member_id, first.member_id);
    const { members } = await admin.workspaces.listMembers('acme');
    const member = members.find((m) => m.user_id === first.member_id);
    assert.equal(member?.sp_user_ref, ref);
    assert.equal(member?.status, 'active');
  });

  it('grants credits idempotently and refuses a key reused for another grant', async () => {
    const { member_id } = await admin.workspaces.provisionMember('acme', { sp_user_ref: uniqueRef() });
    const key = uniqueRef('grant');
    const grant = await admin.workspaces.grantCredits('acme', member_id, { amount: 5, idempotency_key: key });
    const replay = await admin.workspaces.grantCredits('acme', member_id, { amount: 5, idempotency_key: key });
    assert.equal(grant.balance, 5);
    assert.equal(grant.idempotent, false);
    assert.deepEqual(replay, { ...grant, idempotent: true });
    await assert.rejects(
      admin.workspaces.grantCredits('acme', member_id, { amount: 6, idempotency_key: key }),
      (err: unknown) =>
        err instanceof ConflictError &&
        err.status === 409 &&
        err.message === 'idempotency_key was already used with a different request',
    );
    await assert.rejects(
      admin.workspaces.grantCredits('acme', member_id, { amount: 0, idempotency_key: uniqueRef('grant') }),
      (err: unknown) => err instanceof BadRequestError && err.message === 'body/amount Number must be greater than 0',
    );
  });

  it('suspends a member: a second suspend is 404 and no new session can be minted', async () => {
    const ref = uniqueRef();
    const { member_id } = await admin.workspaces.provisionMember('acme', { sp_user_ref: ref });
    await admin.workspaces.suspendMember('acme', member_id);
    const { members } = await admin.workspaces.listMembers('acme');
    assert.equal(members.find((m) => m.user_id === member_id)?.status, 'suspended');
    await assert.rejects(
      admin.workspaces.suspendMember('acme', member_id),
      (err: unknown) => err instanceof NotFoundError && err.message === 'member not found',
    );
    await assert.rejects(
      admin.workspaces.mintSession('acme', { sp_user_ref: ref }),
      (err: unknown) => err instanceof PermissionDeniedError && err.message === 'member status is suspended',
    );
  });

  it('mints a session token that chats as the member', async () => {
    const ref = uniqueRef();
    const { member_id } = await admin.workspaces.provisionMember('acme', { sp_user_ref: ref });
    const session = await admin.workspaces.mintSession('acme', { sp_user_ref: ref, ttl_seconds: 120 });
    assert.equal(session.user_id, member_id);
    const lifetime = Date.parse(session.expires_at) - Date.now();
    assert.ok(lifetime > 60_000 && lifetime <= 120_000, `expires in ${lifetime} ms`);
    const member = new SvcClient({ apiKey: session.token, baseUrl: server.url, agentId: 'agent_echo' });
    assert.equal((await member.sendMessage('hi')).text, 'Echo: hi');
  });

  it('starts a visitor session in one call (provision, then mint)', async () => {
    const ref = uniqueRef('visitor');
    const session = await admin.workspaces.startVisitorSession('acme', { sp_user_ref: ref, ttl_seconds: 300 });
    const { members } = await admin.workspaces.listMembers('acme');
    assert.equal(members.find((m) => m.sp_user_ref === ref)?.user_id, session.user_id);
    assert.match(session.token, /^st_/);
  });

  it('lists the agents and gets one', async () => {
    const list = await admin.workspaces.listAgents('acme');
    assert.equal(list.scope, 'workspace');
    assert.deepEqual(
      list.agents.map((a) => a.id),
      ['agent_echo', 'agent_demo', 'agent_scout'],
    );
    const one = await admin.workspaces.getAgent('acme', 'agent_demo');
    assert.equal(one.agent.name, 'Demo');
    assert.equal(one.workspace_id, list.workspace_id);
    await assert.rejects(
      admin.workspaces.getAgent('acme', 'agent_globex'),
      (err: unknown) => err instanceof NotFoundError && err.message === 'Agent not found in this workspace',
    );
  });

  it('signs in by SMS without any credential', async () => {
    const anonymous = new SvcClient({ baseUrl: server.url });
    const phone = uniquePhone();
    await anonymous.workspaces.sendSmsCode('acme', { phone });
    const code = codeFor(server, phone);
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    await assert.rejects(
      anonymous.workspaces.verifySmsCode('acme', { phone, code: wrong }),
      (err: unknown) => err instanceof AuthenticationError && err.message === 'invalid_or_expired_code',
    );
    const session = await anonymous.workspaces.verifySmsCode('acme', { phone, code });
    assert.match(session.token, /^st_/);
    await assert.rejects(
      anonymous.workspaces.sendSmsCode('acme', { phone: '12345' }),
      (err: unknown) => err instanceof BadRequestError && err.message === 'the phone number format is wrong',
    );
  });

  it('workspace(slug) carries every workspace method without the slug', async () => {
    const acme = admin.workspace('acme');
    assert.equal(acme.slug, 'acme');
    const ref = uniqueRef();
    const { member_id } = await acme.provisionMember({ sp_user_ref: ref });
    assert.ok((await acme.listMembers()).members.some((m) => m.user_id === member_id));
    assert.equal((await acme.grantCredits(member_id, { amount: 2, idempotency_key: uniqueRef('g') })).balance, 2);
    assert.equal((await acme.mintSession({ sp_user_ref: ref })).user_id, member_id);
    assert.match((await acme.startVisitorSession({ sp_user_ref: uniqueRef() })).token, /^st_/);
    assert.equal((await acme.listAgents()).agents.length, 3);
    assert.equal((await acme.getAgent('agent_echo')).agent.id, 'agent_echo');
    const phone = uniquePhone();
    await acme.sendSmsCode({ phone });
    assert.match((await acme.verifySmsCode({ phone, code: codeFor(server, phone) })).token, /^st_/);
    await acme.suspendMember(member_id);
    await assert.rejects(acme.suspendMember(member_id), NotFoundError);
    assert.equal('whoami' in acme, false);
  });
});
