import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ChatStreamRecord, SendResult } from '../../src/protocol/types.js';
import { readTurn, replyText, sendAndRead, sessionToken } from '../helpers/conversation.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** Regenerate, edit and feedback (docs/protocol.md "Acting on replies") over HTTP. */
describe('acting on replies', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  async function replace(token: string, conversationId: string, route: 'regenerate' | 'edit', json: unknown = {}) {
    return server.api(`/conversations/${conversationId}/${route}`, { method: 'POST', token, json });
  }

  async function replaceAndRead(token: string, conversationId: string, route: 'regenerate' | 'edit', json?: unknown) {
    const res = await replace(token, conversationId, route, json);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const sent = res.body as SendResult;
    return { sent, records: await readTurn(server, token, conversationId, sent.userEventId!) };
  }

  it('regenerate asks the last question again in a new turn that names the turn it replaces', async () => {
    const first = await sendAndRead(server, 'pk_alice', { message: 'first', targetAgentIds: ['agent_echo'] });
    const { conversationId } = first.sent;
    const second = await sendAndRead(server, 'pk_alice', { message: 'second', conversationId });
    const { sent, records } = await replaceAndRead('pk_alice', conversationId, 'regenerate');
    const user = sent.userMessage!;
    assert.equal(user.raw.type, 'user');
    assert.equal(user.raw.type === 'user' && user.raw.replaces, second.sent.results[0]!.streamId);
    assert.equal(user.raw.type === 'user' && user.raw.message.content[0]!.text, 'second');
    assert.notEqual(sent.results[0]!.streamId, second.sent.results[0]!.streamId, 'a new turn');
    assert.equal(replyText(records), 'Echo: second');
    // The replaced turn stays in history, marked by the record that replaces it.
    const history = await server.api(`/conversations/${conversationId}/messages`, { token: 'pk_alice' });
    const turns = new Set(history.body.entries.map((r: ChatStreamRecord) => r.turnId));
    assert.ok(turns.has(second.sent.results[0]!.streamId));
  });

  it('edit replaces the last message with the edited text', async () => {
    const first = await sendAndRead(server, 'pk_alice', { message: 'Helo', targetAgentIds: ['agent_echo'] });
    const { conversationId } = first.sent;
    const { sent, records } = await replaceAndRead('pk_alice', conversationId, 'edit', { message: 'Hello' });
    assert.equal(
      sent.userMessage!.raw.type === 'user' && sent.userMessage!.raw.replaces,
      first.sent.results[0]!.streamId,
    );
    assert.equal(replyText(records), 'Echo: Hello');
  });

  it('refuses what cannot be asked again', async () => {
    const { token } = await sessionToken(server);
    const other = await sendAndRead(server, 'pk_bob', { message: 'mine', targetAgentIds: ['agent_echo'] });
    const bob = other.sent.conversationId;
    assert.deepEqual(await replace('pk_alice', bob, 'regenerate').then((r) => [r.status, r.body.detail]), [
      404,
      'conversation not found',
    ]);
    assert.deepEqual(await replace('pk_bob', bob, 'edit', { message: '' }).then((r) => [r.status, r.body.detail]), [
      400,
      'body/message String must contain at least 1 character(s)',
    ]);
    assert.deepEqual(await replace('sk_acme_1', bob, 'regenerate').then((r) => r.status), 401);
    // A reply still running.
    const slow = await server.api('/conversations/send', {
      method: 'POST',
      token,
      json: { message: '/slow 3', targetAgentIds: ['agent_demo'] },
    });
    const running = await replace(token, slow.body.conversationId, 'regenerate');
    assert.deepEqual([running.status, running.body.detail], [409, 'a reply is still running in this conversation']);
    await server.api(`/conversations/${slow.body.conversationId}/interrupt`, { method: 'POST', token });
    // A card answer is asked again, never edited.
    const form = await sendAndRead(server, 'pk_alice', { message: '/form', targetAgentIds: ['agent_demo'] });
    const c = form.sent.conversationId;
    await sendAndRead(server, 'pk_alice', {
      message: '',
      conversationId: c,
      toolAction: true,
      metadata: { infoCollect: { action: 'skip' } },
    });
    const edit = await replace('pk_alice', c, 'edit', { message: 'no' });
    assert.deepEqual([edit.status, edit.body.detail], [409, 'the last message answers a card: it cannot be edited']);
  });

  it('keeps one feedback per visitor per reply, changeable, readable by the owner a page at a time', async () => {
    const { token, userId } = await sessionToken(server);
    const { sent } = await sendAndRead(server, token, { message: 'rate me', targetAgentIds: ['agent_echo'] });
    const { conversationId } = sent;
    const messageId = sent.results[0]!.msgId;
    const put = (json: unknown, id = messageId, t = token) =>
      server.api(`/conversations/${conversationId}/messages/${id}/feedback`, { method: 'PUT', token: t, json });

    const up = await put({ rating: 'up' });
    assert.equal(up.status, 200, JSON.stringify(up.body));
    assert.deepEqual([up.body.rating, up.body.reason, up.body.agentId], ['up', null, 'agent_echo']);
    const down = await put({ rating: 'down', reason: '  too short  ' });
    assert.deepEqual([down.body.rating, down.body.reason], ['down', 'too short']);
    assert.equal(down.body.created_at, up.body.created_at, 'the same feedback, changed');

    assert.deepEqual((await put({ rating: 'meh' })).status, 400);
    assert.deepEqual((await put({ rating: 'up', reason: 'x'.repeat(501) })).status, 400);
    assert.deepEqual((await put({ rating: 'up' }, 'm_nothing')).body, { detail: 'message not found' });
    assert.deepEqual((await put({ rating: 'up' }, messageId, 'pk_bob')).body, { detail: 'conversation not found' });

    const mine = await server.api(`/conversations/${conversationId}/feedback`, { token });
    assert.deepEqual(
      mine.body.feedback.map((f: { messageId: string; rating: string }) => [f.messageId, f.rating]),
      [[messageId, 'down']],
    );

    // The owner and the key read it, with the reply's text and who gave it; a visitor cannot.
    for (const owner of ['lt_acme_owner', 'sk_acme_1']) {
      const page = await server.api('/workspaces/acme/feedback?rating=down&limit=100', { token: owner });
      assert.equal(page.status, 200, JSON.stringify(page.body));
      const entry = page.body.feedback.find((f: { messageId: string }) => f.messageId === messageId);
      assert.deepEqual(
        [entry.user_id, entry.agentId, entry.text, entry.reason, entry.rating],
        [userId, 'agent_echo', 'Echo: rate me', 'too short', 'down'],
      );
    }
    assert.equal((await server.api('/workspaces/acme/feedback', { token })).status, 403);
    assert.equal((await server.api('/workspaces/globex/feedback', { token: 'sk_acme_1' })).status, 403);
    const globex = await server.api('/workspaces/globex/feedback', { token: 'sk_globex_1' });
    assert.deepEqual(globex.body, { feedback: [], next: null });
  });

  it('files feedback under the workspace of the agent that wrote the reply (agents of two workspaces)', async () => {
    // A personal key talks to an acme agent and a globex agent in one conversation.
    const { sent, records } = await sendAndRead(server, 'pk_alice', {
      message: 'two workspaces',
      targetAgentIds: ['agent_echo', 'agent_globex'],
      newConversation: true,
    });
    const replyOf = (agentId: string) =>
      records.find((r) => r.raw.type === 'assistant' && r.agentId === agentId)!.raw as { message: { id: string } };
    const rate = (agentId: string) =>
      server.api(`/conversations/${sent.conversationId}/messages/${replyOf(agentId).message.id}/feedback`, {
        method: 'PUT',
        token: 'pk_alice',
        json: { rating: 'down', reason: `about ${agentId}` },
      });
    for (const agentId of ['agent_echo', 'agent_globex']) assert.equal((await rate(agentId)).status, 200);
    const listed = async (slug: string, key: string) =>
      (await server.api(`/workspaces/${slug}/feedback?limit=100`, { token: key })).body.feedback
        .filter((f: { conversationId: string }) => f.conversationId === sent.conversationId)
        .map((f: { agentId: string; text: string }) => [f.agentId, f.text]);
    assert.deepEqual(await listed('acme', 'sk_acme_1'), [['agent_echo', 'Echo: two workspaces']]);
    assert.deepEqual(await listed('globex', 'sk_globex_1'), [['agent_globex', 'Echo: two workspaces']]);
    assert.deepEqual(await listed('globex', 'lt_globex_owner'), [['agent_globex', 'Echo: two workspaces']]);
  });

  it('pages the feedback newest first without repeating or losing an entry', async () => {
    const { token } = await sessionToken(server);
    const given: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { sent } = await sendAndRead(server, token, { message: `page ${i}`, targetAgentIds: ['agent_echo'] });
      const messageId = sent.results[0]!.msgId;
      const res = await server.api(`/conversations/${sent.conversationId}/messages/${messageId}/feedback`, {
        method: 'PUT',
        token,
        json: { rating: 'up' },
      });
      assert.equal(res.status, 200);
      given.push(messageId);
    }
    const read: string[] = [];
    let next: string | null = null;
    do {
      const query: string = `?limit=2&rating=up${next ? `&before=${next}` : ''}`;
      const page = await server.api(`/workspaces/acme/feedback${query}`, { token: 'sk_acme_1' });
      assert.equal(page.status, 200, JSON.stringify(page.body));
      assert.ok(page.body.feedback.length <= 2);
      read.push(...page.body.feedback.map((f: { messageId: string }) => f.messageId));
      next = page.body.next;
    } while (next);
    assert.deepEqual(
      read.filter((id) => given.includes(id)),
      [...given].reverse(),
    );
    assert.equal(new Set(read).size, read.length);
    assert.equal((await server.api('/workspaces/acme/feedback?before=x', { token: 'sk_acme_1' })).status, 400);
  });
});

describe('starter prompts', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      fixture: {
        workspaces: [
          {
            slug: 'acme',
            display_name: 'Acme',
            status: 'active',
            owner: { user_id: 'owner_acme', login_token: 'lt_acme_owner' },
            api_keys: [{ id: 'key_acme_1', secret: 'sk_acme_1' }],
            agents: [
              { id: 'agent_echo', name: 'Echo', runtime: 'echo', starter_prompts: ['Hello!', 'What is new?'] },
              { id: 'agent_plain', name: 'Plain', runtime: 'echo' },
            ],
          },
          {
            slug: 'globex',
            display_name: 'Globex',
            status: 'active',
            owner: { user_id: 'owner_globex', login_token: 'lt_globex_owner' },
            api_keys: [{ id: 'key_globex_1', secret: 'sk_globex_1' }],
            agents: [{ id: 'agent_globex', name: 'Globex', runtime: 'echo', starter_prompts: ['Hi'] }],
          },
        ],
        personal_keys: [{ secret: 'pk_alice', user_id: 'alice' }],
      },
    });
  });
  after(() => server.close());

  it("gives a visitor the prompts of an agent of their workspace, from the agent's settings", async () => {
    const { token } = await sessionToken(server);
    const prompts = await server.api('/agents/agent_echo/prompts', { token });
    assert.deepEqual(prompts.body, { agentId: 'agent_echo', starter_prompts: ['Hello!', 'What is new?'] });
    assert.deepEqual((await server.api('/agents/agent_plain/prompts', { token })).body.starter_prompts, []);
    assert.deepEqual((await server.api('/agents/agent_globex/prompts', { token })).body, { detail: 'agent not found' });
    assert.equal((await server.api('/agents/agent_globex/prompts', { token: 'pk_alice' })).status, 200);
    assert.equal((await server.api('/agents/agent_echo/prompts', { token: 'sk_acme_1' })).status, 401);
  });
});
