import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { authorizedFetch, TokenSource } from '../../src/chat/token-source.js';
import { adminClient } from '../helpers/client.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { uniqueRef } from '../helpers/workspace.js';

const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();

describe('TokenSource', () => {
  it('keeps a token until shortly before it expires, then renews it', async (t) => {
    // The clock moves only when the test moves it.
    t.mock.timers.enable({ apis: ['Date'], now: Date.parse('2026-01-01T00:00:00Z') });
    let calls = 0;
    const source = new TokenSource(async () => ({ token: `t${++calls}`, expires_at: inMs(400) }));
    assert.equal(await source.token(), 't1');
    t.mock.timers.tick(290);
    assert.equal(await source.token(), 't1', 'a fresh token is reused');
    t.mock.timers.tick(30);
    assert.equal(await source.token(), 't2', 'renewed in the last quarter of its life');
    assert.equal(calls, 2);
  });

  it('asks the provider once however many callers need a token at the same time', async () => {
    let calls = 0;
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const source = new TokenSource(async () => {
      calls++;
      await answered;
      return 'shared';
    });
    const asked = Promise.all(Array.from({ length: 10 }, () => source.token()));
    answer();
    const tokens = await asked;
    assert.deepEqual(new Set(tokens), new Set(['shared']));
    assert.equal(calls, 1);
  });

  it('says clearly when the provider returns no token', async () => {
    const source = new TokenSource(async () => ({ token: '' }));
    await assert.rejects(source.token(), /returned no token/);
  });
});

describe('authorizedFetch against the service', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('renews the token on a 401 and repeats the request once', async () => {
    const ref = uniqueRef('visitor');
    const good = await adminClient(server).workspace('acme').startVisitorSession({ sp_user_ref: ref });
    const handed: string[] = [];
    const source = new TokenSource(async () => {
      const token = handed.length === 0 ? 'st_expired_or_revoked' : good.token;
      handed.push(token);
      return token;
    });
    const fetchWithToken = authorizedFetch(source);
    const res = await fetchWithToken(`${server.url}/api/v2/conversations/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'hello', targetAgentIds: ['agent_echo'] }),
    });
    assert.equal(res.status, 200);
    assert.deepEqual(handed, ['st_expired_or_revoked', good.token]);
    const sent = (await res.json()) as { conversationId: string };
    assert.match(sent.conversationId, /^c_/);
  });
});
