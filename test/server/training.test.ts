import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assistants, deltaText, kinds, resultOf, sessionToken } from '../helpers/conversation.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { openSse } from '../helpers/sse.js';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

const devSend = (agentId: string, token: string, json: unknown) =>
  server.api(`/agents/${agentId}/dev/send`, { method: 'POST', token, json });

const trainingStream = (agentId: string, token: string, query = '') =>
  openSse(`${server.url}/api/v2/agents/${agentId}/messages/stream${query}`, { token });

describe('training conversation', () => {
  it('sends, streams the reply, pages history and resumes from a cursor', async () => {
    const sent = await devSend('agent_echo', 'sk_acme_1', { message: 'teach me' });
    assert.equal(sent.status, 200);
    assert.equal(sent.body.ok, true);
    assert.match(sent.body.msgId, /^m_/);

    const reader = await trainingStream('agent_echo', 'sk_acme_1', '?turns=1');
    let first: Awaited<ReturnType<typeof reader.untilResult>>;
    try {
      first = await reader.untilResult();
    } finally {
      reader.close();
    }
    assert.equal(kinds(first)[0], 'user');
    assert.equal(deltaText(first), 'Echo: teach me');
    assert.equal(assistants(first)[0]!.message.id, sent.body.msgId);
    assert.equal(resultOf(first).subtype, 'success');

    const second = await devSend('agent_echo', 'sk_acme_1', { message: 'again' });
    assert.equal(second.status, 200);
    const resumed = await trainingStream('agent_echo', 'sk_acme_1', `?lastEventId=${first.at(-1)!.id}`);
    try {
      const next = await resumed.untilResult();
      assert.equal(kinds(next)[0], 'user');
      assert.equal(deltaText(next), 'Echo: again');
      assert.equal(assistants(next)[0]!.message.id, second.body.msgId);
    } finally {
      resumed.close();
    }

    const latest = await trainingStream('agent_echo', 'sk_acme_1', '?turns=1');
    try {
      await latest.untilResult();
      assert.equal(deltaText(latest.records), 'Echo: again', 'turns=1 replays only the last turn');
    } finally {
      latest.close();
    }

    const all = await server.api('/agents/agent_echo/messages/history', { token: 'sk_acme_1' });
    assert.equal(all.status, 200);
    assert.equal(all.body.hasMore, false);
    assert.deepEqual(kinds(all.body.entries), ['user', 'assistant', 'result', 'user', 'assistant', 'result']);
    const older = await server.api(`/agents/agent_echo/messages/history?before=${all.body.entries[3].id}`, {
      token: 'sk_acme_1',
    });
    assert.deepEqual(older.body, { entries: all.body.entries.slice(0, 3), hasMore: false });
  });

  it('keeps one conversation per operator: the owner login does not see the key', async () => {
    await devSend('agent_demo', 'sk_acme_1', { message: '/help' });
    const owner = await server.api('/agents/agent_demo/messages/history', { token: 'lt_acme_owner' });
    assert.deepEqual(owner.body, { entries: [], hasMore: false });
    const sent = await devSend('agent_demo', 'lt_acme_owner', { message: '/think' });
    assert.equal(sent.status, 200);
    const reader = await trainingStream('agent_demo', 'lt_acme_owner', '?turns=1');
    try {
      const records = await reader.untilResult();
      assert.match(deltaText(records), /42/);
    } finally {
      reader.close();
    }
  });

  it('interrupts a running reply and says so when none runs', async () => {
    const sent = await devSend('agent_demo', 'lt_acme_owner', { message: '/slow 5' });
    assert.equal(sent.status, 200);
    const busy = await devSend('agent_demo', 'lt_acme_owner', { message: 'me too' });
    assert.equal(busy.status, 409);
    assert.equal(busy.body.detail, 'a reply is still running in this conversation');
    const reader = await trainingStream('agent_demo', 'lt_acme_owner', '?turns=1');
    try {
      await reader.waitFor((records) => records.some((r) => r.raw.type === 'assistant_delta'));
      const res = await server.api('/agents/agent_demo/dev/interrupt', { method: 'POST', token: 'lt_acme_owner' });
      assert.equal(res.status, 200);
      assert.equal(res.body.interrupted, true);
      assert.match(res.body.turnId, /^t_/);
      const records = await reader.untilResult(2000);
      assert.equal(resultOf(records).subtype, 'interrupted');
    } finally {
      reader.close();
    }
    const idle = await server.api('/agents/agent_demo/dev/interrupt', { method: 'POST', token: 'lt_acme_owner' });
    assert.deepEqual(idle.body, { interrupted: false, reason: 'no reply is running' });
    const after = await devSend('agent_demo', 'lt_acme_owner', { message: '/help' });
    assert.equal(after.status, 200);
  });

  it('validates the message', async () => {
    const empty = await devSend('agent_echo', 'sk_acme_1', { message: '' });
    assert.equal(empty.status, 400);
    assert.equal(empty.body.detail, 'body/message String must contain at least 1 character(s)');
    const missing = await devSend('agent_echo', 'sk_acme_1', {});
    assert.equal(missing.body.detail, 'body/message Required');
  });

  it('is not reachable through the conversation routes', async () => {
    const { token } = await sessionToken(server);
    const owner = await server.api('/agents/agent_echo/messages/history', { token: 'sk_acme_1' });
    const id = owner.body.entries[0].conversationId;
    for (const caller of [token, 'pk_alice']) {
      const res = await server.api(`/conversations/${id}/messages`, { token: caller });
      assert.equal(res.status, 404);
    }
  });
});

describe('training auth', () => {
  const routes = (agentId: string) => [
    { method: 'POST', path: `/agents/${agentId}/dev/send`, json: { message: 'hi' } },
    { method: 'GET', path: `/agents/${agentId}/messages/stream` },
    { method: 'GET', path: `/agents/${agentId}/messages/history` },
    { method: 'POST', path: `/agents/${agentId}/dev/interrupt` },
  ];
  const call = (route: ReturnType<typeof routes>[number], token?: string) =>
    server.api(route.path, { method: route.method, token, json: route.json });

  it('needs the workspace key or the owner login of the agent’s workspace', async () => {
    const { token: session } = await sessionToken(server);
    const cases: [string | undefined, number, string][] = [
      [undefined, 401, 'invalid Bearer token'],
      ['sk_nope', 401, 'invalid Bearer token'],
      [session, 401, 'workspace API key required'],
      ['pk_alice', 401, 'workspace API key required'],
      ['sk_acme_2', 403, 'API key revoked'],
      ['sk_globex_1', 404, 'agent not found'],
      ['lt_globex_owner', 404, 'agent not found'],
    ];
    for (const route of routes('agent_echo')) {
      for (const [token, status, detail] of cases) {
        const res = await call(route, token);
        assert.equal(res.status, status, `${route.method} ${route.path} with ${token}`);
        assert.deepEqual(res.body, { detail });
      }
    }
  });

  it('answers 404 for an unknown agent', async () => {
    for (const route of routes('agent_nope')) {
      const res = await call(route, 'sk_acme_1');
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { detail: 'agent not found' });
    }
  });
});
