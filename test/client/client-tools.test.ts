import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ApiError, type ClientToolDeclaration, extractClientToolCalls } from '../../src/index.js';
import { visitorClient } from '../helpers/client.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** The client's part of the tools a page gives the chat (docs/client.md), against the service's demo agent. */
describe('client: tools the page gives the chat', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  const CART: ClientToolDeclaration = {
    name: 'add_to_cart',
    description: 'Adds a product to the cart.',
    parameters: { type: 'object', properties: { product: { type: 'string' } } },
  };

  it('a Conversation declares its tools with every message, regenerate and edit; answerClientTool answers once', async () => {
    const client = await visitorClient(server, { agentId: 'agent_demo' });
    const conversation = client.conversation({ clientTools: [CART] });
    await conversation.send('/cart add Tea');
    const regenerated = await conversation.regenerate();
    assert.equal(regenerated.records.flatMap((r) => extractClientToolCalls(r)).length, 1, 'regenerate declares them');
    const asked = await conversation.edit('/cart add Mug');
    const [call] = asked.records.flatMap((r) => extractClientToolCalls(r));
    assert.deepEqual([call?.name, call?.input], ['add_to_cart', { product: 'Mug', quantity: 1 }], 'declared again');

    const key = 'answer-of-the-page';
    const answer = () =>
      conversation.answerClientTool(call!.toolUseId, { output: { items: 1 } }, { idempotencyKey: key });
    const answered = await answer();
    assert.equal(answered.text, 'Done. The page answered: `{"items":1}`');
    // A retry under the same key (its first answer lost on the way back) is not applied again.
    const retried = await answer();
    assert.equal(retried.records[0]?.id, answered.records[0]?.id, 'the same stored answer');
    await assert.rejects(conversation.answerClientTool(call!.toolUseId, { error: 'again' }), (err: ApiError) => {
      assert.deepEqual(
        [err.status, err.message],
        [409, 'no call of a page tool with this toolUseId waits for an answer'],
      );
      return true;
    });
    const bare = await conversation.send('/cart add Tea', { clientTools: [] });
    assert.match(bare.text, /gives me no `add_to_cart` tool/, "a message's own clientTools win");
  });
});
