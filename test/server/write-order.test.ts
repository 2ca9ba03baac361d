import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { RecordLog } from '../../server/services/record-log.js';
import { createConversation, lockConversation } from '../../server/store/conversation-rows.js';
import { type Db, openDb } from '../../server/store/db.js';
import { cursorOf, insertRecords, type NewRecord, parseCursor, recordsAfter } from '../../server/store/record-rows.js';
import { insertWorkspace } from '../../server/store/workspace-rows.js';
import type { ChatStreamRecord } from '../../src/protocol/record-types.js';
import { testPostgres } from '../helpers/postgres.js';

/*
 * The no-skip rule of writes ordered per conversation (docs/server.md "Writes ordered per conversation"): a
 * reader never skips a record of its conversation that commits after one it has seen. Record ids come from one
 * sequence for every conversation, so ids of different conversations commit out of order; within one, the
 * conversation's row is locked before its ids are drawn. Readers here check each conversation's `seq`, which
 * counts 1, 2, 3… without a gap: a record a reader skipped shows as a gap, one it got twice as a repeat.
 */

const CONVERSATIONS = 40;
/** Writers on each instance, each appending to one conversation after another. */
const WRITERS = 8;
/** Writes each writer makes (each of 1 to 3 records). */
const WRITES = 60;
/** A reader leaves after this many records and resumes from its cursor on the other instance. */
const RESUME_EVERY = 5;

const message = (text: string): NewRecord => ({
  sender: 'agent',
  event: 'message',
  agentId: 'agent_a',
  raw: { type: 'assistant', agentId: 'agent_a', message: { id: text, role: 'assistant', content: [] } },
});

/** A reader of one conversation: takes records, and notes each one out of `seq` order. */
class Reader {
  last = 0;
  readonly problems: string[] = [];
  #waiting: { seq: number; done: () => void } | undefined;

  constructor(readonly conversationId: string) {}

  take(record: ChatStreamRecord): void {
    if (record.seq !== this.last + 1) {
      this.problems.push(`${this.conversationId}: seq ${record.seq} after ${this.last} (id ${record.id})`);
    }
    this.last = Math.max(this.last, record.seq);
    if (this.#waiting && this.last >= this.#waiting.seq) this.#waiting.done();
  }

  /** Resolves once a record of `seq` or later has been taken. */
  reached(seq: number): Promise<void> {
    if (this.last >= seq) return Promise.resolve();
    return new Promise((done) => {
      this.#waiting = { seq, done };
    });
  }
}

/**
 * A reader following its conversation on one instance after another: after every RESUME_EVERY records it stops
 * and follows again from the last record's id (its cursor) on the next instance, as a visitor resuming a stream.
 */
function follow(logs: RecordLog[], reader: Reader, start: number): () => void {
  let stopped = false;
  let stop = () => {};
  const on = (n: number, after: number) => {
    let taken = 0;
    const follower = logs[n % logs.length]!.follow(reader.conversationId, after, {
      record: (record) => {
        if (stopped) return false;
        reader.take(record);
        if (++taken === RESUME_EVERY) {
          follower.stop();
          const cursor = parseCursor(record.id)!;
          queueMicrotask(() => stopped || on(n + 1, cursor));
          return false;
        }
        return true;
      },
      close: () => reader.problems.push(`${reader.conversationId}: the stream closed`),
    });
    stop = () => follower.stop();
  };
  on(start, 0);
  return () => {
    stopped = true;
    stop();
  };
}

/** The conversations' last `seq`, as stored. */
async function lastSeqs(db: Db, ids: string[]): Promise<Map<string, number>> {
  const rows = await db.all<{ id: string; last_seq: number }>('SELECT id, last_seq FROM conversations');
  return new Map(rows.filter((row) => ids.includes(row.id)).map((row) => [row.id, Number(row.last_seq)]));
}

const engines = [
  { name: 'PostgreSQL, two instances', instances: 2, open: async () => (await testPostgres()).createDatabase() },
  { name: 'SQLite, one instance', instances: 1, open: async () => ':memory:' },
];

for (const engine of engines) {
  describe(`writes ordered per conversation: ${engine.name}`, () => {
    let dbs: Db[];
    let logs: RecordLog[];
    let workspaceId: string;

    before(async () => {
      const location = await engine.open();
      dbs = [];
      for (let i = 0; i < engine.instances; i++) dbs.push(await openDb(location));
      logs = [];
      for (const db of dbs) {
        const log = new RecordLog(db, (line) => assert.fail(line));
        await log.listen();
        logs.push(log);
      }
      workspaceId = await insertWorkspace(dbs[0]!, {
        slug: 'acme',
        display_name: 'Acme',
        owner: { user_id: 'owner', login_token: 'lt_owner' },
        api_keys: [],
        agents: [{ id: 'agent_a', name: 'A', runtime: 'echo' }],
      });
    });

    after(async () => {
      for (const log of logs) await log.closeAll();
      for (const db of dbs) await db.close();
    });

    it(`readers resuming from cursors on every instance miss nothing while ${CONVERSATIONS} conversations commit at once`, async () => {
      const conversations = [];
      for (let i = 0; i < CONVERSATIONS; i++) {
        conversations.push(
          await createConversation(dbs[0]!, { kind: 'chat', ownerId: 'alice', workspaceId, agentIds: ['agent_a'] }),
        );
      }
      const ids = conversations.map((c) => c.id);
      const readers = ids.map((id) => new Reader(id));
      const stops = readers.map((reader, i) => follow(logs, reader, i));

      // Every writer walks the conversations from its own place, so each conversation has writers on both
      // instances at once; every other write is a transaction that locks the conversation first and appends.
      let written = 0;
      await Promise.all(
        logs.flatMap((log, instance) =>
          Array.from({ length: WRITERS }, async (_, writer) => {
            for (let n = 0; n < WRITES; n++) {
              const conversationId = ids[(writer * 7 + instance * 3 + n) % ids.length]!;
              const batch = Array.from({ length: 1 + ((writer + n) % 3) }, (_, k) =>
                message(`m_${instance}_${writer}_${n}_${k}`),
              );
              if (n % 2) await log.append(conversationId, ...batch);
              else {
                await log.write(async (append, tx) => {
                  await lockConversation(tx, conversationId);
                  await append(conversationId, ...batch);
                });
              }
              written += batch.length;
            }
          }),
        ),
      );

      // One record more in each conversation once every writer is done: a reader that skipped one before it
      // shows a gap, also where the skipped record was the last.
      for (const [i, id] of ids.entries()) await logs[i % logs.length]!.append(id, message(`last_${id}`));
      written += ids.length;
      const finals = await lastSeqs(dbs[0]!, ids);
      assert.equal(
        [...finals.values()].reduce((a, b) => a + b, 0),
        written,
        'every record is stored, each with its own seq',
      );
      await Promise.all(readers.map((reader) => reader.reached(finals.get(reader.conversationId)!)));
      for (const stop of stops) stop();
      assert.deepEqual(
        readers.flatMap((reader) => reader.problems),
        [],
      );
      assert.deepEqual(
        readers.map((reader) => reader.last),
        ids.map((id) => finals.get(id)),
      );
    });
  });
}

describe('writes ordered per conversation: the reader check (positive control on PostgreSQL)', () => {
  it('catches a record skipped when a writer draws its id before it locks the conversation', async () => {
    const location = await (await testPostgres()).createDatabase();
    const db = await openDb(location);
    const [early, late] = [new pg.Client(location), new pg.Client(location)];
    try {
      const workspaceId = await insertWorkspace(db, {
        slug: 'acme',
        display_name: 'Acme',
        owner: { user_id: 'owner', login_token: 'lt_owner' },
        api_keys: [],
        agents: [],
      });
      const { id } = await createConversation(db, { kind: 'chat', ownerId: 'alice', workspaceId, agentIds: [] });
      await early.connect();
      await late.connect();
      // A writer that locks the conversation only after it drew its record's id (the weaker order).
      const draw = async (client: pg.Client) => {
        await client.query('BEGIN');
        const { rows } = await client.query("SELECT nextval(pg_get_serial_sequence('records', 'id')) AS id");
        return Number(rows[0].id);
      };
      const store = async (client: pg.Client, rowId: number) => {
        const { rows } = await client.query(
          'UPDATE conversations SET last_seq = last_seq + 1 WHERE id = $1 RETURNING last_seq',
          [id],
        );
        await client.query(
          `INSERT INTO records (id, conversation_id, seq, sender, event, raw, created_at) OVERRIDING SYSTEM VALUE
           VALUES ($1, $2, $3, 'agent', 'message', $4, '2026-01-01T00:00:00.000Z')`,
          [rowId, id, rows[0].last_seq, JSON.stringify(message(`m${rowId}`).raw)],
        );
        await client.query('COMMIT');
      };
      const reader = new Reader(id);
      let cursor = 0;
      const read = async () => {
        for (const record of (await recordsAfter(db, id, cursor, { records: 200, bytes: 1e9 })).records) {
          reader.take(record);
          cursor = parseCursor(record.id)!;
        }
      };
      const first = await draw(early);
      const second = await draw(late);
      assert.ok(second > first);
      await store(late, second);
      await read();
      await store(early, first);
      await insertRecords(db, id, [message('after both')]);
      await read();
      assert.deepEqual(reader.problems, [`${id}: seq 3 after 1 (id ${cursorOf(cursor)})`]);
    } finally {
      await early.end();
      await late.end();
      await db.close();
    }
  });
});
