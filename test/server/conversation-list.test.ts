import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ConversationSummary } from '../../src/protocol/conversation-types.js';
import { send, sendAndRead, sessionToken, streamUrl } from '../helpers/conversation.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { openSse } from '../helpers/sse.js';

/** The conversation list of our own (docs/protocol.md "Conversation list"), over HTTP, on either database. */
describe('conversation list: list with a cursor, rename, delete; owner-only', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  const list = (token: string, query = '') => server.api(`/conversations${query}`, { token });
  /** A new conversation with the echo agent for each message, in order, each read to its reply: their ids. */
  const startConversations = async (token: string, messages: string[]) => {
    const ids: string[] = [];
    for (const message of messages) {
      const { sent } = await sendAndRead(server, token, {
        message,
        targetAgentIds: ['agent_echo'],
        newConversation: true,
      });
      ids.push(sent.conversationId);
    }
    return ids;
  };

  /** Every conversation of the list, a page of `limit` at a time. */
  async function all(token: string, limit: number): Promise<{ pages: number; items: ConversationSummary[] }> {
    const items: ConversationSummary[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await list(token, `?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      items.push(...res.body.conversations);
      cursor = res.body.nextCursor;
      pages++;
    } while (cursor);
    return { pages, items };
  }

  it('lists the caller’s conversations newest first, titled by the first message, with the last message', async () => {
    const { token } = await sessionToken(server);
    const ids = await startConversations(token, ['First question\n  about   trains', 'Second', 'Third']);
    // The first conversation gains a message: it moves to the top, its title stays its first message.
    await sendAndRead(server, token, { message: 'and buses', conversationId: ids[0] });

    const res = await list(token);
    assert.equal(res.status, 200);
    assert.equal(res.body.nextCursor, null);
    const got: ConversationSummary[] = res.body.conversations;
    assert.deepEqual(
      got.map((c) => c.id),
      [ids[0], ids[2], ids[1]],
    );
    const [first] = got;
    assert.equal(first!.title, 'First question about trains');
    assert.deepEqual(first!.agentIds, ['agent_echo']);
    assert.deepEqual(first!.lastMessage, { role: 'agent', text: 'Echo: and buses', agentName: 'Echo' });
    assert.ok(Date.parse(first!.updatedAt) >= Date.parse(first!.createdAt));
    assert.ok(Date.parse(got[1]!.updatedAt) <= Date.parse(first!.updatedAt));
  });

  it('pages with a cursor: every conversation once, in order', async () => {
    const { token } = await sessionToken(server);
    // Each read to its reply before the next starts: the newest activity is the order expected (on PostgreSQL a
    // reply still running could land after the next conversation's message).
    const ids = await startConversations(token, ['n0', 'n1', 'n2', 'n3', 'n4', 'n5', 'n6']);
    const { pages, items } = await all(token, 3);
    assert.equal(pages, 3);
    assert.deepEqual(
      items.map((c) => c.id),
      ids.reverse(),
    );
    assert.equal((await list(token, '?cursor=nonsense')).body.detail, 'invalid cursor');
    assert.equal((await list(token, '?limit=0')).status, 400);
    assert.equal((await list(token, '?limit=101')).status, 400);
  });

  it('a preview keeps its line breaks (a list item stays one for the client to render), a title is one line', async () => {
    const { token } = await sessionToken(server);
    const { sent } = await sendAndRead(server, token, {
      message: 'Pack:\r\n\n-  a tent\n\n\n- a \u202Estove\t ',
      targetAgentIds: ['agent_echo'],
      newConversation: true,
    });
    const listed = (await list(token)).body.conversations as ConversationSummary[];
    const summary = listed.find((c) => c.id === sent.conversationId)!;
    assert.equal(summary.lastMessage!.text, 'Echo: Pack:\n- a tent\n- a stove');
    assert.equal(summary.title, 'Pack: - a tent - a stove');
  });

  it('a long first message is cut to 80 characters, the preview to 200; a card answer is no preview', async () => {
    const { token } = await sessionToken(server);
    const long = 'word '.repeat(100);
    const { sent } = await sendAndRead(server, token, {
      message: long,
      targetAgentIds: ['agent_echo'],
      newConversation: true,
    });
    const [summary] = (await list(token)).body.conversations as ConversationSummary[];
    assert.equal(summary!.id, sent.conversationId);
    assert.equal(summary!.title!.length, 80);
    assert.ok(summary!.title!.endsWith('…'));
    assert.equal(summary!.lastMessage!.text.length, 200);
    await sendAndRead(server, token, {
      message: '',
      conversationId: sent.conversationId,
      toolAction: true,
      metadata: { infoCollect: { action: 'skip' } },
    });
    const [again] = (await list(token)).body.conversations as ConversationSummary[];
    assert.equal(again!.lastMessage!.role, 'agent', 'the answer of a card is not what the list previews');
  });

  it('titles and previews conversations stored before migration 0004 when the list first shows them, and stores both', async () => {
    const { token } = await sessionToken(server);
    const ids = await startConversations(token, ['Old   question', 'Another old one']);
    await sendAndRead(server, token, { message: 'and a second one', conversationId: ids[0] });
    // As a conversation stored before migration 0004 is: neither a title nor a preview.
    const stored = () =>
      server.ctx.db.all<{ title: string | null; last_message: string | null }>(
        'SELECT title, last_message FROM conversations WHERE id IN (?, ?) ORDER BY created_at',
        ...ids,
      );
    for (const id of ids) {
      await server.ctx.db.run('UPDATE conversations SET title = NULL, last_message = NULL WHERE id = ?', id);
    }
    assert.deepEqual(await stored(), [
      { title: null, last_message: null },
      { title: null, last_message: null },
    ]);

    const [first, second] = (await list(token)).body.conversations as ConversationSummary[];
    assert.deepEqual(
      [first!.id, first!.title, first!.lastMessage],
      [ids[0], 'Old question', { role: 'agent', text: 'Echo: and a second one', agentName: 'Echo' }],
    );
    assert.deepEqual(
      [second!.title, second!.lastMessage],
      ['Another old one', { role: 'agent', text: 'Echo: Another old one', agentName: 'Echo' }],
    );
    // Stored as an append stores them: the next list reads them.
    assert.deepEqual(
      (await stored()).map((row) => [row.title, row.last_message && JSON.parse(row.last_message)]),
      [
        [first!.title, first!.lastMessage],
        [second!.title, second!.lastMessage],
      ],
    );
    assert.deepEqual((await list(token)).body.conversations, [first, second]);

    // Renaming one that has no preview yet answers with its preview.
    await server.ctx.db.run('UPDATE conversations SET last_message = NULL WHERE id = ?', ids[1]);
    const renamed = await server.api(`/conversations/${ids[1]}`, { method: 'PATCH', token, json: { title: 'Mine' } });
    assert.deepEqual([renamed.body.title, renamed.body.lastMessage], ['Mine', second!.lastMessage]);
  });

  it('renames a conversation; whitespace only or over 200 characters is refused', async () => {
    const { token } = await sessionToken(server);
    const { sent } = await sendAndRead(server, token, {
      message: 'hi',
      targetAgentIds: ['agent_echo'],
      newConversation: true,
    });
    const { conversationId } = sent;
    const rename = (title: unknown, who = token, id = conversationId) =>
      server.api(`/conversations/${id}`, { method: 'PATCH', token: who, json: { title } });
    const renamed = await rename('  Trip   to Hangzhou ');
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    assert.equal(renamed.body.title, 'Trip to Hangzhou');
    assert.equal(renamed.body.id, conversationId);
    assert.equal((await list(token)).body.conversations[0].title, 'Trip to Hangzhou');
    // A later message does not change a title that was given.
    await sendAndRead(server, token, { message: 'more', conversationId });
    assert.equal((await list(token)).body.conversations[0].title, 'Trip to Hangzhou');
    assert.deepEqual((await rename('   ')).body, { detail: 'body/title String must contain at least 1 character(s)' });
    assert.equal((await rename('x'.repeat(201))).status, 400);
    assert.deepEqual((await rename(undefined)).body, { detail: 'body/title Required' });
  });

  it('keeps titles and previews to what can be seen: no bidirectional controls, not only invisible characters', async () => {
    const { token } = await sessionToken(server);
    // A first message that would show the rest of its row backwards, and one that shows nothing at all.
    const spoofed = await sendAndRead(server, token, {
      message: 'invoice \u202Efdp.exe\u202C paid?',
      targetAgentIds: ['agent_echo'],
      newConversation: true,
    });
    const blank = await sendAndRead(server, token, {
      message: '\u200B\u2060\u200D \uFEFF\u3164',
      targetAgentIds: ['agent_echo'],
      newConversation: true,
    });
    const listed = (await list(token)).body.conversations as ConversationSummary[];
    const byId = (id: string) => listed.find((c) => c.id === id)!;
    assert.equal(byId(spoofed.sent.conversationId).title, 'invoice fdp.exe paid?');
    assert.equal(byId(spoofed.sent.conversationId).lastMessage!.text, 'Echo: invoice fdp.exe paid?');
    assert.equal(byId(blank.sent.conversationId).title, null, 'untitled rather than a title that shows nothing');

    const rename = (title: string) =>
      server.api(`/conversations/${spoofed.sent.conversationId}`, { method: 'PATCH', token, json: { title } });
    for (const title of ['\u200B\u200B\u200B', '\u2060 \u180E \uFE0F', '\u{E0041}\u{E0042}']) {
      assert.deepEqual((await rename(title)).body, { detail: 'body/title must hold a character that can be seen' });
    }
    assert.deepEqual((await rename('\u202E\u2066')).body, {
      detail: 'body/title String must contain at least 1 character(s)',
    });
    const renamed = await rename('Trip \u202Eto\u202C Hangzhou \u{1F468}\u200D\u{1F469}');
    assert.equal(renamed.body.title, 'Trip to Hangzhou \u{1F468}\u200D\u{1F469}', 'a joiner inside an emoji stays');
  });

  it('deletes a conversation: gone from the list and from every route; a reply running in it stops', async () => {
    const { token } = await sessionToken(server);
    const kept = await send(server, token, { message: 'keep', targetAgentIds: ['agent_echo'], newConversation: true });
    const { sent } = await sendAndRead(server, token, {
      message: 'bye',
      targetAgentIds: ['agent_echo'],
      newConversation: true,
    });
    const id = sent.conversationId;
    const del = (who = token) => server.api(`/conversations/${id}`, { method: 'DELETE', token: who });
    assert.equal((await del()).status, 204);
    assert.deepEqual(
      (await list(token)).body.conversations.map((c: ConversationSummary) => c.id),
      [kept.conversationId],
    );
    assert.deepEqual((await server.api(`/conversations/${id}/history`, { token })).body, {
      detail: 'conversation not found',
    });
    const again = await server.api('/conversations/send', {
      method: 'POST',
      token,
      json: { message: 'again', conversationId: id },
    });
    assert.deepEqual([again.status, again.body.detail], [404, 'conversation not found']);
    assert.equal((await del()).status, 404);

    // A reply that runs when its conversation is deleted stops, and the stream open on it ends.
    const slow = await send(server, token, {
      message: '/slow 60',
      targetAgentIds: ['agent_demo'],
      newConversation: true,
    });
    const reader = await openSse(streamUrl(server, slow.conversationId, slow.userEventId), { token });
    await reader.waitFor((records) => records.some((r) => r.raw.type === 'assistant_delta'));
    const running = await server.api(`/conversations/${slow.conversationId}`, { method: 'DELETE', token });
    assert.equal(running.status, 204);
    await reader.ended;
    await server.readersGone(slow.conversationId);
    await Promise.all(server.instances.map(({ ctx }) => ctx.turns.whenIdle()));
    assert.deepEqual((await server.api(`/conversations/${slow.conversationId}/messages`, { token })).body, {
      detail: 'conversation not found',
    });
  });

  it('is owner-only: another user lists none of them, renames and deletes nothing (404)', async () => {
    const alice = await sessionToken(server);
    const bob = await sessionToken(server);
    const { conversationId } = await send(server, alice.token, {
      message: 'mine',
      targetAgentIds: ['agent_echo'],
      newConversation: true,
    });
    assert.deepEqual((await list(bob.token)).body, { conversations: [], nextCursor: null });
    const rename = await server.api(`/conversations/${conversationId}`, {
      method: 'PATCH',
      token: bob.token,
      json: { title: 'x' },
    });
    assert.deepEqual([rename.status, rename.body.detail], [404, 'conversation not found']);
    const del = await server.api(`/conversations/${conversationId}`, { method: 'DELETE', token: bob.token });
    assert.deepEqual([del.status, del.body.detail], [404, 'conversation not found']);
    assert.equal((await list(alice.token)).body.conversations[0].title, 'mine');
    assert.equal((await list('sk_acme_1')).body.detail, 'session token or personal API key required');
    assert.equal((await list('')).status, 401);
  });
});
