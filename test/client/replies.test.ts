import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ApiError, SvcSdkError } from '../../src/index.js';
import { adminClient, visitorClient } from '../helpers/client.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** The client's members for acting on replies (docs/client.md), against the service. */
describe('client: regenerate, edit, feedback', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('Conversation.regenerate and edit run a new turn in place of the last one', async () => {
    const client = await visitorClient(server, { agentId: 'agent_echo' });
    const conversation = client.conversation();
    await assert.rejects(conversation.regenerate(), SvcSdkError);
    const first = await conversation.send('Helo');
    const again = await conversation.regenerate();
    assert.equal(again.text, 'Echo: Helo');
    const { entries } = await client.chat.messages(first.conversationId);
    const questions = entries.flatMap((r) =>
      r.raw.type === 'user' ? [[r.raw.message.content[0]!.text, r.raw.replaces]] : [],
    );
    assert.deepEqual(questions, [
      ['Helo', undefined],
      ['Helo', first.records[0]!.turnId],
    ]);
    const edited = await conversation.edit('Hello');
    assert.equal(edited.text, 'Echo: Hello');
    assert.equal(edited.conversationId, first.conversationId);
  });

  it('chat.regenerate and chat.edit answer like send; a refusal is an ApiError with the detail', async () => {
    const client = await visitorClient(server, { agentId: 'agent_demo' });
    const turn = await client.sendMessage('/slow 0');
    const sent = await client.chat.edit(turn.conversationId, { message: '/slow 5' });
    assert.equal(sent.conversationId, turn.conversationId);
    assert.ok(sent.userEventId);
    await assert.rejects(client.chat.edit(turn.conversationId, { message: 'two' }), (err: ApiError) => {
      assert.equal(err.status, 409);
      assert.equal(err.message, 'a reply is still running in this conversation');
      return true;
    });
    await client.chat.interrupt(turn.conversationId);
  });

  it('setFeedback stores one verdict per reply; the owner lists it with workspaces.listFeedback', async () => {
    const client = await visitorClient(server, { agentId: 'agent_echo' });
    const turn = await client.sendMessage('how was it?');
    const messageId = turn.records.find((r) => r.raw.type === 'assistant')!.raw;
    assert.equal(messageId.type, 'assistant');
    const id = messageId.type === 'assistant' ? messageId.message.id : '';
    await client.chat.setFeedback(turn.conversationId, id, { rating: 'up' });
    const changed = await client.chat.setFeedback(turn.conversationId, id, { rating: 'down', reason: 'vague' });
    assert.deepEqual([changed.rating, changed.reason], ['down', 'vague']);
    assert.deepEqual(
      (await client.chat.feedback(turn.conversationId)).feedback.map((f) => f.rating),
      ['down'],
    );
    const page = await adminClient(server).workspace('acme').listFeedback({ rating: 'down', limit: 10 });
    const entry = page.feedback.find((f) => f.messageId === id);
    assert.deepEqual([entry?.text, entry?.reason, entry?.agentId], ['Echo: how was it?', 'vague', 'agent_echo']);
  });
});
