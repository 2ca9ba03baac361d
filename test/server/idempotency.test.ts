import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { LIMITS } from '../../server/services/limits.js';
import { clock } from '../../server/store/clock.js';
import { readTurn, sessionToken } from '../helpers/conversation.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

const sendWithKey = (token: string, key: string, json: unknown) =>
  server.api('/conversations/send', { method: 'POST', token, json, headers: { 'idempotency-key': key } });

const userRecords = async (token: string, conversationId: string) => {
  const { body } = await server.api(`/conversations/${conversationId}/messages`, { token });
  return body.entries.filter((e: { raw: { type: string } }) => e.raw.type === 'user');
};

describe('sending exactly once: Idempotency-Key (docs/protocol.md "Sending exactly once")', () => {
  it('answers a repeated key with the first result and stores the message and its reply once', async () => {
    const { token } = await sessionToken(server);
    const key = randomUUID();
    const body = { message: 'only once', targetAgentIds: ['agent_echo'], newConversation: true };
    const first = await sendWithKey(token, key, body);
    assert.equal(first.status, 200);
    await readTurn(server, token, first.body.conversationId, first.body.userEventId);
    // A retry after the reply ended, and one sent with renewed tool credentials: the same answer, nothing new.
    const repeat = await sendWithKey(token, key, body);
    const renewed = await sendWithKey(token, key, { ...body, mcpTokens: { github: 'renewed' } });
    assert.deepEqual([repeat.status, repeat.body], [200, first.body]);
    assert.deepEqual([renewed.status, renewed.body], [200, first.body]);
    assert.equal((await userRecords(token, first.body.conversationId)).length, 1);
    const turns = (await server.ctx.db.get(
      'SELECT COUNT(*) AS n FROM turns WHERE conversation_id = ?',
      first.body.conversationId,
    )) as { n: number };
    assert.equal(turns.n, 1);
    // A new conversation was asked for once: the repeats did not make more.
    const owned = (await server.ctx.db.get(
      'SELECT COUNT(*) AS n FROM conversations WHERE owner_id = ?',
      await whoOwns(first.body.conversationId),
    )) as { n: number };
    assert.equal(owned.n, 1);
  });

  it('answers parallel repeats of one key with one result while the reply runs', async () => {
    const { token } = await sessionToken(server);
    const key = randomUUID();
    const body = { message: '/slow 1', targetAgentIds: ['agent_demo'], newConversation: true };
    const results = await Promise.all(Array.from({ length: 20 }, () => sendWithKey(token, key, body)));
    assert.ok(results.every((r) => r.status === 200));
    assert.equal(new Set(results.map((r) => r.body.userEventId)).size, 1);
    assert.equal((await userRecords(token, results[0]!.body.conversationId)).length, 1);
  });

  it('refuses a repeated key with another message (409) and keys another user’s sends apart', async () => {
    const alice = await sessionToken(server);
    const bob = await sessionToken(server);
    const key = randomUUID();
    const first = await sendWithKey(alice.token, key, { message: 'one', targetAgentIds: ['agent_echo'] });
    assert.equal(first.status, 200);
    await readTurn(server, alice.token, first.body.conversationId, first.body.userEventId);
    const other = await sendWithKey(alice.token, key, { message: 'two', targetAgentIds: ['agent_echo'] });
    assert.deepEqual(
      [other.status, other.body],
      [409, { detail: 'Idempotency-Key was already used with a different request' }],
    );
    const bobs = await sendWithKey(bob.token, key, { message: 'one', targetAgentIds: ['agent_echo'] });
    assert.equal(bobs.status, 200);
    assert.notEqual(bobs.body.conversationId, first.body.conversationId);
  });

  it('does not use up a key on a refused send, and forgets a key after 24 hours', async () => {
    const { token } = await sessionToken(server);
    const key = randomUUID();
    const started = await sendWithKey(token, randomUUID(), { message: '/slow 2', targetAgentIds: ['agent_demo'] });
    const busy = await sendWithKey(token, key, { message: 'wait', conversationId: started.body.conversationId });
    assert.equal(busy.status, 409);
    await server.api(`/conversations/${started.body.conversationId}/interrupt`, { method: 'POST', token });
    await readTurn(server, token, started.body.conversationId, started.body.userEventId);
    const now = await sendWithKey(token, key, { message: 'wait', conversationId: started.body.conversationId });
    assert.equal(now.status, 200);
    await readTurn(server, token, now.body.conversationId, now.body.userEventId);

    const realNow = clock.now;
    clock.now = () => realNow() + LIMITS.idempotencyMs + 1000;
    try {
      const later = await sendWithKey(token, key, { message: 'wait', conversationId: started.body.conversationId });
      assert.equal(later.status, 200);
      assert.notEqual(later.body.userEventId, now.body.userEventId);
    } finally {
      clock.now = realNow;
    }
  });

  it('takes a key of 1 to 200 visible ASCII characters', async () => {
    const { token } = await sessionToken(server);
    for (const key of ['x'.repeat(201), 'with space', 'é']) {
      const res = await fetch(`${server.url}/api/v2/conversations/send`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify({ message: 'k', targetAgentIds: ['agent_echo'] }),
      });
      assert.equal(res.status, 400, key);
      assert.deepEqual(await res.json(), {
        detail: 'headers/idempotency-key must be 1 to 200 visible ASCII characters',
      });
    }
  });

  it('makes training sends safe to repeat too', async () => {
    const key = randomUUID();
    const send = () =>
      server.api('/agents/agent_echo/dev/send', {
        method: 'POST',
        token: 'lt_acme_owner',
        json: { message: 'train once' },
        headers: { 'idempotency-key': key },
      });
    const first = await send();
    const again = await send();
    assert.deepEqual(again.body, first.body);
  });
});

async function whoOwns(conversationId: string): Promise<string> {
  const row = (await server.ctx.db.get('SELECT owner_id FROM conversations WHERE id = ?', conversationId)) as {
    owner_id: string;
  };
  return row.owner_id;
}
