import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { MODEL_FAILED, sseBound, UpstreamTooLarge } from '../../server/runtimes/model/upstream.js';
import {
  type AgentTurn,
  type ChatStreamRecord,
  type ClientToolDeclaration,
  extractClientToolCalls,
  extractConnectorSetup,
  extractInfoCollect,
  extractPaymentGate,
  extractSuggestions,
  infoCollectSubmitMetadata,
  SvcClient,
  type ToolResultBlock,
  type ToolUseBlock,
} from '../../src/index.js';
import { visitorClient } from '../helpers/client.js';
import { assistants, deltaText, replyText, resultOf as resultRecord, sessionToken } from '../helpers/conversation.js';
import { BILLING_TOKENS, type BillingServer, startBillingServer } from '../helpers/mcp-server.js';
import { type ModelServer, type ModelStep, pieces, startModelServer } from '../helpers/model-server.mjs';
import { FIXTURE, startTestServer, type TestServer } from '../helpers/server.js';

const KEY_ENV = 'SVC_TEST_MODEL_KEY';
const API_KEY = 'sk-test-9f8e7d6c5b4a3210';
const ADA_TOKEN = Object.keys(BILLING_TOKENS)[0]!;

let model: ModelServer;
let billing: BillingServer;
let gated: BillingServer;
/** Another billing server, also named `billing` by the agents that use it (in globex, and acme's Relay). */
let other: BillingServer;
let server: TestServer;
const log: string[] = [];

before(async () => {
  process.env[KEY_ENV] = API_KEY;
  [model, billing, gated, other] = await Promise.all([
    startModelServer(),
    startBillingServer('tool'),
    startBillingServer('endpoint'),
    startBillingServer('tool'),
  ]);
  const common = { runtime: 'model', model: 'scripted-1', base_url: model.url, api_key_env: KEY_ENV };
  const [acme, ...others] = FIXTURE.workspaces!;
  server = await startTestServer({
    log: { level: 'info', destination: { write: (line) => log.push(line) } },
    fixture: {
      ...FIXTURE,
      workspaces: [
        {
          ...acme!,
          agents: [
            ...acme!.agents!,
            {
              ...common,
              id: 'agent_ada',
              name: 'Ada',
              system_prompt: 'You are Ada.',
              temperature: 0.2,
              max_tokens: 300,
            },
            { ...common, id: 'agent_idle', name: 'Idle', idle_timeout_ms: 1000 },
            { ...common, id: 'agent_brief', name: 'Brief', turn_timeout_ms: 1500 },
            {
              ...common,
              id: 'agent_billing',
              name: 'Billing',
              mcp_servers: [{ name: 'billing', url: billing.url, description: 'Invoices' }],
            },
            { ...common, id: 'agent_gated', name: 'Gated', mcp_servers: [{ name: 'gated', url: gated.url }] },
            // Both name a server `billing`: Relay's is another server, Twin's the same one as Billing's.
            { ...common, id: 'agent_relay', name: 'Relay', mcp_servers: [{ name: 'billing', url: other.url }] },
            // The same server (origin and path), its URL with a query and a fragment.
            {
              ...common,
              id: 'agent_twin',
              name: 'Twin',
              mcp_servers: [{ name: 'billing', url: `${billing.url}?v=1#x` }],
            },
          ],
        },
        ...others.map((w) =>
          w.slug === 'globex'
            ? {
                ...w,
                agents: [
                  ...w.agents!,
                  // Another workspace's server of the same name.
                  {
                    ...common,
                    id: 'agent_globex_billing',
                    name: 'Globex Billing',
                    mcp_servers: [{ name: 'billing', url: other.url }],
                  },
                ],
              }
            : w,
        ),
      ],
    },
  });
});
after(async () => {
  await server.close();
  await Promise.all([model.close(), billing.close(), gated.close(), other.close()]);
});

let requestsBefore = 0;
beforeEach(() => {
  requestsBefore = model.requests.length;
});
/** The model requests the current test caused. */
const requests = () => model.requests.slice(requestsBefore);

const toolUses = (records: ChatStreamRecord[]) =>
  assistants(records).flatMap((raw) => raw.message.content.filter((b): b is ToolUseBlock => b.type === 'tool_use'));
const toolResults = (records: ChatStreamRecord[]) =>
  assistants(records).flatMap((raw) =>
    raw.message.content.filter((b): b is ToolResultBlock => b.type === 'tool_result'),
  );
const resultOf = (turn: AgentTurn) => (turn.result?.type === 'result' ? turn.result : undefined);
const call = (name: string, args: unknown) => ({ name, arguments: pieces(JSON.stringify(args), 3) });

async function chat(agentId: string, config = {}) {
  const client: SvcClient = await visitorClient(server, { agentId, ...config });
  return { client, conversation: client.conversation() };
}

describe('model runtime: replies', () => {
  it('streams the model’s text as deltas, then one assistant record', async () => {
    model.script({ text: ['Hel', 'lo ', 'there'] });
    const { client } = await chat('agent_ada');
    const turn = await client.sendMessage('hi');
    assert.equal(resultOf(turn)?.subtype, 'success');
    assert.equal(turn.text, 'Hello there');
    assert.deepEqual(
      turn.records.flatMap((r) => (r.raw.type === 'assistant_delta' ? [r.raw.text] : [])),
      ['Hel', 'lo ', 'there'],
    );
    assert.equal(assistants(turn.records).length, 1);

    const [request] = requests();
    assert.equal(request!.headers.authorization, `Bearer ${API_KEY}`);
    const { body } = request!;
    assert.equal(body.model, 'scripted-1');
    assert.equal(body.stream, true);
    assert.equal(body.temperature, 0.2);
    assert.equal(body.max_tokens, 300);
    assert.deepEqual(body.messages, [
      { role: 'system', content: 'You are Ada.' },
      { role: 'user', content: 'hi' },
    ]);
    const tools = body.tools!.map((t: { function: { name: string } }) => t.function.name);
    assert.deepEqual(tools.sort(), [
      'collect_info',
      'delegate',
      'request_payment',
      'setup_connector',
      'suggest_replies',
    ]);
  });

  it('sends the conversation so far: the visitor’s messages and the agent’s own replies', async () => {
    model.script({ text: 'First answer.' }, { text: 'Second answer.' });
    const { conversation } = await chat('agent_ada');
    await conversation.send('first question');
    const turn = await conversation.send('second question');
    assert.equal(turn.text, 'Second answer.');
    assert.deepEqual(requests()[1]!.body.messages.slice(1), [
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: 'First answer.' },
      { role: 'user', content: 'second question' },
    ]);
  });

  it('regenerate and edit send the history without the replaced reply and question', async () => {
    model.script({ text: 'First answer.' }, { text: 'Wrong answer.' }, { text: 'Better answer.' }, { text: 'Edited.' });
    const { conversation } = await chat('agent_ada');
    await conversation.send('first question');
    await conversation.send('second question');
    const again = await conversation.regenerate();
    assert.equal(again.text, 'Better answer.');
    const edited = await conversation.edit('second question, rephrased');
    assert.equal(edited.text, 'Edited.');
    const [, , regenerated, edit] = requests();
    const sent = (request: typeof regenerated) => request!.body.messages.slice(1);
    assert.deepEqual(sent(regenerated), [
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: 'First answer.' },
      { role: 'user', content: 'second question' },
    ]);
    assert.deepEqual(sent(edit), [
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: 'First answer.' },
      { role: 'user', content: 'second question, rephrased' },
    ]);
  });

  it('sends an uploaded image as an image part and a small text file inline', async () => {
    model.script({ text: 'A red dot and your notes.' });
    const { client } = await chat('agent_ada');
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
      'base64',
    );
    const image = await client.files.upload({ data: png, filename: 'dot.png', contentType: 'image/png' });
    const notes = await client.files.upload({
      data: Buffer.from('buy milk\ncall Bob'),
      filename: 'notes.txt',
      contentType: 'text/plain',
    });
    await client.sendMessage('what is in these?', {
      parts: [
        { type: 'image_url', image_url: { url: image.url } },
        { type: 'file', file: { filename: 'notes.txt', file_url: notes.url } },
      ],
    });
    const content = requests()[0]!.body.messages.at(-1).content;
    assert.deepEqual(content[0], { type: 'text', text: 'what is in these?' });
    assert.deepEqual(content[1], {
      type: 'image_url',
      image_url: { url: `data:image/png;base64,${png.toString('base64')}` },
    });
    assert.equal(content[2].type, 'text');
    assert.match(content[2].text, /notes\.txt[\s\S]*buy milk\ncall Bob/);
  });
});

describe('model runtime: cards', () => {
  it('a collect_info call shows the form; the answer goes back as its result and the model continues', async () => {
    const form = { title: 'Book a demo', fields: [{ name: 'email', label: 'Email', type: 'email', required: true }] };
    model.script(
      { text: 'Let me take your details.', toolCalls: [call('collect_info', form)] },
      { text: 'Thanks, ada@example.com!' },
    );
    const { conversation } = await chat('agent_ada');
    const asked = await conversation.send('book a demo');
    assert.equal(resultOf(asked)?.subtype, 'success');
    assert.equal(requests().length, 1, 'the turn waits for the visitor');
    const cardRecord = asked.records.find((r) => extractInfoCollect(r));
    const card = extractInfoCollect(cardRecord!)!;
    assert.equal(card.title, 'Book a demo');
    assert.equal(replyText(asked.records), 'Let me take your details.');

    const answered = await conversation.send('', {
      toolAction: true,
      metadata: infoCollectSubmitMetadata({ email: 'ada@example.com' }, card.toolUseId),
    });
    assert.equal(answered.text, 'Thanks, ada@example.com!');
    const messages = requests()[1]!.body.messages;
    const [assistant, result] = messages.slice(-2);
    assert.equal(assistant.content, 'Let me take your details.');
    assert.deepEqual(assistant.tool_calls, [
      { id: card.toolUseId, type: 'function', function: { name: 'collect_info', arguments: JSON.stringify(form) } },
    ]);
    assert.equal(result.role, 'tool');
    assert.equal(result.tool_call_id, card.toolUseId);
    assert.match(result.content, /submitted the form: \{"email":"ada@example.com"\}/);
  });

  it('a setup_connector call shows the connector card; saving it lets the model continue', async () => {
    const setup = {
      connectorTypeId: 'github',
      name: 'GitHub',
      fields: [{ name: 'api_key', label: 'API key', secret: true, required: true }],
    };
    model.script({ toolCalls: [call('setup_connector', setup)] }, { text: 'GitHub is connected.' });
    const { conversation } = await chat('agent_ada');
    const asked = await conversation.send('connect my github');
    const [request] = asked.records.flatMap((r) => extractConnectorSetup(r));
    assert.equal(request?.connectorTypeId, 'github');
    const answered = await conversation.submitConnectorSetup(request!, { api_key: 'ghp_secret_value' });
    assert.equal(answered?.text, 'GitHub is connected.');
    const result = requests()[1]!.body.messages.at(-1);
    assert.equal(result.tool_call_id, request!.toolUseId);
    assert.equal(result.content, 'The visitor saved their credentials for github.');
    assert.ok(!JSON.stringify(requests()[1]!.body).includes('ghp_secret_value'), 'the model never sees the secret');
  });

  it('a request_payment of 3 decimals goes back to the model as a tool error; the turn goes on', async () => {
    model.script(
      { toolCalls: [call('request_payment', { amount_cny: 9.999, title: 'Pro plan' })] },
      {
        text: 'Sorry, let me fix the amount.',
        toolCalls: [call('request_payment', { amount_cny: 10, title: 'Pro plan' })],
      },
    );
    const { conversation } = await chat('agent_ada');
    const asked = await conversation.send('I want the pro plan');
    assert.equal(resultOf(asked)?.subtype, 'success');
    assert.equal(asked.records.map(extractPaymentGate).find(Boolean)?.amountCny, 10);
    const error = requests()[1]!.body.messages.at(-1);
    assert.equal(error.role, 'tool');
    assert.match(error.content, /at most 2 decimal places/);
  });

  /** The records after `turn`'s end through the end of the next turn (one the service began by itself). */
  async function nextTurn(client: SvcClient, conversationId: string, turn: AgentTurn) {
    const end = turn.records.findLast((r) => r.raw.type === 'result')!;
    const records: ChatStreamRecord[] = [];
    for await (const record of client.chat.resumeTurn(conversationId, { lastEventId: end.id! })) records.push(record);
    return records;
  }

  it('a request_payment call shows a payment card; once paid, the agent acknowledges it in a turn of its own', async () => {
    model.script(
      { text: 'Here is the bill.', toolCalls: [call('request_payment', { amount_cny: 9.9, title: 'Pro plan' })] },
      { text: 'Thank you, your payment of ¥9.90 is received.' },
      { text: 'Payment received, welcome to Pro!' },
    );
    const { client, conversation } = await chat('agent_ada');
    const asked = await conversation.send('I want the pro plan');
    const payment = asked.records.map(extractPaymentGate).find(Boolean)!;
    assert.equal(payment.amountCny, 9.9);
    assert.equal(payment.title, 'Pro plan');
    // Two clicks at once (a double click, a retried post): one settles the order, and one turn follows it.
    const clicks = await Promise.all(
      [1, 2].map(() => fetch(`${payment.payUrl}/pay`, { method: 'POST', redirect: 'manual' })),
    );
    assert.deepEqual(
      clicks.map((r) => r.status),
      [303, 303],
    );

    const followed = await nextTurn(client, conversation.id!, asked);
    assert.deepEqual(
      followed.filter((r) => r.raw.type === 'payment_gate_resolution').map((r) => r.raw),
      [{ type: 'payment_gate_resolution', orderId: payment.orderId, status: 'paid' }],
    );
    assert.equal(replyText(followed), 'Thank you, your payment of ¥9.90 is received.');
    assert.ok(
      assistants(followed).every((raw) => raw.agentId === 'agent_ada'),
      'the agent that asked for the payment speaks',
    );
    assert.equal(resultRecord(followed)?.subtype, 'success');
    // The model goes on from its payment call, whose result is now the order's status.
    const acknowledged = requests()[1]!.body.messages;
    assert.equal(acknowledged.at(-2).tool_calls[0].function.name, 'request_payment');
    assert.equal(acknowledged.at(-1).role, 'tool');
    assert.match(acknowledged.at(-1).content, new RegExp(`order ${payment.orderId} .*status now: paid`));

    const after = await conversation.send('done, I paid');
    assert.equal(after.text, 'Payment received, welcome to Pro!');
    const messages = requests()[2]!.body.messages;
    const calls = messages.flatMap((m: { tool_calls?: { function: { name: string } }[] }) => m.tool_calls ?? []);
    assert.deepEqual(
      calls.map((c: { function: { name: string } }) => c.function.name),
      ['request_payment'],
    );
    const result = messages.find((m: { role: string }) => m.role === 'tool');
    assert.match(result.content, new RegExp(`order ${payment.orderId} .*status now: paid`));
    assert.deepEqual(messages.at(-2), { role: 'assistant', content: 'Thank you, your payment of ¥9.90 is received.' });
    assert.deepEqual(messages.at(-1), { role: 'user', content: 'done, I paid' });
    // One turn followed the payment, however often it was clicked.
    assert.equal(requests().length, 3);
    const { entries } = await client.chat.history(conversation.id!);
    assert.equal(entries.filter((r) => r.raw.type === 'result').length, 3);
  });

  it('a canceled payment is told to the agent too, after what was said since', async () => {
    model.script(
      { toolCalls: [call('request_payment', { amount_cny: 20, title: 'Team plan' })] },
      { text: 'Take your time.' },
      { text: 'No problem, the order is canceled.' },
    );
    const { client, conversation } = await chat('agent_ada');
    const asked = await conversation.send('the team plan please');
    const payment = asked.records.map(extractPaymentGate).find(Boolean)!;
    const meanwhile = await conversation.send('hmm, let me think');
    assert.equal((await fetch(`${payment.payUrl}/cancel`, { method: 'POST', redirect: 'manual' })).status, 303);

    const followed = await nextTurn(client, conversation.id!, meanwhile);
    assert.equal(replyText(followed), 'No problem, the order is canceled.');
    const messages = requests()[2]!.body.messages;
    assert.match(
      messages.find((m: { role: string }) => m.role === 'tool').content,
      new RegExp(`order ${payment.orderId} .*status now: canceled`),
    );
    assert.deepEqual(messages.at(-1), {
      role: 'user',
      content: `(The payment "Team plan" (order ${payment.orderId}) is now canceled.)`,
    });
  });

  it('a delegate call hands the task to another agent; its reply is the call’s result next time', async () => {
    model.script(
      { text: 'Asking Echo.', toolCalls: [call('delegate', { agentId: 'agent_echo', task: 'say cheese' })] },
      { text: 'Echo said cheese.' },
    );
    const { conversation } = await chat('agent_ada');
    const handed = await conversation.send('ask echo to say cheese');
    assert.equal(resultOf(handed)?.subtype, 'success');
    const [delegation] = toolUses(handed.records);
    assert.deepEqual(delegation?.input, { agentId: 'agent_echo', agentName: 'Echo', task: 'say cheese' });
    const echoed = handed.records.find((r) => r.agentId === 'agent_echo' && r.raw.type === 'assistant');
    assert.ok(echoed, 'Echo answered in the same turn');
    assert.equal(requests().length, 1);

    await conversation.send('what did echo say?');
    const result = requests()[1]!.body.messages.find((m: { role: string }) => m.role === 'tool');
    assert.equal(result.tool_call_id, delegation!.id);
    assert.equal(result.content, 'Echo took over and replied:\nEcho: say cheese');
  });

  it('a card call with arguments the card cannot take goes back to the model as an error in the same turn', async () => {
    model.script(
      { toolCalls: [call('collect_info', { title: 'No fields' })] },
      { text: 'Sorry, let me just ask: what is your email?' },
    );
    const { client } = await chat('agent_ada');
    const turn = await client.sendMessage('sign me up');
    assert.equal(turn.text, 'Sorry, let me just ask: what is your email?');
    assert.equal(turn.records.map(extractInfoCollect).find(Boolean), undefined, 'no broken card is shown');
    const result = requests()[1]!.body.messages.at(-1);
    assert.equal(result.role, 'tool');
    assert.match(result.content, /^Invalid arguments/);
    assert.match(result.content, /fields/);
  });
});

describe('model runtime: tools the page gives the chat', () => {
  const CART: ClientToolDeclaration = {
    name: 'add_to_cart',
    description: 'Adds a product to the cart of the page the visitor is on.',
    parameters: { type: 'object', properties: { product: { type: 'string' } }, required: ['product'] },
  };
  const offered = (n: number): string[] =>
    requests()[n]!.body.tools?.map((t: { function: { name: string } }) => t.function.name) ?? [];

  it('offers the page’s tools; a call is marked the page’s and ends the turn; the answer is its result', async () => {
    model.script(
      { text: 'Adding it.', toolCalls: [call('add_to_cart', { product: 'Tea' })] },
      { text: 'Tea is in your cart; it holds 3 items now.' },
    );
    const { client } = await chat('agent_ada');
    const conversation = client.conversation({ clientTools: [CART] });
    const asked = await conversation.send('add tea to my cart');
    assert.equal(resultOf(asked)?.subtype, 'success');
    assert.equal(requests().length, 1, 'the turn waits for the page');
    assert.ok(offered(0).includes('add_to_cart') && offered(0).includes('collect_info'), 'beside the agent’s own');
    assert.deepEqual(
      requests()[0]!.body.tools!.find((t: { function: { name: string } }) => t.function.name === 'add_to_cart'),
      {
        type: 'function',
        function: CART,
      },
    );
    const [pageCall] = asked.records.flatMap((r) => extractClientToolCalls(r));
    assert.deepEqual(pageCall, {
      toolUseId: pageCall!.toolUseId,
      name: 'add_to_cart',
      input: { product: 'Tea' },
      agentId: 'agent_ada',
    });

    const answered = await conversation.answerClientTool(pageCall!.toolUseId, { output: { added: 'Tea', items: 3 } });
    assert.equal(answered.text, 'Tea is in your cart; it holds 3 items now.');
    const [assistant, result] = requests()[1]!.body.messages.slice(-2);
    assert.deepEqual(
      assistant.tool_calls.map((c: { id: string }) => c.id),
      [pageCall!.toolUseId],
    );
    assert.deepEqual(result, { role: 'tool', tool_call_id: pageCall!.toolUseId, content: '{"added":"Tea","items":3}' });
    assert.ok(offered(1).includes('add_to_cart'), 'the answer declared the tools again');
  });

  it('an error answer is the call’s result as a sentence the model can use', async () => {
    model.script({ toolCalls: [call('add_to_cart', { product: 'Tea' })] }, { text: 'Sorry, Tea is sold out.' });
    const { client } = await chat('agent_ada');
    const conversation = client.conversation({ clientTools: [CART] });
    const [pageCall] = (await conversation.send('add tea')).records.flatMap((r) => extractClientToolCalls(r));
    const answered = await conversation.answerClientTool(pageCall!.toolUseId, { error: 'Tea is sold out.' });
    assert.equal(answered.text, 'Sorry, Tea is sold out.');
    assert.equal(requests()[1]!.body.messages.at(-1).content, 'The page could not run the tool: Tea is sold out.');
  });

  it('a call of a tool the page did not declare in this turn goes back to the model as an error', async () => {
    model.script(
      { toolCalls: [call('add_to_cart', { product: 'Tea' })] },
      { text: 'I cannot reach a cart from here.' },
    );
    const { conversation } = await chat('agent_ada');
    const turn = await conversation.send('add tea');
    assert.equal(turn.text, 'I cannot reach a cart from here.');
    assert.ok(!offered(0).includes('add_to_cart'), 'nothing the page did not declare is offered');
    assert.deepEqual(
      turn.records.flatMap((r) => extractClientToolCalls(r)),
      [],
      'no call is marked the page’s',
    );
    assert.equal(requests()[1]!.body.messages.at(-1).content, 'There is no tool named add_to_cart.');
  });

  it('a call whose input is over the bound goes back to the model as an error; nothing waits for the page', async () => {
    const huge = { product: 'x'.repeat(17 * 1024) };
    model.script({ toolCalls: [call('add_to_cart', huge)] }, { text: 'That name is too long.' });
    const { client } = await chat('agent_ada');
    const turn = await client.conversation({ clientTools: [CART] }).send('add it');
    assert.equal(turn.text, 'That name is too long.');
    assert.deepEqual(
      turn.records.flatMap((r) => extractClientToolCalls(r)),
      [],
    );
    assert.match(requests()[1]!.body.messages.at(-1).content, /a page tool takes at most 16384/);
  });
});

describe('model runtime: suggested replies', () => {
  /** Every tool call of the request's messages is answered by a tool message right after its assistant message. */
  function assertAnswered(messages: { role: string; tool_calls?: { id: string }[]; tool_call_id?: string }[]) {
    messages.forEach((message, i) => {
      const ids = (message.tool_calls ?? []).map((c) => c.id);
      const answers = messages.slice(i + 1, i + 1 + ids.length).map((m) => (m.role === 'tool' ? m.tool_call_id : ''));
      assert.deepEqual(answers, ids, `the calls of message ${i} are answered in order`);
    });
  }

  it('a suggest_replies call is stored with the reply and ends the turn; the next request carries it and its result', async () => {
    const offered = { suggestions: ['Compare the plans', '  What does Pro cost? '] };
    model.script(
      { text: 'We have Starter and Pro.', toolCalls: [call('suggest_replies', offered)] },
      { text: 'Pro costs ¥10 a month.' },
    );
    const { conversation } = await chat('agent_ada');
    const asked = await conversation.send('what plans are there?');
    assert.equal(resultOf(asked)?.subtype, 'success');
    assert.equal(requests().length, 1, 'the turn ended with the suggestions, without asking the model again');
    const replies = asked.records.filter((r) => r.raw.type === 'assistant');
    assert.equal(replies.length, 1, 'one reply: its text and the suggestions');
    assert.equal(replyText(asked.records), 'We have Starter and Pro.');
    const [block] = toolUses(asked.records);
    assert.equal(block?.name, 'suggest_replies');
    assert.deepEqual(block?.input, { suggestions: ['Compare the plans', 'What does Pro cost?'] });
    assert.deepEqual(extractSuggestions(replies[0]!), ['Compare the plans', 'What does Pro cost?']);

    const tapped = await conversation.send('What does Pro cost?');
    assert.equal(tapped.text, 'Pro costs ¥10 a month.');
    const messages = requests()[1]!.body.messages;
    assert.deepEqual(messages.slice(1), [
      { role: 'user', content: 'what plans are there?' },
      {
        role: 'assistant',
        content: 'We have Starter and Pro.',
        tool_calls: [
          {
            id: block!.id,
            type: 'function',
            function: { name: 'suggest_replies', arguments: JSON.stringify(block!.input) },
          },
        ],
      },
      { role: 'tool', tool_call_id: block!.id, content: 'The visitor was offered these replies.' },
      { role: 'user', content: 'What does Pro cost?' },
    ]);
    assertAnswered(messages);
  });

  it('suggestions the tool cannot take go back to the model as an error; its next answer offers them right', async () => {
    model.script(
      {
        text: 'Here you go.',
        toolCalls: [call('suggest_replies', { suggestions: ['a', 'b', 'c', 'd', 'e', 'x'.repeat(81)] })],
      },
      { toolCalls: [call('suggest_replies', { suggestions: ['Tell me more'] })] },
    );
    const { conversation } = await chat('agent_ada');
    const turn = await conversation.send('hello');
    assert.equal(resultOf(turn)?.subtype, 'success');
    const offers = turn.records.filter((r) => r.raw.type === 'assistant').map(extractSuggestions);
    assert.deepEqual(offers, [[], ['Tell me more']], 'the refused call offers nothing; the corrected one does');
    const error = requests()[1]!.body.messages.at(-1);
    assert.equal(error.role, 'tool');
    assert.match(error.content, /^Invalid arguments/);
    assert.match(error.content, /suggestions/);
    assertAnswered(requests()[1]!.body.messages);
  });
});

describe('model runtime: interrupts, retries and failures', () => {
  it('interrupt aborts the upstream request at once and keeps the partial text', async () => {
    model.script({ text: ['Partial ', 'answer'], stall: true });
    const { client } = await chat('agent_ada');
    const records: ChatStreamRecord[] = [];
    for await (const record of client.runTurn('tell me a long story')) {
      records.push(record);
      if (deltaText(records) === 'Partial answer' && record.raw.type === 'assistant_delta') {
        assert.equal((await client.chat.interrupt(record.conversationId!)).interrupted, true);
      }
    }
    const last = records.at(-1)?.raw;
    assert.equal(last?.type === 'result' && last.subtype, 'interrupted');
    assert.equal(replyText(records), 'Partial answer');
    assert.equal(await requests()[0]!.closed, true, 'the upstream request was aborted');
  });

  it('retries 429 and 5xx, honouring retry-after, then streams the reply', async () => {
    model.script(
      { status: 429, headers: { 'retry-after': '0' }, error: { message: 'Rate limit reached', type: 'rate_limit' } },
      { status: 503, headers: { 'retry-after-ms': '0' }, error: { message: 'overloaded', type: 'server_error' } },
      { text: 'Recovered.' },
    );
    const { client } = await chat('agent_ada');
    const turn = await client.sendMessage('are you there?');
    assert.equal(turn.text, 'Recovered.');
    assert.equal(requests().length, 3);
  });

  it('waits at least the retry-after the endpoint asks for', async () => {
    model.script({ status: 429, headers: { 'retry-after': '1' }, error: { message: 'slow down' } }, { text: 'Now.' });
    const { client } = await chat('agent_ada');
    const turn = await client.sendMessage('again');
    assert.equal(turn.text, 'Now.');
    const [first, second] = requests();
    assert.ok(second!.at - first!.at >= 1000, `retried after ${second!.at - first!.at} ms`);
  });

  it('after the last retry the turn ends with a plain sentence; the detail is in the log, never the key', async () => {
    const refusal = {
      status: 500,
      headers: { 'retry-after': '0' },
      error: { message: `backend exploded near ${API_KEY}` },
    };
    model.script(refusal, refusal, refusal);
    const { client } = await chat('agent_ada');
    const turn = await client.sendMessage('hello?');
    assert.equal(resultOf(turn)?.subtype, 'error');
    assert.equal(resultOf(turn)?.error, 'The model is having trouble right now. Please try again in a moment.');
    assert.equal(requests().length, 3);
    const lines = log.filter((line) => line.includes('backend exploded'));
    assert.equal(lines.length, 3);
    assert.ok(lines.every((line) => !line.includes(API_KEY) && line.includes('[key]')));
  });

  it('does not retry a refused key, nor wait for a retry-after too long to be worth it', async () => {
    model.script({ status: 401, error: { message: 'Incorrect API key provided' } });
    const { client } = await chat('agent_ada');
    const refused = await client.sendMessage('hi');
    assert.equal(resultOf(refused)?.error, 'The model refused this service’s credentials.');
    assert.equal(requests().length, 1);

    model.script({ status: 429, headers: { 'retry-after': '3600' }, error: { message: 'quota' } });
    const busy = await client.sendMessage('hi again');
    assert.equal(resultOf(busy)?.error, 'The model is busy. Please try again in 3600 seconds.');
    assert.equal(requests().length, 2);
  });

  it('a connection cut in the middle of the reply ends the turn with an error and keeps the text', async () => {
    model.script({ text: ['Half a ', 'reply'], cut: true });
    const { client } = await chat('agent_ada');
    const turn = await client.sendMessage('go on');
    assert.equal(resultOf(turn)?.subtype, 'error');
    assert.equal(
      resultOf(turn)?.error,
      'The connection to the model broke off in the middle of the reply. Please try again.',
    );
    assert.equal(replyText(turn.records), 'Half a reply');
    assert.equal(requests().length, 1, 'text already shown is not asked for again');
  });

  it('an upstream that stalls ends the turn after the idle time', async () => {
    model.script({ text: ['Thinking'], stall: true });
    const { client } = await chat('agent_idle');
    const turn = await client.sendMessage('hello');
    assert.equal(resultOf(turn)?.subtype, 'error');
    assert.equal(resultOf(turn)?.error, 'The model sent nothing for 1 second, so the reply was stopped.');
    assert.equal(await requests()[0]!.closed, true, 'the stalled request was given up');
  });
});

describe('model runtime: a hostile endpoint', () => {
  it('one endless line (100 MB) is cut at 1 MB: the turn ends with a plain sentence and other requests stay fast', async () => {
    const huge: ModelStep = { text: ['Start '], hugeLine: 100 * 1024 * 1024 };
    model.script(huge);
    const { client } = await chat('agent_ada');
    let ended = false;
    const turn = client.sendMessage('go on').finally(() => {
      ended = true;
    });
    // Another visitor's requests, one after another while the reply streams: each is answered quickly.
    const waits: number[] = [];
    while (!ended) {
      const started = performance.now();
      assert.equal((await server.api('/workspaces/whoami', { token: 'sk_acme_1' })).status, 200);
      waits.push(performance.now() - started);
    }
    const result = resultOf(await turn);
    assert.equal(result?.subtype, 'error');
    assert.equal(result?.error, MODEL_FAILED.tooLarge);
    assert.equal(await requests()[0]!.closed, true, 'the request was given up');
    assert.ok(huge.sent! < 32 * 1024 * 1024, `the service read ${huge.sent} bytes of the line`);
    assert.ok(Math.max(...waits) < 2000, `another request waited ${Math.max(...waits).toFixed(0)} ms`);
    assert.ok(
      log.some((line) => line.includes('model reply too large')),
      'the log says why',
    );
  });

  it('the bound counts the lines of an event up to a blank line (LF, CRLF or CR), and the whole answer', async () => {
    const through = async (bounds: { eventBytes: number; replyBytes: number }, ...chunks: string[]) => {
      const source = new ReadableStream<Uint8Array>({
        start(controller) {
          for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
          controller.close();
        },
      });
      const out: Uint8Array[] = [];
      try {
        for await (const bytes of source.pipeThrough(sseBound(bounds)) as unknown as AsyncIterable<Uint8Array>) {
          out.push(bytes);
        }
        return Buffer.concat(out).toString();
      } catch (err) {
        return err instanceof UpstreamTooLarge ? 'too large' : `failed: ${err}`;
      }
    };
    const small = { eventBytes: 10, replyBytes: 100 };
    assert.equal(
      await through(small, 'data: 1\n\n', 'data: 2\r\n\r\n', 'data: 3\r\rdata: 4\n\n'),
      'data: 1\n\ndata: 2\r\n\r\ndata: 3\r\rdata: 4\n\n',
    );
    // Short lines that never end their event, split anywhere.
    assert.equal(await through(small, 'a: 1\nb: ', '2\nc: 3\n'), 'too large');
    // A CRLF split across chunks is one line end, not a blank line.
    assert.equal(await through(small, 'data: 12\r', '\ndata: 3\n\n'), 'too large');
    assert.equal(await through(small, 'data: 1234\n\n'.repeat(9)), 'too large');
  });
});

describe('model runtime: a turn’s time limit', () => {
  it('a reply that goes on past turn_timeout_ms ends with an error saying so; the next message is answered', async () => {
    // The endpoint keeps the reply open without a word (idle for less than the 60 s idle timeout).
    model.script({ text: 'Let me think', stall: true }, { text: 'Back again.' });
    const { conversation } = await chat('agent_brief');
    const turn = await conversation.send('think hard');
    assert.deepEqual(
      [resultOf(turn)?.subtype, (resultOf(turn) as { error?: string } | undefined)?.error],
      ['error', 'The reply took longer than 1.5 s and was stopped.'],
    );
    assert.equal(replyText(turn.records), 'Let me think', 'what streamed before the limit is kept');
    assert.equal((await conversation.send('and now?')).text, 'Back again.');
  });
});

describe('model runtime: metrics', () => {
  it('counts the model requests answered, and those that failed by kind, for /metrics', async () => {
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    const value = (series: string) => Number(new RegExp(`^${series} (\\S+)$`, 'm').exec(metrics)?.[1] ?? 0);
    assert.ok(value('svc_model_request_duration_seconds_count') > 0, 'answered requests');
    // The suite above met each: 5xx and 429 refusals, a refused key, a cut stream, a stalled one.
    for (const kind of ['server', 'rate_limited', 'auth', 'cut', 'idle']) {
      assert.ok(value(`svc_model_failures_total{kind="${kind}"}`) > 0, kind);
    }
  });
});

describe('model runtime: MCP tools', () => {
  it('offers the server’s tools and calls them with the visitor’s token; the result reaches the model', async () => {
    model.script(
      { text: 'Checking.', toolCalls: [call('billing__list_invoices', { status: 'open' })] },
      { text: 'You have one open invoice: INV-1002.' },
    );
    const { client } = await chat('agent_billing', { mcpTokens: { billing: ADA_TOKEN } });
    const calls = billing.calls.length;
    const turn = await client.sendMessage('any open invoices?');
    assert.equal(resultOf(turn)?.subtype, 'success');
    assert.equal(replyText(turn.records), 'Checking.\nYou have one open invoice: INV-1002.');

    const offered = requests()[0]!.body.tools!.map((t: { function: { name: string } }) => t.function.name);
    assert.ok(offered.includes('billing__list_invoices') && offered.includes('billing__invoice_help'));
    assert.deepEqual(billing.calls.slice(calls), [{ tool: 'list_invoices', token: ADA_TOKEN }]);

    const [used] = toolUses(turn.records);
    assert.deepEqual([used?.name, used?.input], ['billing__list_invoices', { status: 'open' }]);
    const output = requests()[1]!.body.messages.at(-1);
    assert.equal(output.tool_call_id, used!.id);
    assert.deepEqual(JSON.parse(output.content), [{ id: 'INV-1002', customer: 'Ada', amount: 75.5, status: 'open' }]);
    assert.deepEqual(
      toolResults(turn.records).map((r) => r.tool_use_id),
      [used!.id],
    );

    const stored = JSON.stringify((await client.chat.messages(turn.conversationId)).entries);
    assert.ok(!stored.includes(ADA_TOKEN), 'the token is not stored');
    assert.ok(!log.join('\n').includes(ADA_TOKEN), 'the token is not logged');
  });

  it('without the token the call is refused: a connector card asks for it, and the saved token is used', async () => {
    model.script({ toolCalls: [call('billing__list_invoices', {})] });
    const { conversation } = await chat('agent_billing');
    const calls = billing.calls.length;
    const asked = await conversation.send('show my invoices');
    assert.equal(resultOf(asked)?.subtype, 'success');
    const [card] = asked.records.flatMap((r) => extractConnectorSetup(r));
    assert.equal(card?.connectorTypeId, 'billing');
    assert.deepEqual(
      card?.fields.map((f) => [f.name, f.secret]),
      [['token', true]],
    );
    assert.equal(billing.calls.length, calls, 'the tool never ran');
    assert.equal(requests().length, 1);

    model.script(
      { toolCalls: [call('billing__list_invoices', {})] },
      { text: 'Your invoices: INV-1001 and INV-1002.' },
    );
    const answered = await conversation.submitConnectorSetup(card!, { token: ADA_TOKEN });
    assert.equal(answered?.text, 'Your invoices: INV-1001 and INV-1002.');
    assert.deepEqual(billing.calls.slice(calls), [{ tool: 'list_invoices', token: ADA_TOKEN }]);
    const messages = requests()[1]!.body.messages;
    const results = messages
      .filter((m: { role: string }) => m.role === 'tool')
      .map((m: { content: string }) => m.content);
    assert.deepEqual(results, [
      "billing needs the visitor's credential; a card asking for it is shown.",
      'The visitor saved their credentials for billing.',
    ]);
  });

  it('a server that refuses to connect without a token is offered as one function that asks for it', async () => {
    model.script({ toolCalls: [call('gated__connect', {})] });
    const { client } = await chat('agent_gated');
    const turn = await client.sendMessage('use the gated tools');
    const offered = requests()[0]!.body.tools!.map((t: { function: { name: string } }) => t.function.name);
    assert.ok(offered.includes('gated__connect'));
    assert.ok(!offered.some((name: string) => name.startsWith('gated__list')));
    const [card] = turn.records.flatMap((r) => extractConnectorSetup(r));
    assert.equal(card?.connectorTypeId, 'gated');
  });
});

describe('model runtime: a credential goes only to the server it was given or saved for', () => {
  const tokensSeen = (server: BillingServer, from: number) =>
    server.calls
      .slice(from)
      .filter((c) => c.tool === 'list_invoices')
      .map((c) => c.token);

  it('a saved token is kept for its workspace and server URL: another workspace’s `billing` never gets it', async () => {
    const alice = new SvcClient({ apiKey: 'pk_alice', baseUrl: server.url, maxRetries: 0, agentId: 'agent_billing' });
    model.script({ toolCalls: [call('billing__list_invoices', {})] });
    const conversation = alice.conversation();
    const asked = await conversation.send('show my invoices');
    const [card] = asked.records.flatMap((r) => extractConnectorSetup(r));
    assert.equal(card?.server, new URL(billing.url).host, 'the card names the host of the server that asks');
    assert.equal(card?.agentId, 'agent_billing');
    assert.match(card!.description!, new RegExp(`\\(${new URL(billing.url).host}\\)`));
    model.script({ toolCalls: [call('billing__list_invoices', {})] }, { text: 'Your invoices.' });
    const calls = billing.calls.length;
    await conversation.submitConnectorSetup(card!, { token: ADA_TOKEN });
    assert.deepEqual(tokensSeen(billing, calls), [ADA_TOKEN], 'Billing’s server gets it');

    // The same person talks to another workspace's agent whose server is also named `billing`.
    const seen = other.calls.length;
    model.script({ toolCalls: [call('billing__list_invoices', {})] });
    const elsewhere = await alice.sendMessage('show my invoices', { targetAgentIds: ['agent_globex_billing'] });
    assert.deepEqual(tokensSeen(other, seen), [], 'the other server turns the call away: no token came');
    const [again] = elsewhere.records.flatMap((r) => extractConnectorSetup(r));
    assert.equal(again?.server, new URL(other.url).host, 'and its own card asks for its own token');

    // A plain connector credential named `billing` is not an MCP server's either.
    await alice.chat.submitConnectorCredentials('billing', { token: ADA_TOKEN });
    model.script({ toolCalls: [call('billing__list_invoices', {})] });
    await alice.sendMessage('show my invoices', { targetAgentIds: ['agent_globex_billing'] });
    assert.deepEqual(tokensSeen(other, seen), []);
  });

  it('saving for a server needs an agent the caller may reach that names it', async () => {
    const { token } = await sessionToken(server);
    const put = (agentId: string, name = 'billing') =>
      server.api(`/profile/credentials/${name}`, {
        method: 'PUT',
        token,
        json: { credentials: { token: 'x' }, agentId },
      });
    assert.deepEqual(
      [(await put('agent_globex_billing')).status, (await put('agent_globex_billing')).body.detail],
      [404, 'agent not found'],
    );
    assert.deepEqual((await put('agent_echo')).body, { detail: 'the agent has no MCP server of that name' });
    assert.deepEqual((await put('agent_billing', 'gated')).body, {
      detail: 'the agent has no MCP server of that name',
    });
    const ok = await put('agent_billing');
    assert.deepEqual([ok.status, ok.body.connectorTypeId, ok.body.fields], [200, 'billing', ['token']]);
  });

  it('a delegation forwards the visitor’s token only to a server at the same URL', async () => {
    const { client } = await chat('agent_billing', { mcpTokens: { billing: ADA_TOKEN } });
    const before = [billing.calls.length, other.calls.length] as const;
    // Billing hands over to Relay, whose `billing` is another server.
    model.script(
      { toolCalls: [call('delegate', { agentId: 'agent_relay', task: 'list the invoices' })] },
      { toolCalls: [call('billing__list_invoices', {})] },
    );
    const relayed = await client.sendMessage('show my invoices');
    assert.equal(resultOf(relayed)?.subtype, 'success');
    assert.deepEqual(tokensSeen(other, before[1]), [], 'Relay’s server never gets the token');
    assert.ok(relayed.records.flatMap((r) => extractConnectorSetup(r)).some((c) => c.agentId === 'agent_relay'));

    // Handing over to Twin, whose `billing` is the same server: the token goes with it.
    model.script(
      { toolCalls: [call('delegate', { agentId: 'agent_twin', task: 'list the invoices' })] },
      { toolCalls: [call('billing__list_invoices', {})] },
      { text: 'Two invoices.' },
    );
    const twin = await client.sendMessage('show my invoices', { conversationId: relayed.conversationId });
    assert.equal(resultOf(twin)?.subtype, 'success');
    assert.deepEqual(tokensSeen(billing, before[0]), [ADA_TOKEN]);
  });
});
