import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import { ChatStore } from '../../src/chat/chat-store.js';
import { ApiConnectionError, type ChatStreamRecord, extractText, type SendResult, SvcClient } from '../../src/index.js';
import { sessionToken } from '../helpers/conversation.js';
import { type CuttingProxy, startCuttingProxy } from '../helpers/proxy.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { random, SEED, size } from './soak.js';

/** Stream connections cut in one run: at least this many, each at a random byte of a live reply. */
const CUTS = size(100, 1000);
/** Messages whose send answers are cut, for each of the two ways a send is retried. */
const CUT_SENDS = size(10, 100);
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

describe(`lost answers: ${CUT_SENDS} sends cut after the service stored them, per way of retrying ${seedNote}`, () => {
  let server: TestServer;
  /** A visitor of each test: what the service holds of them is exactly what that test sent. */
  let token: string;
  let userId: string;
  let direct: SvcClient;
  const next = random(SEED + 1);
  before(async () => {
    server = await startTestServer();
  });
  beforeEach(async () => {
    ({ token, userId } = await sessionToken(server));
    direct = new SvcClient({ apiKey: token, baseUrl: server.url, maxRetries: 0 });
  });
  after(() => server.close());

  /** Every message the visitor's conversations hold, whichever conversation a retry may have put it in. */
  const storedMessages = async () =>
    (
      (await server.ctx.db.all(
        `SELECT raw FROM records WHERE sender = 'user'
           AND conversation_id IN (SELECT id FROM conversations WHERE owner_id = ?) ORDER BY id`,
        userId,
      )) as { raw: string }[]
    ).map((row) => JSON.parse(row.raw).message.content[0].text as string);

  /**
   * A client whose sends cross a proxy that cuts the answers of the first `cuts` tries, each at a random byte
   * of the status line, headers or body, so the service has stored the message but the client never learns it.
   * One proxy per message: its connections are new, not a pooled one that an earlier message left open.
   */
  async function flaky(cuts: number) {
    const proxy = await startCuttingProxy(server.url);
    proxy.cutAt(Array.from({ length: cuts }, () => 1 + Math.floor(next() * 400)));
    return { proxy, client: new SvcClient({ apiKey: token, baseUrl: proxy.url, maxRetries: 0 }) };
  }

  /** Each message once in the conversation, each with exactly one reply (one `result`, one echo). */
  async function assertOncePerMessage(conversationId: string, sent: string[]) {
    const { entries } = await direct.chat.messages(conversationId);
    const users = entries.filter((e) => e.raw.type === 'user').map(extractText);
    assert.deepEqual(users, sent, `messages stored twice or lost ${seedNote}`);
    assert.equal(entries.filter((e) => e.raw.type === 'result').length, sent.length, seedNote);
    const replies = entries.filter((e) => e.raw.type === 'assistant').map(extractText);
    assert.deepEqual(
      replies,
      sent.map((m) => `Echo: ${m}`),
      seedNote,
    );
  }

  /** Waits for the reply to a send before the next one (a send while a reply runs is refused). */
  const replyTo = (conversationId: string, userEventId: string) =>
    collectTurn(direct.chat.resumeTurn(conversationId, { lastEventId: userEventId }));

  it('a caller that retries a send under its key after a lost answer has it stored and answered once', async () => {
    let conversationId: string | undefined;
    const messages: string[] = [];
    for (let i = 0; i < CUT_SENDS; i++) {
      const { proxy, client } = await flaky(2);
      try {
        const message = `cut ${i}`;
        const request = {
          message,
          ...(conversationId ? { conversationId } : { targetAgentIds: ['agent_echo'], newConversation: true }),
        };
        const idempotencyKey = randomUUID();
        let sent: SendResult | undefined;
        for (let attempt = 0; !sent; attempt++) {
          try {
            sent = await client.chat.send(request, { idempotencyKey });
          } catch (err) {
            // The client never repeats a send by itself; the caller does, under the same key.
            assert.ok(err instanceof ApiConnectionError && attempt < 2, String(err));
          }
        }
        assert.equal(proxy.cuts, 2, 'both first tries were cut after the service answered');
        conversationId = sent.conversationId;
        messages.push(message);
        await replyTo(sent.conversationId, sent.userEventId!);
      } finally {
        await proxy.close();
      }
    }
    await assertOncePerMessage(conversationId!, messages);
    assert.deepEqual(await storedMessages(), messages);
  });

  it('<svc-chat>’s store retries a failed message under the key of its first try: shown and stored once', async () => {
    let client!: SvcClient;
    const store = new ChatStore({
      api: {
        send: (req, opts) => client.chat.send(req, opts),
        history: direct.chat.history.bind(direct.chat),
        interrupt: direct.chat.interrupt.bind(direct.chat),
        stream: direct.chat.stream.bind(direct.chat),
      },
      targetAgentIds: ['agent_echo'],
    });
    const nextEvent = <K extends 'error' | 'turn-complete'>(type: K) =>
      new Promise<Parameters<Parameters<typeof store.on<K>>[1]>[0]>((resolve) => {
        const off = store.on(type, (detail) => {
          off();
          resolve(detail);
        });
      });
    const messages: string[] = [];
    try {
      for (let i = 0; i < CUT_SENDS; i++) {
        // Each message starts a conversation, so no open stream can show it as stored before the retry does.
        store.reset();
        const flakyOne = await flaky(1);
        client = flakyOne.client;
        try {
          const message = `retry ${i}`;
          const failed = nextEvent('error');
          assert.equal(await store.send(message), undefined);
          assert.ok((await failed).cause instanceof ApiConnectionError);
          const shown = store.messages.at(-1)!;
          assert.deepEqual([shown.text, shown.status], [message, 'failed']);
          const done = nextEvent('turn-complete');
          const result = await store.retry(shown.id);
          assert.ok(result, 'the retry went through');
          await done;
          assert.deepEqual(
            store.messages.map((m) => [m.role, m.text, m.status]),
            [
              ['user', message, 'sent'],
              ['agent', `Echo: ${message}`, undefined],
            ],
          );
          await assertOncePerMessage(store.conversationId!, [message]);
          messages.push(message);
        } finally {
          await flakyOne.proxy.close();
        }
      }
      assert.deepEqual(await storedMessages(), messages, `a retry stored a message again ${seedNote}`);
    } finally {
      store.dispose();
    }
  });
});
