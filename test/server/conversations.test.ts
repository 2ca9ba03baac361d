import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { after, before, describe, it } from 'node:test';
import {
  assistants,
  deltaText,
  kinds,
  readTurn,
  replyText,
  resultOf,
  send,
  sendAndRead,
  sessionToken,
  streamUrl,
} from '../helpers/conversation.js';
import { MCP_TOKENS } from '../helpers/secrets.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { openSse } from '../helpers/sse.js';

// One service for the whole file: closing a service that served streams takes a few seconds (the
// fetch client leaves a connection behind), so each test uses users of its own instead.
let server: TestServer;
const logLines: string[] = [];
const logged = new EventEmitter();
before(async () => {
  server = await startTestServer({
    log: {
      level: 'info',
      destination: {
        write(line) {
          logLines.push(line);
          logged.emit('line', line);
        },
      },
    },
  });
});

/** Resolves with the first line logged from now on that matches `pattern`. */
const nextLogLine = (pattern: RegExp) =>
  new Promise<string>((resolve) => {
    const heard = (line: string) => {
      if (!pattern.test(line)) return;
      logged.off('line', heard);
      resolve(line);
    };
    logged.on('line', heard);
  });
after(() => server.close());

describe('send', () => {
  it('answers at once with the stored user record, then the echo reply streams from userEventId', async () => {
    const sent = await send(server, 'pk_alice', { message: 'hello there', targetAgentIds: ['agent_echo'] });
    assert.match(sent.conversationId, /^c_/);
    assert.match(sent.userEventId!, /^e\d{15}$/);
    assert.equal(sent.userMessage?.id, sent.userEventId);
    assert.equal(sent.userMessage?.sender, 'user');
    assert.deepEqual(sent.userMessage?.raw, {
      type: 'user',
      message: { role: 'user', content: [{ type: 'text', text: 'hello there' }] },
    });
    assert.equal(sent.results.length, 1);
    assert.equal(sent.results[0]!.agentId, 'agent_echo');

    const records = await readTurn(server, 'pk_alice', sent.conversationId, sent.userEventId!);
    assert.deepEqual(kinds(records), [
      'agent_status',
      'agent_status',
      'assistant_delta',
      'assistant_delta',
      'assistant_delta',
      'assistant',
      'agent_status',
      'result',
    ]);
    assert.deepEqual(
      records.filter((r) => r.raw.type === 'agent_status').map((r) => (r.raw as { status: string }).status),
      ['thinking', 'typing', 'idle'],
    );
    assert.equal(deltaText(records), 'Echo: hello there');
    const [reply] = assistants(records);
    assert.equal(reply!.message.id, sent.results[0]!.msgId);
    assert.deepEqual(reply!.message.content, [{ type: 'text', text: 'Echo: hello there' }]);
    const result = records.at(-1)!;
    assert.equal(result.sender, 'system');
    assert.deepEqual(
      { ...resultOf(records), duration_ms: 0 },
      {
        type: 'result',
        subtype: 'success',
        is_error: false,
        duration_ms: 0,
        agentIds: ['agent_echo'],
      },
    );
    for (const [i, record] of records.entries()) {
      assert.equal(record.seq, sent.userMessage!.seq + i + 1);
      assert.equal(record.sessionId, sent.conversationId);
      assert.equal(record.conversationId, sent.conversationId);
      assert.equal(record.turnId, sent.results[0]!.streamId);
      if (record.sender === 'agent') assert.equal(record.agentId, 'agent_echo');
      assert.ok(record.id > (records[i - 1]?.id ?? sent.userEventId!));
    }
  });

  it('stores what a user message carries, but never the mcpTokens', async () => {
    const secret = MCP_TOKENS.conversations;
    const sent = await send(server, 'pk_alice', {
      message: 'with extras',
      newConversation: true,
      targetAgentIds: ['agent_echo'],
      parts: [{ type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }],
      metadata: { source: 'test' },
      senderName: 'Alice',
      senderAvatar: 'https://example.com/alice.png',
      mcpTokens: { github: secret },
    });
    assert.deepEqual(sent.userMessage?.raw, {
      type: 'user',
      message: { role: 'user', content: [{ type: 'text', text: 'with extras' }] },
      parts: [{ type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }],
      metadata: { source: 'test' },
      senderName: 'Alice',
      senderAvatar: 'https://example.com/alice.png',
    });
    await readTurn(server, 'pk_alice', sent.conversationId, sent.userEventId!);
    const stored = (await server.ctx.db.all('SELECT raw FROM records')) as { raw: string }[];
    assert.ok(!stored.some((row) => row.raw.includes(secret)));
    assert.ok(!logLines.some((line) => line.includes(secret)));
  });

  it('accepts an empty message only with parts or as a card answer', async () => {
    const empty = await server.api('/conversations/send', {
      method: 'POST',
      token: 'pk_alice',
      json: { message: '', targetAgentIds: ['agent_echo'] },
    });
    assert.equal(empty.status, 400);
    assert.equal(empty.body.detail, 'body/message String must contain at least 1 character(s)');
    const missing = await server.api('/conversations/send', { method: 'POST', token: 'pk_alice', json: {} });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.detail, 'body/message Required');
    const notString = await server.api('/conversations/send', {
      method: 'POST',
      token: 'pk_alice',
      json: { message: 5 },
    });
    assert.equal(notString.body.detail, 'body/message Expected string, received number');

    const withPart = await sendAndRead(server, 'pk_alice', {
      message: '',
      targetAgentIds: ['agent_echo'],
      parts: [{ type: 'file', file: { filename: 'a.pdf', file_url: 'https://example.com/a.pdf' } }],
    });
    assert.equal(resultOf(withPart.records).subtype, 'success');
    const cardAnswer = await sendAndRead(server, 'pk_alice', {
      message: '',
      targetAgentIds: ['agent_echo'],
      toolAction: true,
      metadata: { infoCollect: { action: 'skip' } },
    });
    assert.deepEqual(cardAnswer.sent.userMessage!.raw, {
      type: 'user',
      message: { role: 'user', content: [{ type: 'text', text: '' }] },
      metadata: { infoCollect: { action: 'skip' } },
      toolAction: true,
    });
  });

  it('refuses unknown agents and conversations with 404', async () => {
    const agent = await server.api('/conversations/send', {
      method: 'POST',
      token: 'pk_alice',
      json: { message: 'hi', targetAgentIds: ['agent_nope'] },
    });
    assert.equal(agent.status, 404);
    assert.equal(agent.body.detail, 'agent not found');
    const conversation = await server.api('/conversations/send', {
      method: 'POST',
      token: 'pk_alice',
      json: { message: 'hi', conversationId: 'c_unknown' },
    });
    assert.equal(conversation.status, 404);
    assert.equal(conversation.body.detail, 'conversation not found');
  });

  it('needs targetAgentIds for a first conversation with a personal key', async () => {
    const res = await server.api('/conversations/send', { method: 'POST', token: 'pk_bob', json: { message: 'hi' } });
    assert.equal(res.status, 400);
    assert.equal(res.body.detail, 'body/targetAgentIds Required');
  });

  it('accepts only session tokens and personal keys', async () => {
    const none = await server.api('/conversations/send', { method: 'POST', json: { message: 'hi' } });
    assert.equal(none.status, 401);
    assert.equal(none.body.detail, 'invalid Bearer token');
    for (const token of ['sk_acme_1', 'lt_acme_owner']) {
      const res = await server.api('/conversations/send', { method: 'POST', token, json: { message: 'hi' } });
      assert.equal(res.status, 401);
      assert.equal(res.body.detail, 'session token or personal API key required');
    }
  });
});

describe('conversation continuation', () => {
  it('continues the most recent conversation, a named one, or starts a new one on request', async () => {
    const first = await sendAndRead(server, 'pk_alice', { message: 'one', targetAgentIds: ['agent_echo'] });
    const again = await sendAndRead(server, 'pk_alice', { message: 'two', targetAgentIds: ['agent_echo'] });
    assert.equal(again.sent.conversationId, first.sent.conversationId);
    const implicit = await sendAndRead(server, 'pk_alice', { message: 'three' });
    assert.equal(implicit.sent.conversationId, first.sent.conversationId);

    const fresh = await sendAndRead(server, 'pk_alice', {
      message: 'new',
      targetAgentIds: ['agent_echo'],
      newConversation: true,
    });
    assert.notEqual(fresh.sent.conversationId, first.sent.conversationId);
    const latest = await sendAndRead(server, 'pk_alice', { message: 'latest' });
    assert.equal(latest.sent.conversationId, fresh.sent.conversationId);

    const named = await sendAndRead(server, 'pk_alice', { message: 'back', conversationId: first.sent.conversationId });
    assert.equal(named.sent.conversationId, first.sent.conversationId);
    assert.equal(named.sent.userMessage?.seq, implicit.records.at(-1)!.seq + 1, 'its records continue in order');
  });

  it('keeps a conversation with the agents it was created with', async () => {
    const { token } = await sessionToken(server);
    const echo = await sendAndRead(server, token, { message: 'hi', targetAgentIds: ['agent_echo'] });
    const other = await sendAndRead(server, token, { message: 'hi', targetAgentIds: ['agent_demo'] });
    assert.notEqual(other.sent.conversationId, echo.sent.conversationId, 'other agents: a new conversation');
    const named = await sendAndRead(server, token, {
      message: 'still echo',
      conversationId: echo.sent.conversationId,
      targetAgentIds: ['agent_demo'],
    });
    assert.deepEqual(
      named.sent.results.map((r) => r.agentId),
      ['agent_echo'],
    );
    assert.equal(replyText(named.records), 'Echo: still echo');
    const back = await sendAndRead(server, token, { message: 'again', targetAgentIds: ['agent_echo'] });
    assert.equal(back.sent.conversationId, echo.sent.conversationId);
  });

  it('gives a session token the agents of its workspace only, defaulting to the first one', async () => {
    const { token } = await sessionToken(server);
    const implicit = await sendAndRead(server, token, { message: 'who answers?' });
    assert.deepEqual(
      implicit.sent.results.map((r) => r.agentId),
      ['agent_echo'],
    );
    const foreign = await server.api('/conversations/send', {
      method: 'POST',
      token,
      json: { message: 'hi', targetAgentIds: ['agent_globex'] },
    });
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.detail, 'agent not found');
    const personal = await sendAndRead(server, 'pk_alice', {
      message: 'any agent',
      targetAgentIds: ['agent_globex'],
    });
    assert.equal(replyText(personal.records), 'Echo: any agent');
  });
});

describe('ownership and concurrency', () => {
  it("answers 404 to anyone else on every route of a user's conversation", async () => {
    const { sent } = await sendAndRead(server, 'pk_alice', { message: 'mine', targetAgentIds: ['agent_echo'] });
    const id = sent.conversationId;
    const { token: session } = await sessionToken(server);
    for (const token of ['pk_bob', session]) {
      const attempts = [
        server.api('/conversations/send', { method: 'POST', token, json: { message: 'x', conversationId: id } }),
        server.api(`/conversations/${id}/stream`, { token }),
        server.api(`/conversations/${id}/messages`, { token }),
        server.api(`/conversations/${id}/history`, { token }),
        server.api(`/conversations/${id}/interrupt`, { method: 'POST', token }),
      ];
      for (const res of await Promise.all(attempts)) {
        assert.equal(res.status, 404);
        assert.deepEqual(res.body, { detail: 'conversation not found' });
      }
    }
  });

  it('refuses a second send while a reply runs, and any send once it ended', async () => {
    const sent = await send(server, 'pk_alice', {
      message: '/slow 5',
      targetAgentIds: ['agent_demo'],
      newConversation: true,
    });
    const parallel = await Promise.all(
      Array.from({ length: 5 }, () =>
        server.api('/conversations/send', {
          method: 'POST',
          token: 'pk_alice',
          json: { message: 'me too', conversationId: sent.conversationId },
        }),
      ),
    );
    for (const res of parallel) {
      assert.equal(res.status, 409);
      assert.equal(res.body.detail, 'a reply is still running in this conversation');
    }
    await server.api(`/conversations/${sent.conversationId}/interrupt`, { method: 'POST', token: 'pk_alice' });
    const next = await send(server, 'pk_alice', { message: '/help', conversationId: sent.conversationId });
    assert.equal(next.conversationId, sent.conversationId);
    assert.equal(
      resultOf(await readTurn(server, 'pk_alice', next.conversationId, next.userEventId!)).subtype,
      'success',
    );
  });
});

describe('interrupt', () => {
  it('stops a slow reply at once, keeps the text streamed so far, and a new message works at once', async () => {
    // A minute of words, one every 100 ms: stopped at once, it ends long before the last of them.
    const sent = await send(server, 'pk_alice', {
      message: '/slow 60',
      targetAgentIds: ['agent_demo'],
      newConversation: true,
    });
    const reader = await openSse(streamUrl(server, sent.conversationId, sent.userEventId), { token: 'pk_alice' });
    try {
      await reader.waitFor((records) => records.filter((r) => r.raw.type === 'assistant_delta').length >= 3);
      const res = await server.api(`/conversations/${sent.conversationId}/interrupt`, {
        method: 'POST',
        token: 'pk_alice',
      });
      assert.deepEqual(res.body, { interrupted: true, turnId: sent.results[0]!.streamId });
      const records = await reader.untilResult();
      const result = resultOf(records);
      assert.equal(result.subtype, 'interrupted');
      assert.equal(result.is_error, false);
      assert.equal(kinds(records).at(-2), 'agent_status', 'the agent goes idle before the result');
      const [partial] = assistants(records);
      assert.ok(partial, 'an assistant record holds the text streamed so far');
      assert.equal(partial.message.id, sent.results[0]!.msgId);
      assert.deepEqual(partial.message.content, [{ type: 'text', text: deltaText(records) }]);
      assert.ok(deltaText(records).split(' ').length < 300, 'the reply stopped long before its 600 words');

      const next = await send(server, 'pk_alice', { message: '/help', conversationId: sent.conversationId });
      await reader.waitFor((all) => all.filter((r) => r.raw.type === 'result').length === 2);
      const afterNext = reader.records.slice(records.length);
      assert.equal(afterNext[0]!.id, next.userEventId, 'nothing of the stopped turn arrives later');
      assert.equal(resultOf(afterNext).subtype, 'success');
    } finally {
      reader.close();
    }
  });

  it('stores the end of a reply once the database takes it again, so the conversation goes on', async () => {
    const sent = await send(server, 'pk_alice', {
      message: '/slow 60',
      targetAgentIds: ['agent_demo'],
      newConversation: true,
    });
    const reader = await openSse(streamUrl(server, sent.conversationId, sent.userEventId), { token: 'pk_alice' });
    const { db } = server.ctx;
    // The database refuses to mark a turn ended (a failover, a full disk) until the trigger goes.
    const refuse =
      db.engine === 'sqlite'
        ? ["CREATE TRIGGER refuse_end BEFORE UPDATE ON turns BEGIN SELECT RAISE(ABORT, 'refused'); END"]
        : [
            "CREATE FUNCTION refuse_end() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$",
            'CREATE TRIGGER refuse_end BEFORE UPDATE ON turns FOR EACH ROW EXECUTE FUNCTION refuse_end()',
          ];
    const allow =
      db.engine === 'sqlite'
        ? ['DROP TRIGGER refuse_end']
        : ['DROP TRIGGER refuse_end ON turns', 'DROP FUNCTION refuse_end()'];
    try {
      await reader.waitFor((records) => records.some((r) => r.raw.type === 'assistant_delta'));
      for (const sql of refuse) await db.run(sql);
      const refused = nextLogLine(/could not be ended: .*refused/);
      const interrupting = server.api(`/conversations/${sent.conversationId}/interrupt`, {
        method: 'POST',
        token: 'pk_alice',
      });
      await refused;
      for (const sql of allow) await db.run(sql);
      const records = await reader.untilResult();
      assert.equal(resultOf(records).subtype, 'interrupted');
      assert.deepEqual((await interrupting).body, { interrupted: true, turnId: sent.results[0]!.streamId });
      const next = await server.api('/conversations/send', {
        method: 'POST',
        token: 'pk_alice',
        json: { message: 'and now?', conversationId: sent.conversationId },
      });
      assert.equal(next.status, 200, 'the conversation takes the next message');
    } finally {
      reader.close();
    }
  });

  it('says so when nothing runs', async () => {
    const { sent } = await sendAndRead(server, 'pk_alice', { message: 'hi', targetAgentIds: ['agent_echo'] });
    const res = await server.api(`/conversations/${sent.conversationId}/interrupt`, {
      method: 'POST',
      token: 'pk_alice',
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { interrupted: false, reason: 'no reply is running' });
  });
});

describe('multi-agent turns', () => {
  it('runs each agent in turn, each record carrying its agent, then one result', async () => {
    const { sent, records } = await sendAndRead(server, 'pk_alice', {
      message: '/think',
      targetAgentIds: ['agent_echo', 'agent_demo'],
    });
    assert.deepEqual(
      sent.results.map((r) => r.agentId),
      ['agent_echo', 'agent_demo'],
    );
    assert.equal(new Set(sent.results.map((r) => r.streamId)).size, 1);
    const agentRecords = records.filter((r) => r.sender === 'agent');
    const order = agentRecords.map((r) => r.agentId);
    const firstDemo = order.indexOf('agent_demo');
    assert.ok(firstDemo > 0);
    assert.ok(order.slice(0, firstDemo).every((a) => a === 'agent_echo'));
    assert.ok(order.slice(firstDemo).every((a) => a === 'agent_demo'));
    for (const record of agentRecords) assert.equal((record.raw as { agentId: string }).agentId, record.agentId);

    const replies = assistants(records);
    assert.equal(replies.length, 2);
    for (const entry of sent.results) {
      assert.equal(replies.find((r) => r.agentId === entry.agentId)?.message.id, entry.msgId);
    }
    assert.equal(records.filter((r) => r.raw.type === 'result').length, 1);
    const result = records.at(-1)!;
    assert.equal(result.sender, 'system');
    assert.deepEqual(resultOf(records).agentIds, ['agent_echo', 'agent_demo']);
  });
});
