import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LIMITS } from '../../server/services/limits.js';
import { beginTurn } from '../../server/turns/begin-turn.js';
import type { ChatStreamRecord } from '../../src/protocol/record-types.js';
import { kinds, readTurn, resultOf, send, sendAndRead, sessionToken, streamUrl } from '../helpers/conversation.js';
import { startModelServer } from '../helpers/model-server.mjs';
import { FIXTURE, startTestServer, type TestServer } from '../helpers/server.js';
import { openSse } from '../helpers/sse.js';

// One service for the file; each test talks in conversations (or as users) of its own.
let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

/** A send whose body is written as raw JSON text (so it can be nested deeper than a test could stringify). */
const sendText = (token: string, body: string) =>
  fetch(`${server.url}/api/v2/conversations/send`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body,
  }).then(async (res) => ({ status: res.status, body: await res.json() }));

/** `{"a":{"a":…1…}}`, `depth` objects deep. */
const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

const messagesOf = async (token: string, conversationId: string): Promise<ChatStreamRecord[]> => {
  const res = await server.api(`/conversations/${conversationId}/messages`, { token });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.entries;
};

describe('JSON bounds: nothing too deep or too large is stored', () => {
  it('refuses a body nested past 32 levels with 400; the conversation, its readers and history go on', async () => {
    const { token } = await sessionToken(server);
    const { sent } = await sendAndRead(server, token, { message: 'first', targetAgentIds: ['agent_echo'] });
    const conversationId = sent.conversationId;
    const before = await messagesOf(token, conversationId);
    const reader = await openSse(streamUrl(server, conversationId), { token });
    try {
      // 4,100 levels wedged a conversation for good: stored, then failing to serialize after the commit.
      for (const depth of [LIMITS.jsonDepth, 4_100, 100_000]) {
        const refused = await sendText(
          token,
          `{"message":"deep","conversationId":"${conversationId}","metadata":${nested(depth)}}`,
        );
        assert.deepEqual(refused, { status: 400, body: { detail: 'request body nests deeper than 32 levels' } });
      }
      const inParts = await sendText(
        token,
        `{"message":"deep","conversationId":"${conversationId}","parts":${'['.repeat(40)}${']'.repeat(40)}}`,
      );
      assert.equal(inParts.status, 400);
      // One level less is a body like any other.
      const shallow = `{"message":"ok","conversationId":"${conversationId}","metadata":${nested(LIMITS.jsonDepth - 1)}}`;
      const accepted = await sendText(token, shallow);
      assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
      const records = await reader.untilResult();
      assert.deepEqual(
        kinds(records).filter((k) => k === 'user' || k === 'result'),
        ['user', 'result'],
      );
      assert.equal(records[0]!.id, accepted.body.userEventId);
    } finally {
      reader.close();
    }
    const after = await messagesOf(token, conversationId);
    assert.equal(
      after.filter((r) => r.raw.type === 'user').length,
      before.filter((r) => r.raw.type === 'user').length + 1,
    );
    const history = await server.api(`/conversations/${conversationId}/history`, { token });
    assert.equal(history.status, 200);
    const interrupt = await server.api(`/conversations/${conversationId}/interrupt`, { method: 'POST', token });
    assert.deepEqual(interrupt.body, { interrupted: false, reason: 'no reply is running' });
  });

  it('refuses a deep body for a new conversation without creating one', async () => {
    const { token } = await sessionToken(server);
    const first = await send(server, token, { message: 'mine', targetAgentIds: ['agent_echo'], newConversation: true });
    const refused = await sendText(
      token,
      `{"message":"deep","newConversation":true,"targetAgentIds":["agent_echo"],"metadata":${nested(4_100)}}`,
    );
    assert.equal(refused.status, 400);
    const owned = (await server.ctx.db.get(
      'SELECT COUNT(*) AS n FROM conversations WHERE owner_id = (SELECT owner_id FROM conversations WHERE id = ?)',
      first.conversationId,
    )) as { n: number };
    assert.equal(owned.n, 1);
  });

  it('bounds every open-ended field of a message, with a 400 naming it', async () => {
    const { token } = await sessionToken(server);
    const target = { targetAgentIds: ['agent_echo'], newConversation: true };
    const refusals: [unknown, string][] = [
      [{ message: 'x'.repeat(LIMITS.messageBytes + 1) }, 'body/message must be at most 64 KB'],
      // 16,385 four-byte characters: under the limit in characters, over it in bytes.
      [{ message: '😀'.repeat(LIMITS.messageBytes / 4 + 1) }, 'body/message must be at most 64 KB'],
      [
        { message: 'wide', metadata: Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i])) },
        'body/metadata must be at most 32 KB as JSON',
      ],
      [
        { message: 'p', parts: [{ type: 'text', text: 'x'.repeat(LIMITS.partBytes) }] },
        'body/parts/0 must be at most 8 KB as JSON',
      ],
      [
        { message: 'm', mcpTokens: { a: 'x'.repeat(LIMITS.mcpTokenBytes + 1) } },
        'body/mcpTokens/a must be at most 8 KB',
      ],
      [
        { message: 'm', mcpTokens: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`t${i}`, 'v'])) },
        'body/mcpTokens must hold at most 50 tokens',
      ],
    ];
    for (const [fields, detail] of refusals) {
      const res = await server.api('/conversations/send', {
        method: 'POST',
        token,
        json: { ...target, ...(fields as object) },
      });
      assert.deepEqual([res.status, res.body], [400, { detail }]);
    }
    const largest = await server.api('/conversations/send', {
      method: 'POST',
      token,
      json: { ...target, message: '😀'.repeat(LIMITS.messageBytes / 4) },
    });
    assert.equal(largest.status, 200);
    const training = await server.api('/agents/agent_echo/dev/send', {
      method: 'POST',
      token: 'sk_acme_1',
      json: { message: 'x'.repeat(LIMITS.messageBytes + 1) },
    });
    assert.deepEqual([training.status, training.body], [400, { detail: 'body/message must be at most 64 KB' }]);
  });

  it('stores nothing of a message that cannot be serialized: it fails before the transaction', async () => {
    const conversations = async () =>
      ((await server.ctx.db.get('SELECT COUNT(*) AS n FROM conversations')) as { n: number }).n;
    const turns = async () => ((await server.ctx.db.get('SELECT COUNT(*) AS n FROM turns')) as { n: number }).n;
    const [beforeConversations, beforeTurns] = [await conversations(), await turns()];
    let created = false;
    const target = async () => {
      created = true;
      throw new Error('the conversation is resolved inside the transaction, after the message is serialized');
    };
    const unserializable = { text: 'x', metadata: { big: 1n }, baseUrl: server.url };
    await assert.rejects(beginTurn(server.ctx, target, unserializable), /BigInt/);
    assert.equal(created, false);
    assert.deepEqual([await conversations(), await turns()], [beforeConversations, beforeTurns]);
  });
});

describe('what one conversation can hold', () => {
  it('refuses a send to a conversation past 16 MB with 409, and messages answers it in pieces', async () => {
    const { token } = await sessionToken(server);
    const sent = await send(server, token, {
      message: 'fill me',
      targetAgentIds: ['agent_echo'],
      newConversation: true,
    });
    await readTurn(server, token, sent.conversationId, sent.userEventId!);
    // Filled through the one record path: 16 agent messages of 1 MB (a runtime's, since a user's is 64 KB at most).
    const text = 'y'.repeat(1024 * 1024);
    for (let i = 0; i < 16; i++) {
      await server.ctx.records.append(sent.conversationId, {
        sender: 'agent',
        event: 'message',
        agentId: 'agent_echo',
        raw: {
          type: 'assistant',
          agentId: 'agent_echo',
          message: { id: `m_fill${i}`, role: 'assistant', content: [{ type: 'text', text }] },
        },
      });
    }
    const refused = await server.api('/conversations/send', {
      method: 'POST',
      token,
      json: { message: 'one more', conversationId: sent.conversationId },
    });
    assert.deepEqual(
      [refused.status, refused.body],
      [409, { detail: 'this conversation is full (16 MB): start a new conversation' }],
    );
    const res = await fetch(`${server.url}/api/v2/conversations/${sent.conversationId}/messages`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(res.status, 200);
    // Written as it is read: no length known up front.
    assert.equal(res.headers.get('content-length'), null);
    assert.equal(res.headers.get('transfer-encoding'), 'chunked');
    const { entries } = (await res.json()) as { entries: ChatStreamRecord[] };
    assert.equal(entries.filter((e) => e.raw.type === 'assistant').length, 17);
    const pages = await server.api(`/conversations/${sent.conversationId}/history?maxEntries=500&turns=100`, { token });
    assert.deepEqual(entries, pages.body.entries);
    // A new conversation is fine.
    const fresh = await server.api('/conversations/send', {
      method: 'POST',
      token,
      json: { message: 'again', targetAgentIds: ['agent_echo'], newConversation: true },
    });
    assert.equal(fresh.status, 200);
  });
});

describe('what one turn can store', () => {
  it('stops a reply that grows past 4 MB with an error result, and the conversation goes on', async () => {
    const model = await startModelServer();
    process.env.SVC_TEST_LIMITS_KEY = 'sk-test-limits';
    const [acme, ...others] = FIXTURE.workspaces!;
    const agent = { id: 'agent_long', name: 'Long', runtime: 'model', model: 'scripted-1', base_url: model.url };
    const own = await startTestServer({
      fixture: {
        ...FIXTURE,
        workspaces: [{ ...acme!, agents: [{ ...agent, api_key_env: 'SVC_TEST_LIMITS_KEY' }] }, ...others],
      },
    });
    try {
      // A model that answers with 6 MB of text, in pieces of 64 KB.
      model.script({ text: Array.from({ length: 96 }, () => 'z'.repeat(64 * 1024)) }, { text: 'short' });
      const { token } = await sessionToken(own);
      const { sent, records } = await sendAndRead(own, token, { message: 'go on', targetAgentIds: ['agent_long'] });
      const result = resultOf(records);
      assert.deepEqual([result.subtype, result.error], ['error', 'the reply grew past 4 MB and was stopped']);
      const stored = (await own.ctx.db.get(
        'SELECT SUM(length(raw)) AS bytes FROM records WHERE turn_id = ?',
        sent.results[0]!.streamId,
      )) as { bytes: number };
      // The deltas up to the bound, and the reply so far kept as its assistant record.
      assert.ok(stored.bytes < 2 * LIMITS.turnBytes + 100_000, `${stored.bytes} bytes`);
      const next = await sendAndRead(own, token, { message: 'again', conversationId: sent.conversationId });
      assert.equal(resultOf(next.records).subtype, 'success');
    } finally {
      await own.close();
      await model.close();
      delete process.env.SVC_TEST_LIMITS_KEY;
    }
  });
});

describe('strings no engine stores as written (a NUL, an unpaired surrogate)', () => {
  const DETAIL = 'request body holds a NUL character or an unpaired surrogate';

  it('are refused with 400 in any field, key or depth, and two refs that would merge stay two members', async () => {
    const provision = (ref: string) =>
      server.api('/workspaces/acme/members', { method: 'POST', token: 'sk_acme_1', json: { sp_user_ref: ref } });
    for (const ref of ['ref\u0000a', 'ref\ud800', 'ref\udc00a', 'ref\udfff\ud800']) {
      const res = await provision(ref);
      assert.deepEqual([res.status, res.body], [400, { detail: DETAIL }], JSON.stringify(ref));
    }
    // What PostgreSQL would have made of both: U+FFFD. It is an ordinary character, and a pair is fine too.
    for (const ref of ['ref\ufffd', 'ref\ud83d\ude00']) assert.equal((await provision(ref)).status, 200, ref);
    const { members } = (await server.api('/workspaces/acme/members', { token: 'sk_acme_1' })).body;
    assert.equal(members.filter((m: { sp_user_ref: string }) => m.sp_user_ref.startsWith('ref')).length, 2);

    const { token } = await sessionToken(server);
    for (const json of [
      { message: 'hi\u0000', targetAgentIds: ['agent_echo'] },
      { message: 'hi', targetAgentIds: ['agent_echo'], metadata: { deep: [{ 'k\ud800': 1 }] } },
    ]) {
      const res = await server.api('/conversations/send', { method: 'POST', token, json });
      assert.deepEqual([res.status, res.body], [400, { detail: DETAIL }]);
    }
  });
});
