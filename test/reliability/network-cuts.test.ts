import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ChatStore } from '../../src/chat/chat-store.js';
import { type ChatStreamRecord, extractText, SvcClient } from '../../src/index.js';
import { sessionToken } from '../helpers/conversation.js';
import { type CuttingProxy, startCuttingProxy } from '../helpers/proxy.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { random, SEED, size } from './soak.js';

/** Stream connections cut in one run: at least this many, each at a random byte of a live reply. */
const CUTS = size(100, 1000);
/** Conversations streaming at once; each is read by the client and, in another conversation, by a ChatStore. */
const PARALLEL = 6;
/** Long streamed replies of the demo runtime: about 2 s of steady deltas, and a long markdown burst. */
const COMMANDS = ['/slow 2', '/markdown'];
const seedNote = `(SVC_SEED=${SEED})`;

async function collectTurn(records: AsyncIterable<ChatStreamRecord>): Promise<ChatStreamRecord[]> {
  const out: ChatStreamRecord[] = [];
  for await (const record of records) {
    out.push(record);
    if (record.raw.type === 'result') break;
  }
  return out;
}

const deltaText = (records: ChatStreamRecord[]) =>
  records.map((r) => (r.raw.type === 'assistant_delta' ? r.raw.text : '')).join('');
const finalText = (records: ChatStreamRecord[]) =>
  records
    .filter((r) => r.raw.type === 'assistant')
    .map(extractText)
    .join('');
/** What `messages` keeps of a turn: everything but deltas and status changes. */
const stored = (records: ChatStreamRecord[]) =>
  records.filter((r) => r.raw.type !== 'assistant_delta' && r.raw.type !== 'agent_status');

describe(`broken networks: ${CUTS}+ stream cuts at random points of live replies ${seedNote}`, () => {
  let server: TestServer;
  let proxy: CuttingProxy;
  /** The same visitor, talking to the service directly (sends, reference reads) and through the proxy. */
  let direct: SvcClient;
  let flaky: SvcClient;
  const next = random();
  const stores: ChatStore[] = [];

  before(async () => {
    server = await startTestServer();
    proxy = await startCuttingProxy(server.url);
    const { token } = await sessionToken(server);
    direct = new SvcClient({ apiKey: token, baseUrl: server.url, maxRetries: 0 });
    flaky = new SvcClient({ apiKey: token, baseUrl: proxy.url, maxRetries: 0 });
  });
  after(async () => {
    for (const store of stores) store.dispose();
    await proxy.close();
    await server.close();
  });

  /**
   * A plan of random cut offsets, headers included: a third of them short (from before the status line to a
   * few records in), the rest up to 30 KB, so the final `assistant` record of a long reply (about 6 KB) also gets
   * through whole now and then, as it does on a real flaky network.
   */
  const plan = () => Array.from({ length: 4 * CUTS }, () => 1 + Math.floor(next() * (next() < 1 / 3 ? 3000 : 30_000)));

  /** The client's `chat.stream` through the proxy reads exactly the records the service stored for a live turn. */
  async function clientTurn(conversationId: string | undefined, command: string): Promise<string> {
    const sent = await direct.chat.send({
      message: command,
      ...(conversationId ? { conversationId } : { newConversation: true, targetAgentIds: ['agent_demo'] }),
    });
    const records = await collectTurn(flaky.chat.stream(sent.conversationId, { lastEventId: sent.userEventId }));
    const reference = await collectTurn(
      direct.chat.resumeTurn(sent.conversationId, { lastEventId: sent.userEventId! }),
    );
    assert.deepEqual(records, reference, `client records differ from a direct read ${seedNote}`);
    assert.equal(records.at(-1)?.raw.type, 'result');
    assert.equal(deltaText(records), finalText(records), `streamed text differs from the final text ${seedNote}`);
    const { entries } = await direct.chat.messages(sent.conversationId);
    const ofTurn = entries.filter((e) => e.id > sent.userEventId! && e.id <= records.at(-1)!.id);
    assert.deepEqual(stored(records), ofTurn, `client records differ from messages ${seedNote}`);
    return sent.conversationId;
  }

  /** A ChatStore whose stream goes through the proxy ends with exactly the stored messages, never a wrong prefix. */
  async function storeTurn(store: ChatStore, command: string, seen: Map<string, Set<string>>): Promise<void> {
    const done = new Promise<void>((resolve) => {
      const off = store.on('turn-complete', () => {
        off();
        resolve();
      });
    });
    await store.send(command);
    await done;
    const { entries } = await direct.chat.messages(store.conversationId!);
    const expected = entries.flatMap((e) =>
      e.raw.type === 'user'
        ? [['user', extractText(e)]]
        : e.raw.type === 'assistant'
          ? [['agent', extractText(e)]]
          : [],
    );
    assert.deepEqual(
      store.messages.map((m) => [m.role, m.text]),
      expected,
      `the store's messages differ from the service's ${seedNote}`,
    );
    for (const message of store.messages) {
      for (const text of seen.get(message.id) ?? []) {
        assert.ok(message.text.startsWith(text), `a streamed text was not a prefix of the final text ${seedNote}`);
      }
    }
  }

  function watchedStore(): { store: ChatStore; seen: Map<string, Set<string>> } {
    const api = {
      send: direct.chat.send.bind(direct.chat),
      history: direct.chat.history.bind(direct.chat),
      interrupt: direct.chat.interrupt.bind(direct.chat),
      // Only the stream crosses the flaky network: a message send is never repeated by design.
      stream: flaky.chat.stream.bind(flaky.chat),
    };
    const store = new ChatStore({ api, targetAgentIds: ['agent_demo'] });
    stores.push(store);
    const seen = new Map<string, Set<string>>();
    // Every text a renderer could have shown while the reply streamed.
    store.subscribe(() => {
      for (const m of store.messages)
        if (m.role === 'agent') (seen.get(m.id) ?? seen.set(m.id, new Set()).get(m.id)!).add(m.text);
    });
    return { store, seen };
  }

  it('the client and the ChatStore end with exactly the stored records, none lost or repeated', async (t) => {
    const conversations: (string | undefined)[] = Array.from({ length: PARALLEL }, () => undefined);
    const watched = Array.from({ length: PARALLEL }, watchedStore);
    const start = proxy.cuts;
    let rounds = 0;
    while (proxy.cuts - start < CUTS) {
      proxy.cutAt(plan());
      await Promise.all(
        conversations.map(async (conversationId, i) => {
          const command = COMMANDS[(i + rounds) % COMMANDS.length]!;
          const [id] = await Promise.all([
            clientTurn(conversationId, command),
            storeTurn(watched[i]!.store, command, watched[i]!.seen),
          ]);
          conversations[i] = id;
        }),
      );
      rounds++;
    }
    proxy.cutAt([]);
    t.diagnostic(`${proxy.cuts - start} cuts over ${rounds} rounds of ${2 * PARALLEL} live streams`);
    assert.ok(proxy.cuts - start >= CUTS);
  });
});
