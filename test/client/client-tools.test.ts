import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type ApiError,
  type ClientToolCall,
  type ClientToolDeclaration,
  extractClientToolCalls,
  PAGE_TOOL_ERRORS,
  type PageTool,
  pageToolDeclarations,
  runPageTool,
} from '../../src/index.js';
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

describe('client: runPageTool', () => {
  const call = (name: string, input: Record<string, unknown> = {}): ClientToolCall => ({
    toolUseId: 'toolu_1',
    name,
    input,
    agentId: 'agent_demo',
  });
  const tool = (name: string, handler: PageTool['handler'], confirm?: PageTool['confirm']): PageTool => ({
    name,
    description: `The ${name} tool.`,
    parameters: { type: 'object' },
    handler,
    ...(confirm !== undefined && { confirm }),
  });
  const options = { conversationId: 'c_1' };

  it('answers with what the handler returns, given the input and the call’s context', async () => {
    const seen: unknown[] = [];
    const add = tool('add_to_cart', async (input, context) => {
      seen.push(input, context.conversationId, context.agentId, context.signal.aborted);
      return { items: 3, at: undefined };
    });
    assert.deepEqual(await runPageTool([add], call('add_to_cart', { product: 'Tea' }), options), {
      output: { items: 3 },
    });
    assert.deepEqual(seen, [{ product: 'Tea' }, 'c_1', 'agent_demo', false]);
    assert.deepEqual(await runPageTool([tool('nothing', () => undefined)], call('nothing'), options), { output: null });
    assert.deepEqual(pageToolDeclarations([add]), [
      { name: 'add_to_cart', description: 'The add_to_cart tool.', parameters: { type: 'object' } },
    ]);
  });

  it('a tool the page does not offer, a throw, a timeout, a value that is not JSON or too big: an error sentence', async () => {
    assert.deepEqual(await runPageTool([], call('add_to_cart'), options), {
      error: 'The tool add_to_cart is not available on this page.',
    });
    const throws = tool('pay', () => {
      throw new Error('card declined');
    });
    assert.deepEqual(await runPageTool([throws], call('pay'), options), {
      error: 'The tool pay failed: card declined',
    });
    let aborted: AbortSignal | undefined;
    const hangs = tool('wait', (_input, { signal }) => {
      aborted = signal;
      return new Promise(() => {});
    });
    assert.deepEqual(await runPageTool([hangs], call('wait'), { ...options, timeoutMs: 50 }), {
      error: 'The tool wait did not finish within 0.05 seconds.',
    });
    assert.equal(aborted?.aborted, true, 'the handler is told to stop');
    assert.deepEqual(await runPageTool([tool('n', () => 1n)], call('n'), options), {
      error: PAGE_TOOL_ERRORS.notJson('n'),
    });
    const big = tool('big', () => 'x'.repeat(17 * 1024));
    assert.deepEqual(await runPageTool([big], call('big'), options), {
      error: PAGE_TOOL_ERRORS.tooLarge('big', 17410),
    });
  });

  it('a confirm tool runs only when the visitor allows it; Deny, or no way to ask, answers an error', async () => {
    let runs = 0;
    const pay = tool('pay', () => ++runs, 'Pay ¥10?');
    const asked: unknown[] = [];
    const allow = async (t: PageTool, c: ClientToolCall) => {
      asked.push([t.confirm, c.name]);
      return true;
    };
    assert.deepEqual(await runPageTool([pay], call('pay'), { ...options, confirm: allow }), { output: 1 });
    assert.deepEqual(asked, [['Pay ¥10?', 'pay']]);
    const denied = { error: 'The visitor did not allow pay to run.' };
    assert.deepEqual(await runPageTool([pay], call('pay'), { ...options, confirm: async () => false }), denied);
    assert.deepEqual(await runPageTool([pay], call('pay'), options), denied);
    assert.equal(runs, 1, 'the handler ran only when allowed');
  });
});
