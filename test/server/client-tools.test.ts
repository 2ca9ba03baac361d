import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type ChatStreamRecord,
  type ClientToolDeclaration,
  clientToolErrorMetadata,
  clientToolResultMetadata,
  extractClientToolCalls,
  type SendResult,
} from '../../src/index.js';
import { readTurn, replyText, send, sendAndRead, sessionToken } from '../helpers/conversation.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/*
 * Tools the page gives the chat (docs/protocol.md "Tools the page gives the chat") over HTTP, with the demo
 * runtime's `/cart add`: what a send may declare, a call marked the page's, its answer taken exactly once.
 */

const CART: ClientToolDeclaration = {
  name: 'add_to_cart',
  description: 'Adds a product of this shop to the visitor’s cart.',
  parameters: {
    type: 'object',
    properties: { product: { type: 'string' }, quantity: { type: 'integer', minimum: 1 } },
    required: ['product'],
  },
};

describe('tools the page gives the chat', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  const post = (token: string, json: unknown, headers: Record<string, string> = {}) =>
    server.api('/conversations/send', { method: 'POST', token, json, headers });

  /** `/cart add …` with the cart tool declared: the records of the turn, and its page tool call. */
  async function askToAdd(token: string, text = '/cart add Tea 2', conversationId?: string) {
    const body = conversationId ? { conversationId } : { targetAgentIds: ['agent_demo'], newConversation: true };
    const { sent, records } = await sendAndRead(server, token, { message: text, clientTools: [CART], ...body });
    const [call] = records.flatMap((r) => extractClientToolCalls(r));
    return { sent, records, call: call! };
  }

  const answer = (token: string, conversationId: string, metadata: Record<string, unknown>, key?: string) =>
    post(
      token,
      { message: '', conversationId, toolAction: true, metadata, clientTools: [CART] },
      key ? { 'idempotency-key': key } : {},
    );

  const userRecords = async (token: string, conversationId: string) =>
    (await server.api(`/conversations/${conversationId}/messages`, { token })).body.entries.filter(
      (r: ChatStreamRecord) => r.raw.type === 'user',
    );

  it('a call of a declared tool is the agent’s tool_use block marked client; the turn ends waiting for it', async () => {
    const { token } = await sessionToken(server);
    const { records, call } = await askToAdd(token);
    assert.deepEqual(call, {
      toolUseId: call.toolUseId,
      name: 'add_to_cart',
      input: { product: 'Tea', quantity: 2 },
      agentId: 'agent_demo',
    });
    const last = records.at(-1)!.raw;
    assert.equal(last.type === 'result' && last.subtype, 'success');
    // Without the declaration the agent has no cart to reach, and marks nothing.
    const bare = await sendAndRead(server, token, { message: '/cart add Tea', targetAgentIds: ['agent_demo'] });
    assert.deepEqual(
      bare.records.flatMap((r) => extractClientToolCalls(r)),
      [],
    );
    assert.match(replyText(bare.records), /gives me no `add_to_cart` tool/);
  });

  it('the answer is applied once: the reply that follows uses it, a retry is answered alike, another is 409', async () => {
    const { token } = await sessionToken(server);
    const { sent, call } = await askToAdd(token);
    const { conversationId } = sent;
    const metadata = clientToolResultMetadata(call.toolUseId, { added: 'Tea', quantity: 2, items: 3 });
    const first = await answer(token, conversationId, metadata, 'answer-1');
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const reply = await readTurn(server, token, conversationId, first.body.userEventId);
    assert.equal(replyText(reply), 'Done. The page answered: `{"added":"Tea","quantity":2,"items":3}`');

    const retried = await answer(token, conversationId, metadata, 'answer-1');
    assert.deepEqual([retried.status, retried.body], [200, first.body], 'a retry gets the first result');
    for (const again of [
      await answer(token, conversationId, metadata, 'answer-2'),
      await answer(token, conversationId, metadata),
    ]) {
      assert.deepEqual(
        [again.status, again.body],
        [409, { detail: 'no call of a page tool with this toolUseId waits for an answer' }],
      );
    }
    const unknown = await answer(token, conversationId, clientToolResultMetadata('toolu_nothing', 1));
    assert.equal(unknown.status, 409);
    const answers = (await userRecords(token, conversationId)).filter(
      (r: ChatStreamRecord) => r.raw.type === 'user' && r.raw.toolAction,
    );
    assert.equal(answers.length, 1, 'one answer stored');
  });

  it('an error answer reaches the agent as a sentence it can use', async () => {
    const { token } = await sessionToken(server);
    const { sent, call } = await askToAdd(token);
    const res = await answer(token, sent.conversationId, clientToolErrorMetadata(call.toolUseId, 'Tea is sold out.'));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const reply = await readTurn(server, token, sent.conversationId, res.body.userEventId);
    assert.equal(replyText(reply), 'The page could not do it: Tea is sold out.');
  });

  it('refuses a bad declaration with 400 and stores nothing', async () => {
    const { token } = await sessionToken(server);
    const bad = async (tools: unknown, detail: string) => {
      const res = await post(token, {
        message: 'hi',
        targetAgentIds: ['agent_echo'],
        newConversation: true,
        clientTools: tools,
      });
      assert.deepEqual([res.status, res.body], [400, { detail }], JSON.stringify(tools).slice(0, 200));
    };
    await bad([{ ...CART, name: 'collect_info' }], 'body/clientTools/0/name is the name of a reserved tool');
    await bad([{ ...CART, name: 'request_payment' }], 'body/clientTools/0/name is the name of a reserved tool');
    await bad([{ ...CART, name: 'shop__add' }], 'body/clientTools/0/name must not hold __ (the names of MCP tools)');
    await bad(
      [{ ...CART, name: '1tool' }],
      'body/clientTools/0/name must be a letter, then up to 63 letters, digits, _ and -',
    );
    await bad([CART, CART], 'body/clientTools/1/name is declared twice');
    await bad(
      [{ ...CART, description: '' }],
      'body/clientTools/0/description String must contain at least 1 character(s)',
    );
    await bad(
      [{ ...CART, parameters: { type: 'string' } }],
      'body/clientTools/0/parameters must be the JSON Schema of an object (type: object)',
    );
    await bad(
      [{ ...CART, parameters: { type: 'object', properties: 5 } }],
      'body/clientTools/0/parameters is not a JSON Schema: properties must be object',
    );
    await bad(
      [{ ...CART, parameters: { $schema: 'https://example.com/mine', type: 'object' } }],
      'body/clientTools/0/parameters names a JSON Schema version other than 2020-12 and draft-07 in $schema',
    );
    await bad(
      [{ ...CART, parameters: { type: 'object', description: 'x'.repeat(9000) } }],
      'body/clientTools/0/parameters must be at most 8 KB as JSON',
    );
    const many = Array.from({ length: 21 }, (_, i) => ({ ...CART, name: `tool_${i}` }));
    await bad(many, 'body/clientTools Array must contain at most 20 element(s)');
    const big = Array.from({ length: 5 }, (_, i) => ({
      ...CART,
      name: `tool_${i}`,
      parameters: { type: 'object', description: 'x'.repeat(7000) },
    }));
    await bad(big, 'body/clientTools must be at most 32 KB as JSON');
    // draft-07, as zod-to-json-schema writes it, is read too.
    const draft7 = { ...CART, parameters: { $schema: 'http://json-schema.org/draft-07/schema#', ...CART.parameters } };
    const ok = await post(token, {
      message: 'hi',
      targetAgentIds: ['agent_echo'],
      newConversation: true,
      clientTools: [draft7],
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const list = await server.api('/conversations', { token });
    assert.equal(list.body.conversations.length, 1, 'only the accepted send made a conversation');
  });

  it('refuses a malformed answer with 400', async () => {
    const { token } = await sessionToken(server);
    const { sent, call } = await askToAdd(token);
    const bad = async (body: Record<string, unknown>, detail: string) => {
      const res = await post(token, { message: '', conversationId: sent.conversationId, ...body });
      assert.deepEqual([res.status, res.body], [400, { detail }]);
    };
    const id = call.toolUseId;
    await bad(
      { message: 'added', metadata: clientToolResultMetadata(id, 1) },
      'body/metadata/clientTool answers a page tool only with toolAction',
    );
    await bad(
      { toolAction: true, metadata: { clientTool: { toolUseId: id, output: 1, error: 'no' } } },
      'body/metadata/clientTool must hold either output or error',
    );
    await bad(
      { toolAction: true, metadata: { clientTool: { toolUseId: id } } },
      'body/metadata/clientTool must hold either output or error',
    );
    await bad(
      { toolAction: true, metadata: clientToolResultMetadata(id, { text: 'x'.repeat(17 * 1024) }) },
      'body/metadata/clientTool/output must be at most 16 KB as JSON',
    );
    await bad(
      { toolAction: true, metadata: clientToolErrorMetadata(id, 'x'.repeat(1001)) },
      'body/metadata/clientTool/error String must contain at most 1000 character(s)',
    );
    // The call still waits: a good answer is taken.
    const good = await answer(token, sent.conversationId, clientToolResultMetadata(id, null));
    assert.equal(good.status, 200, JSON.stringify(good.body));
  });

  it('only the conversation’s own visitor answers: anyone else gets 404', async () => {
    const { token } = await sessionToken(server);
    const other = await sessionToken(server);
    const { sent, call } = await askToAdd(token);
    const metadata = clientToolResultMetadata(call.toolUseId, { added: 'Tea' });
    for (const stranger of [other.token, 'pk_bob']) {
      const res = await answer(stranger, sent.conversationId, metadata);
      assert.deepEqual([res.status, res.body], [404, { detail: 'conversation not found' }]);
    }
    assert.equal((await answer(token, sent.conversationId, metadata)).status, 200, 'the call still waited');
  });

  it('a call stays answerable after the visitor wrote meanwhile; a regenerated turn’s old call is not', async () => {
    const { token } = await sessionToken(server);
    const { sent, call } = await askToAdd(token);
    const { conversationId } = sent;
    await sendAndRead(server, token, { message: '/help', conversationId });
    const late = await answer(token, conversationId, clientToolResultMetadata(call.toolUseId, { added: 'Tea' }));
    assert.equal(late.status, 200, 'a later answer still lands');
    await readTurn(server, token, conversationId, late.body.userEventId);

    const asked = await askToAdd(token, '/cart add Mug', conversationId);
    const again = await server.api(`/conversations/${conversationId}/regenerate`, {
      method: 'POST',
      token,
      json: { clientTools: [CART] },
    });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    const records = await readTurn(server, token, conversationId, (again.body as SendResult).userEventId!);
    const [fresh] = records.flatMap((r) => extractClientToolCalls(r));
    assert.ok(fresh && fresh.toolUseId !== asked.call.toolUseId, 'the regenerated turn makes its own call');
    const old = await answer(token, conversationId, clientToolResultMetadata(asked.call.toolUseId, { added: 'Mug' }));
    assert.equal(old.status, 409, 'the replaced call waits for nothing');
    const current = await answer(token, conversationId, clientToolResultMetadata(fresh.toolUseId, { added: 'Mug' }));
    assert.equal(current.status, 200, JSON.stringify(current.body));
  });

  it('deleting a conversation takes its page tool calls with it', async () => {
    const { token } = await sessionToken(server);
    const { sent } = await askToAdd(token);
    const calls = () =>
      server.ctx.db.get<{ n: number }>(
        'SELECT COUNT(*) AS n FROM client_tool_calls WHERE conversation_id = ?',
        sent.conversationId,
      );
    assert.equal(Number((await calls())!.n), 1);
    const deleted = await server.api(`/conversations/${sent.conversationId}`, { method: 'DELETE', token });
    assert.equal(deleted.status, 204, JSON.stringify(deleted.body));
    assert.equal(Number((await calls())!.n), 0);
  });

  it('a runtime cannot have the page run a tool it did not declare in that turn', async () => {
    const { token } = await sessionToken(server);
    // The cart was declared when the conversation began, not with this message.
    const first = await send(server, token, {
      message: 'hi',
      targetAgentIds: ['agent_demo'],
      newConversation: true,
      clientTools: [CART],
    });
    await readTurn(server, token, first.conversationId, first.userEventId!);
    const { records } = await sendAndRead(server, token, {
      message: '/cart add Tea',
      conversationId: first.conversationId,
    });
    assert.deepEqual(
      records.flatMap((r) => extractClientToolCalls(r)),
      [],
    );
  });
});
