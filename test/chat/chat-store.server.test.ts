import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ChatStore, type ChatStoreEvents } from '../../src/chat/chat-store.js';
import { infoCollectSubmitMetadata, type SvcClient } from '../../src/index.js';
import { visitorClient } from '../helpers/client.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

// One service for the whole file (closing one that served streams is slow); each test has its own visitor.
let server: TestServer;
const stores: ChatStore[] = [];
before(async () => {
  server = await startTestServer();
});
after(async () => {
  for (const store of stores) store.dispose();
  await server.close();
});

function storeFor(client: SvcClient, targetAgentIds: string[]): ChatStore {
  const store = new ChatStore({ api: client.chat, targetAgentIds });
  stores.push(store);
  return store;
}

/** The next `type` event of the store; fails after a generous 15 s. */
function next<K extends keyof ChatStoreEvents>(store: ChatStore, type: K): Promise<ChatStoreEvents[K]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${type} within 15 s`)), 15_000);
    const off = store.on(type, (detail) => {
      clearTimeout(timer);
      off();
      resolve(detail);
    });
  });
}

const shown = (store: ChatStore) => store.messages.map((m) => [m.role, m.text]);

describe('ChatStore against the reference service', () => {
  it('sends, streams the echo reply once, and shows the same conversation after a reload', async () => {
    const client = await visitorClient(server);
    const store = storeFor(client, ['agent_echo']);
    const changed = next(store, 'conversation-change');
    const complete = next(store, 'turn-complete');

    const sending = store.send('hello there');
    assert.deepEqual(shown(store), [['user', 'hello there']]);
    assert.equal(store.messages[0]?.status, 'sending');
    const sent = await sending;
    assert.ok(sent);
    assert.equal((await changed).conversationId, sent.conversationId);
    assert.equal(store.messages[0]?.id, sent.userEventId);

    const turn = await complete;
    assert.equal(turn.subtype, 'success');
    assert.equal(turn.text, 'Echo: hello there');
    assert.deepEqual(shown(store), [
      ['user', 'hello there'],
      ['agent', 'Echo: hello there'],
    ]);
    assert.equal(store.messages[1]?.streaming, false);
    assert.equal(store.messages[1]?.id, sent.results[0]?.msgId);
    assert.equal(store.running, false);
    assert.equal(store.agentStatus.agent_echo, 'idle');
    assert.equal(store.connection, 'open');

    const reloaded = storeFor(client, ['agent_echo']);
    await reloaded.load(sent.conversationId);
    assert.deepEqual(
      reloaded.messages.map((m) => [m.id, m.text]),
      store.messages.map((m) => [m.id, m.text]),
    );
    assert.equal(reloaded.hasMoreHistory, false);

    const again = next(reloaded, 'turn-complete');
    await reloaded.send('and again');
    assert.equal((await again).text, 'Echo: and again');
    assert.deepEqual(shown(reloaded), [
      ['user', 'hello there'],
      ['agent', 'Echo: hello there'],
      ['user', 'and again'],
      ['agent', 'Echo: and again'],
    ]);
    // The first store reads the same conversation live: the second exchange shows there too.
    await until(() => store.messages.length === 4, 'showing the other tab’s exchange', store.subscribe);
    assert.deepEqual(shown(store), shown(reloaded));
  });

  it('stops a slow reply, keeping the text streamed so far', async () => {
    const client = await visitorClient(server);
    const store = storeFor(client, ['agent_demo']);
    await store.send('/slow 10');
    await until(() => (store.messages[1]?.text.length ?? 0) > 0, 'streaming', store.subscribe);
    assert.equal(store.messages[1]?.streaming, true);
    assert.equal(store.running, true);

    const complete = next(store, 'turn-complete');
    const stopped = await store.interrupt();
    assert.equal(stopped?.interrupted, true);
    assert.equal((await complete).subtype, 'interrupted');
    const reply = store.messages[1];
    assert.equal(reply?.interrupted, true);
    assert.equal(reply?.streaming, false);
    assert.ok(reply?.text.trim());
    assert.equal(store.running, false);
  });

  it('shows why a turn failed', async () => {
    const client = await visitorClient(server);
    const store = storeFor(client, ['agent_demo']);
    const complete = next(store, 'turn-complete');
    await store.send('/error');
    const turn = await complete;
    assert.equal(turn.subtype, 'error');
    assert.equal(turn.error, 'This reply failed on purpose, to show what a failed reply looks like.');
    assert.equal(store.messages.at(-1)?.error, 'This reply failed on purpose, to show what a failed reply looks like.');
    assert.equal(store.error, 'This reply failed on purpose, to show what a failed reply looks like.');
  });

  it('answers a form card, which stays answered after a reload', async () => {
    const client = await visitorClient(server);
    const store = storeFor(client, ['agent_demo']);
    const shownCard = next(store, 'turn-complete');
    await store.send('/form');
    await shownCard;
    const card = store.messages[1]?.infoCollect[0];
    assert.equal(card?.request.title, 'Book a demo');
    assert.equal(card?.answered, false);

    const thanked = next(store, 'turn-complete');
    const metadata = infoCollectSubmitMetadata({ name: 'Ada', email: 'ada@example.com' }, card?.request.toolUseId);
    assert.ok(await store.send('', { toolAction: true, metadata }));
    assert.match((await thanked).text, /Thank you! I received/);
    assert.equal(store.messages[1]?.infoCollect[0]?.answered, true);
    assert.deepEqual(store.messages[1]?.infoCollect[0]?.answer, {
      action: 'submit',
      values: { name: 'Ada', email: 'ada@example.com' },
    });
    assert.deepEqual(
      store.messages.map((m) => m.role),
      ['user', 'agent', 'agent'],
      'the card action is not shown as a message',
    );

    const reloaded = storeFor(client, ['agent_demo']);
    await reloaded.load(store.conversationId!);
    assert.equal(reloaded.messages[1]?.infoCollect[0]?.answered, true);
    assert.equal(reloaded.messages.length, 3);
  });

  it('keeps a message the service refused, with the reason, and forgets a conversation that is not the user’s', async () => {
    const alice = await visitorClient(server);
    const store = storeFor(alice, ['agent_demo']);
    await store.send('/slow 10');
    assert.equal(await store.send('are you there?'), undefined);
    const refused = store.messages.find((m) => m.text === 'are you there?');
    assert.equal(refused?.status, 'failed');
    assert.equal(refused?.error, 'a reply is still running in this conversation');
    await store.interrupt();
    await until(() => !store.running, 'stopped', store.subscribe);
    const complete = next(store, 'turn-complete');
    assert.ok(await store.retry(refused!.id));
    await complete;
    assert.equal(store.messages.filter((m) => m.text === 'are you there?').length, 1);

    const bob = storeFor(await visitorClient(server), ['agent_demo']);
    await bob.load(store.conversationId!);
    assert.equal(bob.conversationId, null);
    assert.equal(bob.error, 'conversation not found');
    assert.equal(bob.messages.length, 0);
  });
});

describe('ChatStore: regenerate, edit and feedback against the reference service', () => {
  it('regenerate shows the question once with the new reply; edit shows the edited question', async () => {
    const client = await visitorClient(server);
    const store = storeFor(client, ['agent_echo']);
    let complete = next(store, 'turn-complete');
    await store.send('first');
    await complete;
    complete = next(store, 'turn-complete');
    await store.send('Helo');
    await complete;
    assert.deepEqual(shown(store), [
      ['user', 'first'],
      ['agent', 'Echo: first'],
      ['user', 'Helo'],
      ['agent', 'Echo: Helo'],
    ]);
    const oldReply = store.messages.at(-1)!.id;

    complete = next(store, 'turn-complete');
    assert.ok(await store.regenerate());
    await complete;
    assert.deepEqual(shown(store), [
      ['user', 'first'],
      ['agent', 'Echo: first'],
      ['user', 'Helo'],
      ['agent', 'Echo: Helo'],
    ]);
    assert.notEqual(store.messages.at(-1)!.id, oldReply, 'a new reply in place of the old one');

    complete = next(store, 'turn-complete');
    assert.ok(await store.editLast('Hello'));
    await complete;
    assert.deepEqual(shown(store), [
      ['user', 'first'],
      ['agent', 'Echo: first'],
      ['user', 'Hello'],
      ['agent', 'Echo: Hello'],
    ]);

    // A reload shows the same: the replaced turns stay left out.
    const reloaded = storeFor(client, ['agent_echo']);
    await reloaded.load(store.conversationId!);
    assert.deepEqual(shown(reloaded), shown(store));
  });

  it('feedback is shown at once, stored, told, and shown again after a reload', async () => {
    const client = await visitorClient(server);
    const store = storeFor(client, ['agent_echo']);
    const complete = next(store, 'turn-complete');
    await store.send('rate this');
    await complete;
    const reply = store.messages.at(-1)!.id;
    const told = next(store, 'feedback');
    const giving = store.setFeedback(reply, 'down', ' too short ');
    assert.deepEqual(store.feedback[reply], { rating: 'down', reason: 'too short' });
    assert.equal((await giving)?.rating, 'down');
    assert.deepEqual(
      [(await told).messageId, (await told).agentId, (await told).reason],
      [reply, 'agent_echo', 'too short'],
    );
    const reloaded = storeFor(client, ['agent_echo']);
    await reloaded.load(store.conversationId!);
    await until(() => !!reloaded.feedback[reply], 'feedback shown again', reloaded.subscribe);
    assert.deepEqual(reloaded.feedback[reply], { rating: 'down', reason: 'too short' });
  });
});
