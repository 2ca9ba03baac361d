import assert from 'node:assert/strict';
import { EventEmitter, once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ChatStore } from '../../src/chat/chat-store.js';
import { type ChatStreamRecord, extractText, type ResultRawEvent, SvcClient } from '../../src/index.js';
import { FIXTURE } from '../helpers/server.js';
import { type ServiceProcess, startServiceProcess } from '../helpers/service-process.js';
import { until } from '../helpers/until.js';
import { size } from './soak.js';

/** Conversations that keep sending short echo turns while the service is killed. */
const WRITERS = size(4, 16);

type Service = ServiceProcess;

/** Starts `svc-server` on the folder's database and fixture, on `port` (0: a free one). */
function startService(dir: string, port = 0): Promise<Service> {
  const args = ['--port', String(port), '--db', join(dir, 'svc.db'), '--fixture', join(dir, 'fixture.json')];
  return startServiceProcess([...args, '--files-dir', join(dir, 'files')]);
}

async function kill(service: Service, signal: NodeJS.Signals): Promise<void> {
  if (service.child.exitCode !== null || service.child.signalCode !== null) return;
  const exited = once(service.child, 'exit');
  service.child.kill(signal);
  await exited;
}

async function readTurn(records: AsyncIterable<ChatStreamRecord>): Promise<ChatStreamRecord[]> {
  const out: ChatStreamRecord[] = [];
  for await (const record of records) out.push(record);
  return out;
}

/** What a writer got back from the service before the crash: acknowledged sends and records it read. */
interface Acknowledged {
  conversationId: string;
  userEventId: string;
  records: ChatStreamRecord[];
}

describe('crashes: the service killed with SIGKILL mid-turn, restarted on the same database', () => {
  let dir: string;
  let first: Service;
  let second: Service | undefined;
  /** Ends every reader and store, also when an assertion failed midway. */
  const abort = new AbortController();
  const { signal } = abort;
  const stores: ChatStore[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-crash-'));
    writeFileSync(join(dir, 'fixture.json'), JSON.stringify(FIXTURE));
    first = await startService(dir);
  });
  after(async () => {
    abort.abort();
    for (const store of stores) store.dispose();
    if (second) await kill(second, 'SIGTERM');
    await kill(first, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps every acknowledged message and record, resumes readers, and ends the cut turn with an error', {
    timeout: 120_000,
  }, async () => {
    const port = Number(new URL(first.url).port);
    const admin = new SvcClient({ apiKey: 'sk_acme_1', baseUrl: first.url, maxRetries: 0 });
    // Session tokens are stored in the database: the same token works after the restart.
    const session = await admin.workspace('acme').startVisitorSession({ sp_user_ref: 'crash-visitor' });
    const client = new SvcClient({ apiKey: session.token, baseUrl: first.url, maxRetries: 0 });

    // A long reply, read by the client's stream and by a ChatStore, is running when the service dies.
    const store = new ChatStore({ api: client.chat, targetAgentIds: ['agent_demo'] });
    stores.push(store);
    const storeEnded = new Promise<string>((resolve) => store.on('turn-complete', (d) => resolve(d.subtype)));
    const sent = await store.send('/slow 60');
    assert.ok(sent?.userEventId);
    const reader = readTurn(client.chat.resumeTurn(sent.conversationId, { lastEventId: sent.userEventId, signal }));

    // Writers send short turns one after another; every answered send and every record read is acknowledged.
    let crashed = false;
    const acknowledged: Acknowledged[] = [];
    const progress = new EventEmitter();
    const writers = Array.from({ length: WRITERS }, async (_, w) => {
      let conversationId: string | undefined;
      for (let n = 0; !crashed; n++) {
        let result: Awaited<ReturnType<typeof client.chat.send>>;
        try {
          result = await client.chat.send({
            message: `writer ${w} message ${n}`,
            ...(conversationId ? { conversationId } : { newConversation: true, targetAgentIds: ['agent_echo'] }),
          });
        } catch {
          return; // Not acknowledged: the service died before answering.
        }
        conversationId = result.conversationId;
        const turn: Acknowledged = { conversationId, userEventId: result.userEventId!, records: [result.userMessage!] };
        acknowledged.push(turn);
        progress.emit('acknowledged');
        // The stream reconnects across the restart, so this turn is read to its end either way.
        for await (const record of client.chat.followTurn(result, { signal })) turn.records.push(record);
      }
    });

    await until(
      () => store.messages.some((m) => m.role === 'agent' && m.text.length > 40),
      'the long reply shown by the store',
      store.subscribe,
    );
    await until(
      () => acknowledged.length >= 3 * WRITERS,
      'three acknowledged sends of each writer',
      (changed) => {
        progress.on('acknowledged', changed);
        return () => progress.off('acknowledged', changed);
      },
    );
    await kill(first, 'SIGKILL');
    crashed = true;
    second = await startService(dir, port);

    // The interrupted turn ends with an error result for the stream reader and the store; nothing hangs.
    const records = await reader;
    const result = records.at(-1)!.raw as ResultRawEvent;
    assert.equal(result.type, 'result');
    assert.equal(result.subtype, 'error');
    assert.equal(result.error, 'the service restarted during this reply');
    assert.equal(await storeEnded, 'error');
    // The reader resumed from its cursor: exactly the stored records of the turn, none repeated.
    const again = new SvcClient({ apiKey: session.token, baseUrl: second.url, maxRetries: 0 });
    const stored = await readTurn(
      again.chat.resumeTurn(sent.conversationId, { lastEventId: sent.userEventId, signal }),
    );
    assert.deepEqual(records, stored);
    const { entries } = await again.chat.messages(sent.conversationId);
    assert.deepEqual(
      store.messages.map((m) => [m.role, m.text]),
      entries.flatMap((e) =>
        e.raw.type === 'user'
          ? [['user', extractText(e)]]
          : e.raw.type === 'assistant'
            ? [['agent', extractText(e)]]
            : [],
      ),
    );

    // Every acknowledged message and record is still there, unchanged.
    await Promise.all(writers);
    assert.ok(acknowledged.length >= 3 * WRITERS);
    for (const turn of acknowledged) {
      const replay = await readTurn(
        again.chat.resumeTurn(turn.conversationId, { lastEventId: turn.userEventId, signal }),
      );
      const byId = new Map([turn.records[0]!, ...replay].map((r) => [r.id, r]));
      for (const record of turn.records) assert.deepEqual(byId.get(record.id), record);
      assert.equal(replay.at(-1)?.raw.type, 'result');
    }

    // The conversation goes on: the next message is answered.
    const next = await again.chat.sendMessage({ message: '/help', conversationId: sent.conversationId });
    assert.equal((next.result as ResultRawEvent).subtype, 'success');
  });
});
