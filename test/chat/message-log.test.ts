import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MessageLog } from '../../src/chat/message-log.js';
import {
  assistant,
  attachment,
  collectInfo,
  delta,
  id,
  ORDER,
  paymentGate,
  record,
  resolution,
  result,
  setupConnector,
  status,
  user,
} from '../helpers/records.js';

function logOf(...records: Parameters<MessageLog['apply']>[0][]): MessageLog {
  const log = new MessageLog();
  for (const record of records) log.apply(record);
  return log;
}

describe('MessageLog: records to messages', () => {
  it('grows a reply with each delta, then shows the final content of the assistant record', () => {
    const log = logOf(
      user(1, 'hello'),
      status(2, 'agent_echo', 'typing'),
      delta(3, 'm_1', 'Echo'),
      delta(4, 'm_1', ': hel'),
    );
    const streaming = log.messages[1];
    assert.equal(streaming?.role, 'agent');
    assert.equal(streaming?.text, 'Echo: hel');
    assert.equal(streaming?.streaming, true);

    log.apply(delta(5, 'm_1', 'lo'));
    assert.equal(log.messages[1]?.text, 'Echo: hello');

    log.apply(assistant(6, 'm_1', 'Echo: hello!'));
    const final = log.messages[1];
    assert.equal(final?.id, 'm_1');
    assert.equal(final?.agentId, 'agent_echo');
    assert.equal(final?.text, 'Echo: hello!');
    assert.equal(final?.streaming, false);
    assert.equal(log.messages.length, 2);
  });

  it('shows the user message with its attachments and sender', () => {
    const part = { type: 'image_url' as const, image_url: { url: 'https://files.example/cat.png' } };
    const log = logOf(user(1, 'look', { parts: [part], senderName: 'Ann' }));
    const [message] = log.messages;
    assert.equal(message?.role, 'user');
    assert.equal(message?.id, id(1));
    assert.equal(message?.text, 'look');
    assert.deepEqual(message?.parts, [part]);
    assert.equal(message?.senderName, 'Ann');
    assert.equal(message?.status, 'sent');
  });

  it('ignores a record it has already applied, so replays do not repeat text', () => {
    const log = new MessageLog();
    assert.equal(log.apply(delta(3, 'm_1', 'Hi')), true);
    assert.equal(log.apply(delta(3, 'm_1', 'Hi')), false);
    log.apply(delta(4, 'm_1', ' there'));
    log.apply(delta(4, 'm_1', ' there'));
    assert.equal(log.messages[0]?.text, 'Hi there');
    assert.equal(log.apply(user(1, 'q')), true);
    assert.equal(log.apply(user(1, 'q')), false);
    assert.equal(log.messages.length, 2);
  });

  it('ignores a delta that arrives after the final text', () => {
    const log = logOf(assistant(5, 'm_1', 'Done.'), delta(6, 'm_1', ' more'));
    assert.equal(log.messages[0]?.text, 'Done.');
  });

  it('puts records in id order whatever order they were applied in', () => {
    const log = logOf(user(10, 'second', { turn: 't_2' }), assistant(12, 'm_2', 'two', { turn: 't_2' }));
    log.apply(assistant(3, 'm_1', 'one'));
    log.apply(user(1, 'first'));
    assert.deepEqual(
      log.messages.map((m) => m.text),
      ['first', 'one', 'second', 'two'],
    );
    assert.equal(log.firstId, id(1));
    assert.equal(log.lastId, id(12));
  });

  it('keeps the identity of messages that did not change, so a renderer can skip them', () => {
    const log = logOf(user(1, 'hello'), delta(2, 'm_1', 'a'));
    const before = log.messages;
    assert.equal(log.messages, before, 'the same list while nothing changes');
    log.apply(delta(3, 'm_1', 'b'));
    const after = log.messages;
    assert.notEqual(after, before);
    assert.equal(after[0], before[0], 'the user message is the same object');
    assert.notEqual(after[1], before[1]);
    assert.ok(Object.isFrozen(after[1]));
  });

  it('streams a very long reply at a cost proportional to the new text', () => {
    const log = new MessageLog();
    const started = performance.now();
    for (let n = 1; n <= 100_000; n++) {
      log.apply(delta(n, 'm_long', 'abcdefghij'));
      // A renderer reads the list once per frame, not once per delta.
      if (n % 1000 === 0) assert.equal(log.messages[0]?.text.length, n * 10);
    }
    assert.equal(log.messages[0]?.text.length, 1_000_000);
    assert.ok(performance.now() - started < 10_000, 'a 1 MB reply in 100,000 deltas streams in well under 10 s');
  });

  it('splits a reply into text, blocks and delegations; reserved tools become cards, not blocks', () => {
    const log = logOf(
      assistant(2, 'm_1', [
        { type: 'thinking', thinking: 'Let me look.' },
        { type: 'text', text: 'Here is a picture.' },
        { type: 'image', source: { type: 'url', url: 'https://files.example/sunset.png' } },
        { type: 'tool_use', id: 'tu_1', name: 'web_search', input: { q: 'sunset' } },
        {
          type: 'tool_use',
          id: 'tu_2',
          name: 'delegate',
          input: { agentId: 'agent_scout', agentName: 'Scout', task: 'Find hotels' },
        },
        collectInfo('tu_3'),
      ]),
    );
    const [reply] = log.messages;
    assert.equal(reply?.text, 'Here is a picture.');
    assert.deepEqual(
      reply?.blocks.map((b) => b.type),
      ['thinking', 'image', 'tool_use'],
    );
    // Rendered in the order the agent produced them: the thinking above the text, the rest below it.
    assert.equal(reply?.blocksBeforeText, 1);
    assert.deepEqual(reply?.delegations, [
      { toolUseId: 'tu_2', fromAgentId: 'agent_echo', agentId: 'agent_scout', agentName: 'Scout', task: 'Find hotels' },
    ]);
    assert.equal(reply?.infoCollect[0]?.request.title, 'Shipping address');
    assert.equal(reply?.infoCollect[0]?.answered, false);
  });

  it('makes each agent file and payment card a message of its own', () => {
    const file = { name: 'report.pdf', workspacePath: 'out/report.pdf', mimeType: 'application/pdf', size: 2048 };
    const log = logOf(assistant(2, 'm_1', 'Your file:'), attachment(3, file), paymentGate(4, ORDER));
    assert.deepEqual(
      log.messages.map((m) => m.id),
      ['m_1', id(3), id(4)],
    );
    assert.deepEqual(log.messages[1]?.attachment, file);
    assert.deepEqual(log.messages[2]?.payment, { gate: ORDER, status: 'pending' });
  });
});

describe('MessageLog: cards and payments', () => {
  it('marks an information card answered by a later toolAction message, which is not shown', () => {
    const log = logOf(
      user(1, 'order'),
      assistant(2, 'm_1', [{ type: 'text', text: 'Where to?' }, collectInfo('tu_1')]),
    );
    log.apply(
      user(4, '', {
        turn: 't_2',
        toolAction: true,
        metadata: { infoCollect: { action: 'submit', values: { street: 'Main St 1' }, toolUseId: 'tu_1' } },
      }),
    );
    assert.equal(log.messages.length, 2, 'the card action is not a message');
    assert.deepEqual(log.messages[1]?.infoCollect[0], {
      request: log.messages[1]?.infoCollect[0]?.request,
      answered: true,
      answer: { action: 'submit', values: { street: 'Main St 1' } },
    });
  });

  it('matches an answer without toolUseId to the latest unanswered card before it', () => {
    const log = logOf(
      assistant(2, 'm_1', [collectInfo('tu_1')]),
      user(3, '', { toolAction: true, metadata: { infoCollect: { action: 'skip' } } }),
      assistant(5, 'm_2', [collectInfo('tu_2')], { turn: 't_2' }),
    );
    assert.equal(log.messages[0]?.infoCollect[0]?.answered, true);
    assert.deepEqual(log.messages[0]?.infoCollect[0]?.answer, { action: 'skip' });
    assert.equal(log.messages[1]?.infoCollect[0]?.answered, false, 'a card after the answer stays open');
  });

  it('marks a card answered when the older page holding it loads after the answer', () => {
    const log = logOf(
      user(20, '', {
        turn: 't_2',
        toolAction: true,
        metadata: { connectorSetup: { connectorTypeId: 'github', status: 'submitted' } },
      }),
    );
    log.apply(assistant(2, 'm_1', [setupConnector('tu_1', 'slack'), setupConnector('tu_2', 'github')]));
    const cards = log.messages[0]?.connectorSetup ?? [];
    assert.deepEqual(
      cards.map((c) => [c.request.connectorTypeId, c.answered]),
      [
        ['slack', false],
        ['github', true],
      ],
    );
  });

  it('merges the resolution of a payment into its card, also when it comes first', () => {
    const log = logOf(paymentGate(4, ORDER));
    log.apply(resolution(9, 'o_1', 'paid'));
    assert.deepEqual(log.messages[0]?.payment, { gate: ORDER, status: 'paid' });
    assert.equal(log.messages.length, 1, 'a resolution is not a message');

    const early = logOf(resolution(9, 'o_1', 'expired'));
    early.apply(paymentGate(4, ORDER));
    assert.equal(early.messages[0]?.payment?.status, 'expired');

    const late = logOf(paymentGate(4, ORDER), resolution(9, 'o_1', 'canceled'));
    late.apply(resolution(7, 'o_1', 'pending'));
    assert.equal(late.messages[0]?.payment?.status, 'canceled', 'the newest resolution wins');
  });
});

describe('MessageLog: the end of a turn', () => {
  it('keeps the running turn and the agents’ statuses from the newest records only', () => {
    const log = logOf(user(5, 'hi', { turn: 't_2' }), status(6, 'agent_echo', 'typing', { turn: 't_2' }));
    assert.equal(log.turn.open, true);
    assert.equal(log.turn.start, id(5));
    assert.deepEqual(log.turn.agentStatus, { agent_echo: 'typing' });
    // An older page of history, applied after the live records, is history: it neither ends nor restarts the turn.
    for (const record of [user(1, 'earlier'), status(2, 'agent_echo', 'thinking'), result(3, 'success')]) {
      log.apply(record);
    }
    assert.equal(log.turn.open, true);
    assert.equal(log.turn.start, id(5));
    assert.deepEqual(log.turn.agentStatus, { agent_echo: 'typing' });
    log.apply(result(7, 'success', { turn: 't_2', agentIds: ['agent_echo', 'agent_scout'] }));
    assert.equal(log.turn.open, false);
    assert.deepEqual(log.turn.agentStatus, { agent_echo: 'idle', agent_scout: 'idle' });
  });

  it('shows a failed turn on its last reply, or as a system row when nothing was replied', () => {
    const failed = logOf(
      user(1, 'hi'),
      delta(2, 'm_1', 'Working'),
      result(3, 'error', { error: 'the model is overloaded' }),
    );
    assert.equal(failed.messages[1]?.error, 'the model is overloaded');
    assert.equal(failed.messages[1]?.streaming, false);

    const silent = logOf(user(1, 'hi'), result(2, 'error', { error: 'no credits left' }));
    assert.equal(silent.messages[1]?.role, 'system');
    assert.equal(silent.messages[1]?.error, 'no credits left');
  });

  it('puts a failure without `turnId` on its own turn’s reply, whichever order the records came in', () => {
    // A long history page is applied newest slice first: the older turn's records come after the newer turn's.
    const records = [
      user(1, 'first'),
      user(4, 'second'),
      assistant(5, 'm_2', 'Second answer.'),
      assistant(2, 'm_1', 'First answer.'),
      result(3, 'error', { error: 'the model is overloaded' }),
    ];
    const log = logOf(...records.map(({ turnId: _, ...record }) => record));
    assert.deepEqual(
      log.messages.map((message) => [message.text, message.error]),
      [
        ['first', undefined],
        ['First answer.', 'the model is overloaded'],
        ['second', undefined],
        ['Second answer.', undefined],
      ],
    );
  });

  it('flags the reply of an interrupted turn', () => {
    const log = logOf(
      user(1, '/slow 5'),
      delta(2, 'm_1', 'one two'),
      assistant(3, 'm_1', 'one two'),
      result(4, 'interrupted'),
    );
    assert.equal(log.messages[1]?.interrupted, true);
    assert.equal(log.messages[1]?.text, 'one two');
    assert.equal(log.messages[0]?.interrupted, false);
  });

  it('gives the text of a finished turn across its replies', () => {
    const log = logOf(
      user(1, 'plan a trip'),
      assistant(2, 'm_1', 'Asking Scout.', { agent: 'agent_demo' }),
      assistant(3, 'm_2', 'Three hotels found.', { agent: 'agent_scout' }),
      result(4, 'success'),
    );
    assert.equal(log.turnText(result(4, 'success')), 'Asking Scout.\n\nThree hotels found.');
  });
});

describe('MessageLog: the user’s unsent messages', () => {
  it('shows a local message at once and swaps it for the stored record, keeping its key', () => {
    const log = logOf(user(1, 'earlier'), assistant(2, 'm_1', 'ok'));
    const localId = log.addLocal({ text: 'new question' });
    assert.equal(log.messages.at(-1)?.status, 'sending');
    log.apply(user(3, 'new question', { turn: 't_2' }), localId);
    const stored = log.messages.at(-1);
    assert.equal(stored?.id, id(3));
    assert.equal(stored?.key, localId);
    assert.equal(stored?.status, 'sent');
    assert.equal(log.messages.length, 3);
  });

  it('adopts a local message when its record arrives before the send returns', () => {
    const log = new MessageLog();
    const localId = log.addLocal({ text: 'hi' });
    log.apply(user(1, 'hi'));
    assert.equal(log.messages.length, 1);
    assert.equal(log.messages[0]?.key, localId);
    assert.equal(log.apply(user(1, 'hi'), localId), false, 'the send result is then a duplicate');
    assert.equal(log.messages.length, 1);
  });

  it('keeps a message being sent last, and a failed one where it failed', () => {
    const log = logOf(user(1, 'first'), delta(2, 'm_1', 'Thinking'));
    const sending = log.addLocal({ text: 'are you there?' });
    log.apply(delta(3, 'm_2', 'Another reply'));
    assert.deepEqual(
      log.messages.map((m) => m.text),
      ['first', 'Thinking', 'Another reply', 'are you there?'],
    );
    log.markFailed(sending, 'a reply is still running in this conversation');
    log.apply(delta(4, 'm_3', 'Later reply'));
    assert.deepEqual(
      log.messages.map((m) => [m.text, m.status ?? null]),
      [
        ['first', 'sent'],
        ['Thinking', null],
        ['Another reply', null],
        ['are you there?', 'failed'],
        ['Later reply', null],
      ],
    );
    assert.equal(log.markRetrying(sending), true);
    assert.equal(log.messages.at(-1)?.text, 'are you there?');
    assert.equal(log.messages.at(-1)?.status, 'sending');
    assert.equal(log.markRetrying(sending), false, 'only a failed message is retried');
  });
});

describe('MessageLog: replaced turns (regenerate, edit)', () => {
  const turns = () => [
    user(1, 'Helo', { turn: 't_1' }),
    assistant(2, 'm_1', 'Echo: Helo', { turn: 't_1' }),
    result(3, 'success', { turn: 't_1' }),
    user(4, 'Hello', { turn: 't_2', replaces: 't_1' }),
    assistant(5, 'm_2', 'Echo: Hello', { turn: 't_2' }),
    result(6, 'success', { turn: 't_2' }),
  ];
  const shown = (log: MessageLog) => log.messages.map((m) => [m.role, m.text]);

  it('leaves out the turn a later question replaces, in whichever order the records come', () => {
    const expected = [
      ['user', 'Hello'],
      ['agent', 'Echo: Hello'],
    ];
    assert.deepEqual(shown(logOf(...turns())), expected);
    assert.deepEqual(shown(logOf(...turns().reverse())), expected);
    // Without `replaces`, both turns show (the control).
    const plain = turns().map((r) => (r.raw.type === 'user' ? { ...r, raw: { ...r.raw, replaces: undefined } } : r));
    assert.equal(logOf(...plain).messages.length, 4);
  });
});

describe('MessageLog: a person in the conversation', () => {
  const alex = { id: 'op_1', name: 'Alex', avatarUrl: 'https://example.com/alex.png' };
  const joined = record(3, { type: 'operator_joined', operator: alex });
  const said = record(4, {
    type: 'operator_message',
    operator: alex,
    message: { id: 'om_1', content: [{ type: 'text', text: 'Hi, I am Alex.' }] },
  });
  const left = record(5, { type: 'operator_left', operator: alex, action: 'released' });

  it("shows a person's message as theirs, and who answers from the newest record, in any order", () => {
    const log = logOf(user(1, 'help'), record(2, { type: 'handoff_requested', by: 'visitor' }));
    assert.deepEqual(log.handoff.status, { state: 'waiting', at: id(2) });
    log.apply(said);
    log.apply(joined);
    assert.equal(log.handoff.status.state, 'human');
    assert.deepEqual(log.handoff.status.operator, alex);
    const message = log.messages.at(-1)!;
    assert.deepEqual(
      { role: message.role, text: message.text, name: message.senderName, avatar: message.senderAvatar },
      { role: 'agent', text: 'Hi, I am Alex.', name: 'Alex', avatar: alex.avatarUrl },
    );
    assert.deepEqual(message.operator, alex);

    // An older page of history after the live records changes nothing of who answers.
    const reloaded = logOf(left, joined, record(2, { type: 'handoff_requested', by: 'visitor' }));
    assert.deepEqual(reloaded.handoff.status, { state: 'agent', at: id(5), ended: 'released' });
    // The history page's `handoff` says the same as its newest record, and an older one is ignored.
    assert.equal(reloaded.handoff.adopt({ state: 'human', operator: alex, at: id(3) }), false);
    assert.equal(reloaded.handoff.status.ended, 'released');
  });

  it('says nobody came in time', () => {
    const log = logOf(
      record(2, { type: 'handoff_requested', by: 'agent' }),
      record(6, { type: 'handoff_unanswered', waitedSeconds: 120 }),
    );
    assert.deepEqual(log.handoff.status, { state: 'agent', at: id(6), ended: 'unanswered' });
  });
});
