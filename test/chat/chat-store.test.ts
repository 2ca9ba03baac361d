import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { ChatStore, type ChatStoreEvents } from '../../src/chat/chat-store.js';
import type { SendResult } from '../../src/protocol/conversation-types.js';
import { apiError, deferred, FakeChatApi, settle, storedAs } from '../helpers/fake-chat-api.js';
import {
  assistant,
  CONVERSATION,
  collectInfo,
  delta,
  id,
  ORDER,
  paymentGate,
  resolution,
  result,
  status,
  suggestReplies,
  user,
} from '../helpers/records.js';

const stores: ChatStore[] = [];

function setup(options: { targetAgentIds?: string[] } = {}) {
  const api = new FakeChatApi();
  const store = new ChatStore({ api, ...options });
  stores.push(store);
  const events: { [K in keyof ChatStoreEvents]: ChatStoreEvents[K][] } = {
    'message-sent': [],
    'turn-complete': [],
    error: [],
    'conversation-change': [],
    feedback: [],
  };
  for (const type of Object.keys(events) as (keyof ChatStoreEvents)[]) {
    store.on(type, (detail) => (events[type] as unknown[]).push(detail));
  }
  return { api, store, events };
}

/** A store already in conversation CONVERSATION, with its stream open after record `n`. */
async function inConversation(n = 0) {
  const context = setup();
  context.api.historyPages.push({
    entries: n ? [user(n - 1, 'earlier', { turn: 't_0' }), result(n, 'success', { turn: 't_0' })] : [],
    hasMore: false,
  });
  await context.store.load(CONVERSATION);
  return context;
}

afterEach(() => {
  for (const store of stores.splice(0)) store.dispose();
});

describe('ChatStore: sending', () => {
  it('shows the message at once, then reconciles it with the stored record and reads the reply after it', async () => {
    const { api, store, events } = setup({ targetAgentIds: ['agent_echo'] });
    const answer = deferred<SendResult>();
    api.sendAnswers.push(() => answer.promise);

    const sending = store.send('hello', { senderName: 'Ann' });
    const [shown] = store.messages;
    assert.equal(shown?.text, 'hello');
    assert.equal(shown?.status, 'sending');
    assert.equal(shown?.senderName, 'Ann');
    assert.equal(store.running, true);

    await settle();
    assert.deepEqual(api.sent[0], {
      message: 'hello',
      senderName: 'Ann',
      newConversation: true,
      targetAgentIds: ['agent_echo'],
    });
    answer.resolve(storedAs(api.sent[0]!, 7));
    const sent = await sending;

    assert.equal(sent?.conversationId, CONVERSATION);
    assert.equal(store.conversationId, CONVERSATION);
    assert.deepEqual(events['conversation-change'], [{ conversationId: CONVERSATION }]);
    assert.equal(events['message-sent'].length, 1);
    const [stored] = store.messages;
    assert.equal(stored?.id, id(7));
    assert.equal(stored?.key, shown?.key, 'the row keeps its key');
    assert.equal(stored?.status, 'sent');
    assert.equal(api.lastStream.conversationId, CONVERSATION);
    assert.equal(api.lastStream.options.lastEventId, id(7), 'the reply is read after the sent message');
    assert.equal(store.running, true, 'the reply is still to come');
  });

  it('does not show a message twice when the stream delivers it before the send returns', async () => {
    const { api, store } = await inConversation(2);
    const answer = deferred<SendResult>();
    api.sendAnswers.push(() => answer.promise);
    const sending = store.send('second');
    await settle();
    api.lastStream.push(user(3, 'second', { turn: 't_1' }), status(4, 'agent_echo', 'thinking'));
    await settle();
    answer.resolve(storedAs(api.sent[0]!, 3));
    await sending;
    assert.deepEqual(
      store.messages.map((m) => [m.text, m.status]),
      [
        ['earlier', 'sent'],
        ['second', 'sent'],
      ],
    );
    assert.equal(api.sent[0]?.conversationId, CONVERSATION);
    assert.equal(api.sent[0]?.newConversation, undefined);
    assert.equal(api.streams.length, 1, 'the open stream is kept');
  });

  it('keeps a failed message with its error and resends it on retry', async () => {
    const { api, store, events } = await inConversation(2);
    api.sendAnswers.push(() => Promise.reject(apiError(409, 'a reply is still running in this conversation')));
    assert.equal(await store.send('too soon'), undefined);

    const failed = store.messages.at(-1);
    assert.equal(failed?.status, 'failed');
    assert.equal(failed?.error, 'a reply is still running in this conversation');
    assert.equal(store.error, 'a reply is still running in this conversation');
    assert.deepEqual(
      events.error.map(({ message, status }) => ({ message, status })),
      [{ message: 'a reply is still running in this conversation', status: 409 }],
    );
    assert.equal(store.running, false);

    const retrying = store.retry(failed!.id);
    assert.equal(store.messages.at(-1)?.status, 'sending');
    assert.equal(store.messages.at(-1)?.error, undefined);
    api.recordIdsFrom(3);
    assert.ok(await retrying);
    assert.equal(api.sent.length, 2);
    assert.equal(api.sent[1]?.message, 'too soon');
    assert.deepEqual(
      store.messages.map((m) => [m.text, m.status]),
      [
        ['earlier', 'sent'],
        ['too soon', 'sent'],
      ],
    );
    assert.equal(await store.retry(store.messages.at(-1)!.id), undefined, 'a sent message is not resent');
  });

  it('keeps messages the service did not answer in an outbox, and sends them once, in order, under their keys', async () => {
    const { api, store } = setup();
    const unreachable = () => Promise.reject(new TypeError('Failed to fetch'));
    api.sendAnswers.push(unreachable);
    assert.equal(await store.send('first'), undefined);
    // A second message waits behind the first, without trying: messages arrive in the order written.
    assert.equal(await store.send('second'), undefined);
    assert.deepEqual(
      api.sent.map((r) => r.message),
      ['first'],
    );
    assert.deepEqual(
      store.outbox.ids,
      store.messages.map((m) => m.id),
    );
    assert.deepEqual(
      store.messages.map((m) => m.status),
      ['failed', 'failed'],
    );
    // Still unreachable: the first fails again and the second is not tried.
    api.sendAnswers.push(unreachable);
    await store.outbox.send();
    assert.deepEqual(
      api.sent.map((r) => r.message),
      ['first', 'first'],
    );
    assert.equal(store.outbox.ids.length, 2);
    // Back: both go, in order, each under the key of its first try; twice asked, once sent. The second goes
    // once the first one's reply ended: the service takes no message while a reply runs.
    const flushing = Promise.all([store.outbox.send(), store.outbox.send()]);
    await settle();
    assert.deepEqual(
      api.sent.map((r) => r.message),
      ['first', 'first', 'first'],
    );
    assert.equal(store.running, true);
    api.recordIdsFrom(3);
    api.lastStream.push(result(2, 'success'));
    await flushing;
    await settle();
    assert.deepEqual(
      api.sent.map((r) => r.message),
      ['first', 'first', 'first', 'second'],
    );
    assert.equal(api.keys[0], api.keys[1]);
    assert.equal(api.keys[1], api.keys[2]);
    assert.notEqual(api.keys[3], api.keys[0]);
    assert.deepEqual(store.outbox.ids, []);
    assert.deepEqual(
      store.messages.map((m) => [m.text, m.status]),
      [
        ['first', 'sent'],
        ['second', 'sent'],
      ],
    );
  });

  it('lets the visitor write on while messages wait in the outbox: nothing is being sent', async () => {
    const { api, store } = setup();
    api.sendAnswers.push(() => Promise.reject(new TypeError('Failed to fetch')));
    assert.equal(await store.send('first'), undefined);
    assert.equal(store.running, false, 'after a message that got no answer');
    assert.equal(await store.send('second'), undefined);
    assert.deepEqual(store.outbox.ids.length, 2);
    assert.equal(store.running, false, 'after a message that waits behind it, the send button is back');
  });

  it('sends a message written while the outbox is being sent after the reply to the one before it', async () => {
    const { api, store } = setup();
    api.sendAnswers.push(() => Promise.reject(new TypeError('Failed to fetch')));
    await store.send('first');
    // Back online: the outbox's try of the first gets no answer yet, and the visitor writes a second meanwhile.
    const answer = deferred<SendResult>();
    api.sendAnswers.push(() => answer.promise);
    const flushing = store.outbox.send();
    await settle();
    const second = store.send('second');
    answer.resolve(storedAs(api.sent.at(-1)!, 1));
    await second;
    await settle();
    // The first is stored and its reply runs: the service would refuse the second now (409).
    assert.deepEqual(
      api.sent.map((r) => r.message),
      ['first', 'first'],
    );
    assert.equal(store.messages.find((m) => m.text === 'second')?.status, 'failed', 'shown as waiting');
    api.recordIdsFrom(3);
    api.lastStream.push(result(2, 'success'));
    await flushing;
    await settle();
    assert.deepEqual(
      api.sent.map((r) => r.message),
      ['first', 'first', 'second'],
    );
    assert.deepEqual(
      store.messages.map((m) => [m.text, m.status]),
      [
        ['first', 'sent'],
        ['second', 'sent'],
      ],
    );
  });

  it('sends each message under a key of its own, and a retry under its first try’s key and request', async () => {
    const { api, store } = setup();
    // The first try of a new conversation's first message is lost on the way back; another message follows.
    api.sendAnswers.push(() => Promise.reject(apiError(502, 'bad gateway')));
    assert.equal(await store.send('lost answer'), undefined);
    assert.ok(await store.send('next one'));
    assert.ok(await store.retry(store.messages.find((m) => m.text === 'lost answer')!.id));
    const [first, second, retried] = api.keys;
    assert.match(first!, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.notEqual(second, first);
    assert.equal(retried, first);
    // The same request as its first try (a new conversation), so the service can answer it with what it stored.
    assert.deepEqual(api.sent[2], api.sent[0]);
  });

  it('sends one message at a time, so a second message joins the conversation the first created', async () => {
    const { api, store } = setup();
    const first = store.send('one');
    const second = store.send('two');
    await Promise.all([first, second]);
    assert.equal(api.sent[0]?.newConversation, true);
    assert.equal(api.sent[1]?.conversationId, CONVERSATION);
    assert.equal(api.sent[1]?.newConversation, undefined);
    assert.deepEqual(
      store.messages.map((m) => m.text),
      ['one', 'two'],
    );
    assert.equal(api.streams.length, 1);
  });

  it('sends nothing for an empty message without attachments', async () => {
    const { api, store } = setup();
    assert.equal(await store.send('   '), undefined);
    assert.equal(api.sent.length, 0);
    assert.equal(store.messages.length, 0);
  });

  it('answers a card with a toolAction message that marks the card answered instead of showing', async () => {
    const { api, store, events } = await inConversation(2);
    api.lastStream.push(
      user(3, 'book it', { turn: 't_1' }),
      assistant(4, 'm_1', [collectInfo('tu_1')]),
      result(5, 'success'),
    );
    await settle();
    api.recordIdsFrom(6);
    const metadata = { infoCollect: { action: 'submit', values: { street: 'Main St 1' }, toolUseId: 'tu_1' } };
    const sent = await store.send('', { toolAction: true, metadata });
    assert.ok(sent);
    assert.deepEqual(api.sent[0], { message: '', toolAction: true, metadata, conversationId: CONVERSATION });
    assert.equal(store.messages.length, 3, 'no message for the card action');
    assert.equal(store.messages[2]?.infoCollect[0]?.answered, true);
    assert.equal(events['message-sent'].length, 1);
  });
});

describe('ChatStore: the reply', () => {
  it('streams deltas, shows the final text, reports agent statuses and completes the turn', async () => {
    const { api, store, events } = setup();
    await store.send('hello');
    const stream = api.lastStream;
    stream.connection('open');
    stream.push(status(2, 'agent_echo', 'thinking'), status(3, 'agent_echo', 'typing'), delta(4, 'm_1', 'Echo'));
    await settle();
    assert.equal(store.connection, 'open');
    assert.deepEqual(store.agentStatus, { agent_echo: 'typing' });
    assert.equal(store.messages[1]?.text, 'Echo');
    assert.equal(store.messages[1]?.streaming, true);

    stream.push(
      delta(5, 'm_1', ': hello'),
      assistant(6, 'm_1', 'Echo: hello'),
      status(7, 'agent_echo', 'idle'),
      result(8, 'success'),
    );
    await settle();
    assert.equal(store.messages[1]?.text, 'Echo: hello');
    assert.equal(store.messages[1]?.streaming, false);
    assert.equal(store.running, false);
    assert.deepEqual(store.agentStatus, { agent_echo: 'idle' });
    assert.deepEqual(events['turn-complete'], [
      { conversationId: CONVERSATION, turnId: 't_1', subtype: 'success', text: 'Echo: hello' },
    ]);
  });

  it('tracks the status of each agent of a multi-agent turn', async () => {
    const { api, store } = setup({ targetAgentIds: ['agent_demo', 'agent_scout'] });
    await store.send('plan a trip');
    api.lastStream.push(
      status(2, 'agent_demo', 'thinking'),
      status(3, 'agent_scout', 'tool'),
      status(4, 'agent_demo', 'typing'),
    );
    await settle();
    assert.deepEqual(store.agentStatus, { agent_demo: 'typing', agent_scout: 'tool' });
    api.lastStream.push(
      assistant(5, 'm_a', 'Scout is looking.', { agent: 'agent_demo' }),
      assistant(6, 'm_b', 'Found three.', { agent: 'agent_scout' }),
      result(7, 'success', { agentIds: ['agent_demo', 'agent_scout'] }),
    );
    await settle();
    assert.deepEqual(store.agentStatus, { agent_demo: 'idle', agent_scout: 'idle' });
    assert.deepEqual(
      store.messages.map((m) => [m.role, m.agentId ?? null]),
      [
        ['user', null],
        ['agent', 'agent_demo'],
        ['agent', 'agent_scout'],
      ],
    );
  });

  it('interrupts the running reply and flags it when the stream reports the end', async () => {
    const { api, store, events } = setup();
    await store.send('/slow 5');
    api.lastStream.push(delta(2, 'm_1', 'one two'));
    await settle();
    const stopped = await store.interrupt();
    assert.deepEqual(stopped, { interrupted: true, turnId: 't_1' });
    assert.deepEqual(api.interrupts, [CONVERSATION]);
    assert.equal(store.running, true, 'running until the stream reports the end');

    api.lastStream.push(assistant(3, 'm_1', 'one two'), result(4, 'interrupted'));
    await settle();
    assert.equal(store.running, false);
    assert.equal(store.messages[1]?.interrupted, true);
    assert.equal(store.messages[1]?.text, 'one two');
    assert.equal(events['turn-complete'][0]?.subtype, 'interrupted');
  });

  it('stops showing a reply as running when the service says none is', async () => {
    const { api, store } = setup();
    await store.send('hello');
    assert.equal(store.running, true);
    api.interruptAnswer = { interrupted: false, reason: 'no reply is running' };
    await store.interrupt();
    assert.equal(store.running, false);
  });

  it('shows the error of a failed turn on the reply and reports it', async () => {
    const { api, store, events } = setup();
    await store.send('/error');
    api.lastStream.push(delta(2, 'm_1', 'Let me'), result(3, 'error', { error: 'the demo failed on purpose' }));
    await settle();
    assert.equal(store.messages[1]?.error, 'the demo failed on purpose');
    assert.equal(store.messages[1]?.streaming, false);
    assert.equal(store.error, 'the demo failed on purpose');
    assert.equal(events.error[0]?.message, 'the demo failed on purpose');
    assert.equal(events['turn-complete'][0]?.error, 'the demo failed on purpose');
  });

  it('offers the suggested replies of the last finished reply, not while a turn runs nor after a failed one', async () => {
    const { api, store } = setup();
    await store.send('plans?');
    const reply = (n: number, messageId: string, turn = 't_1') =>
      assistant(n, messageId, [{ type: 'text', text: 'Starter or Pro.' }, suggestReplies(`tu_${n}`, ['Pro', ' '])], {
        turn,
      });
    api.lastStream.push(delta(2, 'm_1', 'Starter'), reply(3, 'm_1'));
    await settle();
    assert.deepEqual(store.messages[1]?.suggestions, ['Pro'], 'the reply carries them');
    assert.deepEqual(store.suggestions, [], 'not while the turn runs');
    assert.deepEqual(
      store.messages[1]?.blocks.map((b) => b.type),
      [],
      'the call is not shown as a tool call',
    );
    api.lastStream.push(result(4, 'success'));
    await settle();
    assert.deepEqual(store.suggestions, ['Pro']);

    api.sendAnswers.push((req) => Promise.resolve(storedAs(req, 5, 't_2')));
    const sending = store.send('Pro');
    assert.deepEqual(store.suggestions, [], 'gone once the visitor sends');
    await sending;
    api.lastStream.push(reply(6, 'm_2', 't_2'));
    await settle();
    assert.deepEqual(store.suggestions, [], 'the turn still runs');
    api.lastStream.push(result(7, 'error', { error: 'failed', turn: 't_2' }));
    await settle();
    assert.deepEqual(store.suggestions, [], 'a failed reply suggests nothing');
    assert.deepEqual(store.messages.at(-1)?.suggestions, ['Pro']);
  });

  it('ignores records replayed after a reconnect', async () => {
    const { api, store } = setup();
    await store.send('hello');
    const stream = api.lastStream;
    stream.push(delta(2, 'm_1', 'Echo'), delta(3, 'm_1', ': hi'));
    await settle();
    stream.connection('reconnecting');
    await settle();
    assert.equal(store.connection, 'reconnecting');
    stream.push(delta(3, 'm_1', ': hi'), delta(4, 'm_1', '!'));
    await settle();
    assert.equal(store.connection, 'open');
    assert.equal(store.messages[1]?.text, 'Echo: hi!');
  });

  it('merges a payment resolution into the card it resolves', async () => {
    const { api, store } = setup();
    await store.send('/pay 12.5');
    api.lastStream.push(paymentGate(2, ORDER), result(3, 'success'));
    await settle();
    assert.deepEqual(store.messages[1]?.payment, { gate: ORDER, status: 'pending' });
    api.lastStream.push(resolution(4, 'o_1', 'paid'));
    await settle();
    assert.deepEqual(store.messages[1]?.payment, { gate: ORDER, status: 'paid' });
    assert.equal(store.messages.length, 2);
  });

  it('reports a stream that gives up and shows the connection as idle', async () => {
    const { api, store, events } = setup();
    await store.send('hello');
    api.lastStream.fail(apiError(404, 'conversation not found'));
    await settle();
    assert.equal(store.connection, 'idle');
    assert.equal(store.error, 'conversation not found');
    assert.equal(events.error[0]?.status, 404);
  });

  it('reopens a closed stream on the next send, after the newest record seen, so nothing is missed', async () => {
    const { api, store } = setup();
    await store.send('hello');
    api.lastStream.push(assistant(2, 'm_1', 'Echo: hello'), result(3, 'success'));
    await settle();
    api.lastStream.fail(apiError(503, 'service unavailable'));
    await settle();

    api.recordIdsFrom(5);
    await store.send('again');
    assert.equal(api.streams.length, 2);
    assert.equal(api.lastStream.options.lastEventId, id(3));
    api.lastStream.push(paymentGate(4, ORDER), user(5, 'again'), delta(6, 'm_2', 'Echo: again'));
    await settle();
    assert.deepEqual(
      store.messages.map((m) => m.text || m.payment?.gate.title),
      ['hello', 'Echo: hello', 'Report', 'again', 'Echo: again'],
    );
  });
});

describe('ChatStore: notifications', () => {
  it('notifies once for a chunk of many deltas, and counts every change in version', async () => {
    const { api, store } = setup();
    await store.send('hello');
    await settle();
    let calls = 0;
    store.subscribe(() => calls++);
    const version = store.version;
    api.lastStream.push(...Array.from({ length: 200 }, (_, i) => delta(i + 2, 'm_1', 'x')));
    await settle();
    assert.equal(calls, 1);
    assert.equal(store.messages[1]?.text.length, 200);
    assert.ok(store.version >= version + 200);
  });

  it('says when a notification only streamed text into a reply that shows text already', async () => {
    const { api, store } = setup();
    await store.send('hello');
    await settle();
    const seen: { streamedOnly: boolean; text?: string }[] = [];
    store.subscribe(() => seen.push({ streamedOnly: store.streamedOnly, text: store.messages[1]?.text }));
    api.lastStream.push(delta(2, 'm_1', 'Echo'));
    await settle();
    api.lastStream.push(delta(3, 'm_1', ': '), delta(4, 'm_1', 'hello'));
    await settle();
    api.lastStream.push(delta(5, 'm_1', '!'), status(6, 'agent_echo', 'idle'));
    await settle();
    api.lastStream.push(delta(7, 'm_1', ' Done.'));
    await settle();
    api.lastStream.push(delta(8, 'm_1', ' Bye.'), assistant(9, 'm_1', 'Echo: hello! Done. Bye.'));
    await settle();
    assert.deepEqual(seen, [
      { streamedOnly: false, text: 'Echo' }, // the reply's first text
      { streamedOnly: true, text: 'Echo: hello' },
      { streamedOnly: false, text: 'Echo: hello!' }, // an agent's status came with it
      { streamedOnly: true, text: 'Echo: hello! Done.' },
      { streamedOnly: false, text: 'Echo: hello! Done. Bye.' }, // the final reply
    ]);
  });

  it('stops notifying after unsubscribe and after dispose, which also closes the stream', async () => {
    const { api, store } = setup();
    let calls = 0;
    const { subscribe } = store; // handed on unbound, as useSyncExternalStore does
    const unsubscribe = subscribe(() => calls++);
    await store.send('hello');
    await settle();
    assert.equal(calls, 1);
    unsubscribe();
    api.lastStream.push(delta(2, 'm_1', 'a'));
    await settle();
    assert.equal(calls, 1);

    store.subscribe(() => calls++);
    store.dispose();
    assert.equal(api.lastStream.aborted, true);
    assert.equal(await store.send('after'), undefined);
    await settle();
    assert.equal(calls, 1);
  });
});

describe('ChatStore: history and conversations', () => {
  it('loads the latest page, then reads live records after it', async () => {
    const { api, store, events } = setup();
    api.historyPages.push({
      entries: [user(10, 'old question'), assistant(12, 'm_1', 'old answer'), result(13, 'success')],
      hasMore: true,
    });
    const loading = store.load(CONVERSATION);
    assert.equal(store.loadingHistory, true);
    await loading;
    assert.equal(store.loadingHistory, false);
    assert.deepEqual(events['conversation-change'], [{ conversationId: CONVERSATION }]);
    assert.deepEqual(api.historyCalls[0], {
      conversationId: CONVERSATION,
      options: { before: undefined, includeThinking: true },
    });
    assert.deepEqual(
      store.messages.map((m) => m.text),
      ['old question', 'old answer'],
    );
    assert.equal(store.hasMoreHistory, true);
    assert.equal(store.running, false);
    assert.equal(api.lastStream.options.lastEventId, id(13));
    assert.equal(events['turn-complete'].length, 0, 'history raises no events');
  });

  it('prepends older pages before the first record shown until there are no more', async () => {
    const { api, store } = setup();
    api.historyPages.push(
      { entries: [user(10, 'three'), assistant(11, 'm_3', 'four')], hasMore: true },
      { entries: [user(1, 'one', { turn: 't_0' }), assistant(2, 'm_1', 'two', { turn: 't_0' })], hasMore: false },
    );
    await store.load(CONVERSATION);
    api.lastStream.push(delta(12, 'm_5', 'five'));
    await settle();
    await store.loadOlder();
    assert.equal(api.historyCalls[1]?.options.before, id(10));
    assert.deepEqual(
      store.messages.map((m) => m.text),
      ['one', 'two', 'three', 'four', 'five'],
    );
    assert.equal(store.hasMoreHistory, false);
    await store.loadOlder();
    assert.equal(api.historyCalls.length, 2, 'nothing more to load');
  });

  it('shows the newest messages of a long history page before the oldest are applied, and ends with all in order', async () => {
    const { api, store } = setup();
    const turns = 1000;
    api.historyPages.push({
      entries: Array.from({ length: turns }, (_, i) => [
        user(3 * i + 1, `question ${i + 1}`),
        assistant(3 * i + 2, `m_${i + 1}`, `answer ${i + 1}`),
        result(3 * i + 3, 'success'),
      ]).flat(),
      hasMore: false,
    });
    const shown: { count: number; last?: string }[] = [];
    store.subscribe(() => shown.push({ count: store.messages.length, last: store.messages.at(-1)?.text }));
    await store.load(CONVERSATION);
    const first = shown.find((seen) => seen.count > 0);
    assert.equal(first?.last, `answer ${turns}`);
    assert.ok(first.count < 2 * turns, `the first paint waited for all ${first.count} messages`);
    const expected = Array.from({ length: turns }, (_, i) => [`question ${i + 1}`, `answer ${i + 1}`]).flat();
    assert.deepEqual(
      store.messages.map((message) => message.text),
      expected,
    );
  });

  it('marks cards answered from history', async () => {
    const { api, store } = setup();
    api.historyPages.push({
      entries: [
        user(1, 'book a table'),
        assistant(2, 'm_1', [{ type: 'text', text: 'For how many?' }, collectInfo('tu_1')]),
        result(3, 'success'),
        user(4, '', {
          turn: 't_2',
          toolAction: true,
          metadata: { infoCollect: { action: 'submit', values: { street: 'Main St 1' }, toolUseId: 'tu_1' } },
        }),
        assistant(5, 'm_2', 'Booked.', { turn: 't_2' }),
        result(6, 'success', { turn: 't_2' }),
      ],
      hasMore: false,
    });
    await store.load(CONVERSATION);
    assert.deepEqual(
      store.messages.map((m) => m.text),
      ['book a table', 'For how many?', 'Booked.'],
    );
    assert.equal(store.messages[1]?.infoCollect[0]?.answered, true);
  });

  it('resumes a turn still running at load from its start, so its streamed text is complete', async () => {
    const { api, store } = setup();
    api.historyPages.push({ entries: [user(20, 'write a poem'), paymentGate(25, ORDER)], hasMore: false });
    await store.load(CONVERSATION);
    assert.equal(store.running, true);
    assert.equal(api.lastStream.options.lastEventId, id(20));
    api.lastStream.push(delta(21, 'm_1', 'Roses '), delta(26, 'm_1', 'are red'), result(27, 'success'));
    await settle();
    assert.deepEqual(
      store.messages.map((m) => m.text),
      ['write a poem', 'Roses are red', ''],
    );
    assert.equal(store.running, false);
  });

  it('forgets a conversation that no longer exists', async () => {
    const { api, store, events } = setup();
    api.historyPages.push(apiError(404, 'conversation not found'));
    await store.load('c_gone');
    assert.equal(store.conversationId, null);
    assert.deepEqual(events['conversation-change'], [{ conversationId: 'c_gone' }, { conversationId: null }]);
    assert.equal(store.error, 'conversation not found');
    assert.equal(api.streams.length, 0);
    store.clearError();
    assert.equal(store.error, null);
  });

  it('says nothing of the stream of a conversation left, which the client ends with an abort error', async () => {
    const { api, store, events } = setup();
    // A client whose stream, aborted while it waits for bytes, throws (as a cut fetch does) instead of ending.
    const stream = api.stream.bind(api);
    api.stream = (conversationId, options) => {
      const inner = stream(conversationId, options);
      return (async function* () {
        yield* inner;
        throw Object.assign(new Error('request aborted'), { name: 'AbortError' });
      })();
    };
    await store.load(CONVERSATION);
    const left = api.lastStream;
    api.historyPages.push({ entries: [user(7, 'other question')], hasMore: false });
    await store.load('c_other');
    left.push(user(3, 'late record of the conversation left'));
    await settle();
    assert.deepEqual(events.error, [], 'no error said');
    assert.equal(store.error, null);
    assert.deepEqual(
      store.messages.map((m) => m.text),
      ['other question'],
    );
    assert.equal(store.connection, 'connecting', 'the connection of the stream shown, not of the one left');
  });

  it('starts a new conversation on reset and drops the answers of requests made before', async () => {
    const { api, store, events } = await inConversation(2);
    const answer = deferred<SendResult>();
    api.sendAnswers.push(() => answer.promise);
    const pending = store.send('never mind');
    await settle();
    const oldStream = api.lastStream;

    store.reset();
    assert.equal(store.conversationId, null);
    assert.equal(store.messages.length, 0);
    assert.equal(store.running, false);
    assert.equal(oldStream.aborted, true);
    answer.resolve(storedAs(api.sent[0]!, 3));
    assert.equal(await pending, undefined);
    assert.equal(store.messages.length, 0);

    await store.send('fresh start');
    assert.equal(api.sent[1]?.newConversation, true);
    assert.equal(api.sent[1]?.conversationId, undefined);
    assert.deepEqual(
      events['conversation-change'].map((e) => e.conversationId),
      [CONVERSATION, null, CONVERSATION],
    );
  });
});
