import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type AgentTurn,
  type ChatStreamRecord,
  compareRecordIds,
  extractConnectorSetup,
  extractDelegations,
  extractFileAttachment,
  extractImages,
  extractInfoCollect,
  extractPaymentGate,
  extractPaymentResolution,
  extractSuggestions,
  extractText,
  extractToolCalls,
  infoCollectSkipMetadata,
  infoCollectSubmitMetadata,
  isAgentRecord,
  isConnectorSetup,
  isDelegationTool,
  isInfoCollect,
  isInterrupt,
  isPaymentGate,
  isTurnComplete,
  RESERVED_TOOL_NAMES,
  type SvcClient,
} from '../../src/index.js';
import { visitorClient } from '../helpers/client.js';
import { assistant, id } from '../helpers/records.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('client: record ids', () => {
  it('orders ids of different lengths numerically', () => {
    assert.ok(compareRecordIds('9', '10') < 0);
    assert.ok(compareRecordIds(id(9), id(10)) < 0);
    assert.equal(compareRecordIds(id(5), id(5)), 0);
  });
});

describe('client: suggested replies of a stored record are checked', () => {
  const offered = (...inputs: unknown[]) =>
    extractSuggestions(
      assistant(
        1,
        'm_1',
        inputs.map((input, i) => ({
          type: 'tool_use',
          id: `toolu_${i}`,
          name: 'suggest_replies',
          input: input as Record<string, unknown>,
        })),
      ),
    );

  it('keeps trimmed, non-empty strings; drops everything else', () => {
    assert.deepEqual(offered({ suggestions: ['  Yes please ', '', '   ', 42, null, { text: 'x' }, ['y'], 'No'] }), [
      'Yes please',
      'No',
    ]);
    assert.deepEqual(offered({ suggestions: 'Yes' }), [], 'not a list');
    assert.deepEqual(offered({}), []);
  });

  it('bounds them: 4 at most over every call, 80 characters each, no repeats', () => {
    const long = `${'é'.repeat(79)}😀😀`;
    assert.deepEqual(offered({ suggestions: ['a', 'b', 'a'] }, { suggestions: ['c', 'd', 'e'] }), ['a', 'b', 'c', 'd']);
    const [cut] = offered({ suggestions: [long] });
    assert.equal([...cut!].length, 80);
    assert.equal(cut, `${'é'.repeat(79)}😀`, 'cut between characters, not inside one');
  });

  it('reads only suggest_replies calls', () => {
    const record = assistant(1, 'm_1', [
      { type: 'text', text: 'Hi' },
      { type: 'tool_use', id: 't', name: 'get_weather', input: { suggestions: ['x'] } },
    ]);
    assert.deepEqual(extractSuggestions(record), []);
  });
});

/** The one record of a turn the predicate picks. */
function only(turn: AgentTurn, pick: (r: ChatStreamRecord) => boolean): ChatStreamRecord {
  const found = turn.records.filter(pick);
  assert.equal(found.length, 1, `expected one record, got ${found.length}`);
  return found[0]!;
}

describe('client: record helpers on the demo agent’s records', () => {
  let server: TestServer;
  let client: SvcClient;
  before(async () => {
    server = await startTestServer();
    client = await visitorClient(server, { agentId: 'agent_demo' });
  });
  after(() => server.close());

  const demo = (message: string) => client.sendMessage(message, { newConversation: true });

  it('extractText reads assistant and user messages; deltas, status and thinking are not text', async () => {
    const turn = await demo('/think');
    const reply = only(turn, (r) => r.raw.type === 'assistant');
    assert.equal(extractText(reply), 'The answer is **42**.');
    for (const record of turn.records.filter((r) => r.raw.type !== 'assistant')) assert.equal(extractText(record), '');
    const { entries } = await client.chat.messages(turn.conversationId);
    assert.equal(extractText(entries.find((r) => r.raw.type === 'user')!), '/think');
  });

  it('isTurnComplete and isAgentRecord', async () => {
    const turn = await demo('/help');
    assert.deepEqual(
      turn.records.map(isTurnComplete),
      turn.records.map((_, i) => i === turn.records.length - 1),
    );
    assert.ok(turn.records.filter((r) => r.raw.type !== 'result').every(isAgentRecord));
    assert.equal(isAgentRecord(turn.records.at(-1)!), false, 'the result comes from the system');
    assert.equal(isInterrupt(turn.records.at(-1)!), false);
  });

  it('extractToolCalls lists the tool calls; the turn collects them', async () => {
    const turn = await demo('/tool');
    assert.deepEqual(
      turn.toolCalls.map(({ name, input }) => ({ name, input })),
      [
        { name: 'get_weather', input: { city: 'Shanghai' } },
        { name: 'list_events', input: { day: 'today' } },
      ],
    );
    assert.ok(turn.toolCalls.every((call) => typeof call.id === 'string'));
    const withTools = turn.records.filter((r) => extractToolCalls(r).length > 0);
    assert.equal(withTools.length, 1);
    assert.equal(turn.text.split('\n\n').length, 2, 'text before and after the tools, as two paragraphs');
  });

  it('a failed turn ends with an error result', async () => {
    const turn = await demo('/error');
    assert.equal(turn.result?.type === 'result' && turn.result.subtype, 'error');
    assert.equal(
      turn.result?.type === 'result' && turn.result.error,
      'This reply failed on purpose, to show what a failed reply looks like.',
    );
    assert.ok(isTurnComplete(turn.records.at(-1)!));
  });

  it('information-collection card: extract, then answer or skip with the metadata helpers', async () => {
    const conversation = client.conversation();
    const turn = await conversation.send('/form');
    const card = only(turn, isInfoCollect);
    const payload = extractInfoCollect(card)!;
    assert.equal(payload.title, 'Book a demo');
    assert.equal(payload.submitLabel, 'Send');
    assert.equal(payload.toolUseId, turn.toolCalls[0]?.id);
    assert.deepEqual(
      payload.fields.map((f) => [f.name, f.type]),
      [
        ['name', 'text'],
        ['email', 'email'],
        ['phone', 'phone'],
        ['seats', 'number'],
        ['date', 'date'],
        ['plan', 'select'],
        ['notes', 'textarea'],
      ],
    );
    assert.deepEqual(payload.fields.find((f) => f.name === 'plan')?.options, ['Starter', 'Team', 'Enterprise']);

    const metadata = infoCollectSubmitMetadata({ name: 'Ada', email: 'ada@example.com' }, payload.toolUseId);
    assert.deepEqual(metadata, {
      infoCollect: {
        action: 'submit',
        values: { name: 'Ada', email: 'ada@example.com' },
        toolUseId: payload.toolUseId,
      },
    });
    const answered = await conversation.send('', { toolAction: true, metadata });
    assert.equal(answered.text, 'Thank you! I received:\n\n- **name**: Ada\n- **email**: ada@example.com');

    assert.deepEqual(infoCollectSkipMetadata(), { infoCollect: { action: 'skip' } });
    const skipped = await conversation.send('', {
      toolAction: true,
      metadata: infoCollectSkipMetadata(payload.toolUseId),
    });
    assert.equal(skipped.text, 'No problem, we can skip the form.');
  });

  it('connector-setup card', async () => {
    const turn = await demo('/connect github');
    const card = only(turn, isConnectorSetup);
    const [setup, ...rest] = extractConnectorSetup(card);
    assert.equal(rest.length, 0);
    assert.equal(setup?.connectorTypeId, 'github');
    assert.equal(setup?.name, 'GitHub');
    assert.equal(setup?.toolUseId, turn.toolCalls[0]?.id);
    assert.deepEqual(
      setup?.fields.map((f) => [f.name, f.secret ?? false, f.required ?? false]),
      [
        ['api_key', true, true],
        ['account', false, false],
      ],
    );
    assert.deepEqual(extractConnectorSetup(turn.records.at(-1)!), []);
  });

  it('delegation to another agent', async () => {
    const turn = await demo('/delegate say hi');
    const handOver = turn.records.find((r) => extractDelegations(r).length > 0)!;
    assert.deepEqual(extractDelegations(handOver), [
      {
        toolUseId: turn.toolCalls.find((c) => isDelegationTool(c.name))!.id,
        fromAgentId: 'agent_demo',
        agentId: 'agent_scout',
        agentName: 'Scout',
        task: 'say hi',
      },
    ]);
    assert.ok(isDelegationTool(RESERVED_TOOL_NAMES.delegate));
    assert.equal(isDelegationTool('get_weather'), false);
    const scout = turn.records.filter((r) => r.raw.type === 'assistant' && r.raw.agentId === 'agent_scout');
    assert.equal(scout.length, 1);
    assert.ok(isAgentRecord(scout[0]!));
    assert.match(extractText(scout[0]!), /taking over from Demo/);
  });

  it('suggested replies: the strings of a suggest_replies call, offered with the reply', async () => {
    const turn = await demo('/suggest');
    const reply = only(turn, (r) => r.raw.type === 'assistant');
    assert.deepEqual(extractSuggestions(reply), ['/think', '/markdown', '/help']);
    assert.equal(extractText(reply), 'Here are a few things to try next.');
    assert.deepEqual(
      turn.toolCalls.map((c) => c.name),
      [RESERVED_TOOL_NAMES.suggestReplies],
    );
    assert.deepEqual(extractSuggestions(only(turn, isTurnComplete)), [], 'no suggestions outside a reply');
  });

  it('images of a reply, served from a capability URL', async () => {
    const turn = await demo('/image');
    const [url, ...rest] = turn.records.flatMap(extractImages);
    assert.equal(rest.length, 0);
    const res = await fetch(url!);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/svg+xml');
  });

  it('file attachments', async () => {
    const turn = await demo('/file');
    const files = turn.records.map(extractFileAttachment).filter((f) => f !== null);
    assert.deepEqual(
      files.map((f) => [f.name, f.workspacePath, f.mimeType]),
      [
        ['report.md', 'report.md', 'text/markdown'],
        ['data.csv', 'data.csv', 'text/csv'],
      ],
    );
    assert.ok(files.every((f) => typeof f.size === 'number' && f.size > 0));
  });

  it('payment card and its resolution', async () => {
    const conversation = client.conversation();
    const turn = await conversation.send('/pay 9.9');
    const card = only(turn, isPaymentGate);
    const payment = extractPaymentGate(card)!;
    assert.equal(payment.amountCny, 9.9);
    assert.equal(payment.payUrl, `${server.url}/pay/${payment.orderId}`);
    assert.equal(extractPaymentGate(turn.records.at(-1)!), null);

    const resolution = (async () => {
      for await (const record of client.chat.stream(conversation.id!, { lastEventId: turn.lastEventId })) {
        const resolved = extractPaymentResolution(record);
        if (resolved) return resolved;
      }
    })();
    const click = await fetch(`${payment.payUrl}/pay`, { method: 'POST', redirect: 'manual' });
    assert.ok(click.status < 400, `pay page answered ${click.status}`);
    assert.deepEqual(await resolution, { orderId: payment.orderId, status: 'paid' });
  });

  it('an interrupted turn', async () => {
    const conversation = client.conversation();
    let last: ChatStreamRecord | undefined;
    let stopped = false;
    for await (const record of conversation.stream('/slow 20')) {
      if (record.raw.type === 'assistant_delta' && !stopped) stopped = (await conversation.interrupt()).interrupted;
      last = record;
    }
    assert.ok(isInterrupt(last!));
    assert.ok(isTurnComplete(last!));
  });
});
