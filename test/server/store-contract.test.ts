import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLogger } from '../../server/boot/logger.js';
import { grantCredits, listMembers, provisionMember } from '../../server/services/members.js';
import { issueSmsCode } from '../../server/services/sms-codes.js';
import { getConnectorCredentials, saveConnectorCredentials } from '../../server/store/connector-credential-rows.js';
import { createConversation, getConversation, listedConversation } from '../../server/store/conversation-rows.js';
import { type Db, migrations, openDb, type StatementRejected } from '../../server/store/db.js';
import { agentMessageText } from '../../server/store/history-rows.js';
import { metaValue, setMetaValue } from '../../server/store/meta-rows.js';
import {
  conversationBytes,
  insertRecords,
  lastRecordId,
  type NewRecord,
  parseCursor,
  recordsAfter,
} from '../../server/store/record-rows.js';
import { priorSend, rememberSend } from '../../server/store/send-result-rows.js';
import { insertTurn, isTurnRunning, markTurnEnded, runningTurns } from '../../server/store/turn-rows.js';
import { insertWorkspace, workspaceBySlug } from '../../server/store/workspace-rows.js';
import type { ChatStreamRecord } from '../../src/protocol/record-types.js';
import { testPostgres } from '../helpers/postgres.js';

/*
 * The one contract both stores keep: every test below runs on SQLite and on a real PostgreSQL, against the
 * store modules the routes use (and the services that keep their rules, where the routes reach them through one). The HTTP suites run on SQLite by default and on PostgreSQL with
 * SVC_TEST_DATABASE=postgres (test/helpers/server.ts).
 */

/** An agent's message record with `text`. */
const agentMessage = (id: string, text?: string): NewRecord => ({
  sender: 'agent',
  event: 'message',
  agentId: 'agent_a',
  raw: {
    type: 'assistant',
    agentId: 'agent_a',
    message: { id, role: 'assistant', content: text === undefined ? [] : [{ type: 'text', text }] },
  },
});

/**
 * A transaction that runs `fn`, then stays open until `release`: `holding` resolves once `fn` has run (on
 * SQLite, whose write transactions run one at a time, nothing else writes meanwhile).
 */
function held(db: Db, fn: (tx: Db) => Promise<void>) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let holding!: () => void;
  const ran = new Promise<void>((resolve) => {
    holding = resolve;
  });
  const done = db.transaction(async (tx) => {
    await fn(tx);
    holding();
    await released;
  });
  return { holding: ran, release, done };
}

/** Resolves once a session of this PostgreSQL database waits for a lock (another transaction holds it). */
async function lockWaited(db: Db): Promise<void> {
  const waiting = "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'";
  while (!(await db.get(waiting))) await sleep(5);
}

/** One record, stored as a write of its own. */
const insertRecord = async (db: Db, conversationId: string, record: NewRecord) =>
  (await insertRecords(db, conversationId, [record])).records[0]!;

const engines: { name: string; open: () => Promise<string> }[] = [
  { name: 'SQLite', open: async () => ':memory:' },
  { name: 'PostgreSQL', open: async () => (await testPostgres()).createDatabase() },
];

for (const engine of engines) {
  describe(`store contract: ${engine.name}`, () => {
    let location: string;
    let db: Db;
    let workspaceId: string;
    before(async () => {
      location = await engine.open();
      db = await openDb(location);
      workspaceId = await insertWorkspace(db, {
        slug: 'acme',
        display_name: 'Acme',
        owner: { user_id: 'owner', login_token: 'lt_owner', wallet: 100 },
        api_keys: [],
        agents: [{ id: 'agent_a', name: 'A', runtime: 'echo' }],
      });
    });
    after(() => db.close());

    const conversation = () =>
      createConversation(db, { kind: 'chat', ownerId: 'alice', workspaceId, agentIds: ['agent_a'] });

    it('applies each migration once, in order, and records its version', async () => {
      const applied = await db.all<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
      assert.deepEqual(
        applied.map((row) => row.version),
        migrations(db.engine).map((m) => m.version),
      );
      if (location !== ':memory:') {
        const again = await openDb(location);
        const count = await again.get<{ n: number }>('SELECT COUNT(*) AS n FROM schema_migrations');
        await again.close();
        assert.equal(count!.n, applied.length);
      }
    });

    it("reads a table's new columns once it changed under statements read before (another instance migrated)", async () => {
      await db.run('CREATE TABLE widened (k TEXT PRIMARY KEY, v TEXT)');
      await db.run("INSERT INTO widened (k, v) VALUES ('a', 'x')");
      const read = () => Promise.all(Array.from({ length: 5 }, () => db.get('SELECT * FROM widened WHERE k = ?', 'a')));
      // Read at once on several connections (each prepares the statement), then the table gains a column.
      assert.deepEqual(await read(), Array(5).fill({ k: 'a', v: 'x' }));
      const other = location === ':memory:' ? db : await openDb(location);
      await other.run('ALTER TABLE widened ADD COLUMN w TEXT');
      if (other !== db) await other.close();
      assert.deepEqual(await read(), Array(5).fill({ k: 'a', v: 'x', w: null }));
    });

    it('answers counts, sums and times in ms as numbers', async () => {
      await db.run('INSERT INTO sms_sends (phone, sent_at) VALUES (?, ?)', '+10', 1_700_000_000_123);
      const row = await db.get<{ n: number; at: number }>(
        'SELECT COUNT(*) AS n, MAX(sent_at) AS at FROM sms_sends WHERE phone = ?',
        '+10',
      );
      assert.deepEqual(row, { n: 1, at: 1_700_000_000_123 });
    });

    it('commits a transaction whole, or nothing of it', async () => {
      await assert.rejects(
        db.transaction(async (tx) => {
          await tx.run("INSERT INTO meta (key, value) VALUES ('half', 'stored')");
          throw new Error('undone');
        }),
        /undone/,
      );
      assert.equal(await metaValue(db, 'half'), undefined);
      await db.transaction((tx) => tx.run("INSERT INTO meta (key, value) VALUES ('whole', 'stored')"));
      assert.equal(await metaValue(db, 'whole'), 'stored');
    });

    it('runs write transactions that lock one key one after another: 50 racing read-modify-writes lose none', async () => {
      await setMetaValue(db, 'counter', '0');
      await Promise.all(
        Array.from({ length: 50 }, () =>
          db.transaction(async (tx) => {
            await tx.lock('counter');
            const value = Number(await metaValue(tx, 'counter'));
            await tx.run("UPDATE meta SET value = ? WHERE key = 'counter'", String(value + 1));
          }),
        ),
      );
      assert.equal(await metaValue(db, 'counter'), '50');
    });

    it('runs a transaction that locks another key meanwhile (PostgreSQL), one that locks the same key after', async () => {
      const done: string[] = [];
      const first = held(db, async (tx) => {
        await tx.lock('key a');
      });
      await first.holding;
      const other = db.transaction(async (tx) => {
        await tx.lock('key b');
        done.push('b');
      });
      const same = db.transaction(async (tx) => {
        await tx.lock('key a');
        done.push('a again');
      });
      if (db.engine === 'postgres') {
        await other;
        await lockWaited(db);
      }
      done.push('a');
      first.release();
      await Promise.all([first.done, other, same]);
      // SQLite runs one write transaction at a time, in the order they began.
      assert.deepEqual(done, db.engine === 'postgres' ? ['b', 'a', 'a again'] : ['a', 'b', 'a again']);
      await assert.rejects(db.lock('key a'), /only inside a transaction/);
    });

    it("orders a conversation's writes by its row: one waits for the write in progress and takes later ids", async () => {
      const [x, y] = [await conversation(), await conversation()];
      const done: string[] = [];
      let firstRecord: ChatStreamRecord | undefined;
      // A write in a transaction that stays open: the conversation stays locked until it commits.
      const first = held(db, async (tx) => {
        firstRecord = await insertRecord(tx, x.id, agentMessage('x1'));
      });
      await first.holding;
      const other = insertRecord(db, y.id, agentMessage('y1')).then(() => done.push('other conversation'));
      const later = insertRecord(db, x.id, agentMessage('x2')).then((record) => {
        done.push('same conversation');
        return record;
      });
      if (db.engine === 'postgres') {
        await other;
        await lockWaited(db);
      }
      done.push('first');
      first.release();
      await Promise.all([first.done, other]);
      const second = await later;
      assert.deepEqual(
        done,
        db.engine === 'postgres'
          ? ['other conversation', 'first', 'same conversation']
          : ['first', 'other conversation', 'same conversation'],
      );
      assert.equal(second.seq, firstRecord!.seq + 1);
      assert.ok(parseCursor(second.id)! > parseCursor(firstRecord!.id)!, 'the later write takes a later id');
    });

    it('stores a batch of records in one write: seq and ids grow together, the conversation follows its newest', async () => {
      const c = await conversation();
      const asked = (text: string): NewRecord => ({
        sender: 'user',
        event: 'message',
        raw: { type: 'user', message: { role: 'user', content: [{ type: 'text', text }] } },
      });
      const batch = [
        asked('The first question'),
        ...Array.from({ length: 25 }, (_, i) => agentMessage(`b${i}`, `answer ${i}`)),
        asked('The second question'),
      ];
      const { records: stored, previous } = await insertRecords(db, c.id, batch);
      assert.equal(previous, 0, 'the conversation had no record before');
      assert.deepEqual(
        stored.map((r) => r.seq),
        batch.map((_, i) => i + 1),
      );
      const ids = stored.map((r) => parseCursor(r.id)!);
      assert.ok(
        ids.every((id, i) => i === 0 || id > ids[i - 1]!),
        'ids grow with seq',
      );
      assert.deepEqual(
        (await recordsAfter(db, c.id, 0, { records: 200, bytes: 1e9 })).records.map((r) => r.raw),
        batch.map((r) => r.raw),
      );
      assert.equal(await lastRecordId(db, c.id), ids.at(-1));
      const bytes = batch.reduce((sum, r) => sum + Buffer.byteLength(JSON.stringify(r.raw)), 0);
      assert.equal(await conversationBytes(db, c.id), bytes);
      const listed = await listedConversation(db, c.id);
      assert.deepEqual(
        [listed?.title, listed?.lastMessage],
        ['The first question', { role: 'user', text: 'The second question' }],
      );
      // The next write says which record came just before it.
      assert.equal((await insertRecords(db, c.id, [agentMessage('after')])).previous, ids.at(-1));
    });

    it("sends a statement's notification to the other instances only, once it succeeded", async () => {
      // PostgreSQL: a second instance on the same database; SQLite serves one process, with no other to tell.
      const other = db.engine === 'postgres' ? await openDb(location) : undefined;
      const heard = { here: [] as string[], there: [] as string[] };
      const listen = async (on: Db, into: string[]) => {
        let last!: () => void;
        const lastHeard = new Promise<void>((resolve) => {
          last = resolve;
        });
        const stop = await on.listen('contract-by', (payload) => {
          into.push(payload);
          if (payload === 'last') last();
        });
        return { stop, lastHeard };
      };
      const listeners = [await listen(db, heard.here), ...(other ? [await listen(other, heard.there)] : [])];
      const c = await conversation();
      await assert.rejects(
        db.notifyBy('contract-by', 'failed', (sent) => insertRecords(db, 'c_missing', [agentMessage('lost')], sent)),
        /does not exist/,
      );
      await db.notifyBy('contract-by', 'stored', (sent) => insertRecords(db, c.id, [agentMessage('kept')], sent));
      // A notification told everywhere after them: what was heard before it is all there is to hear.
      await db.notify('contract-by', 'last');
      await Promise.all(listeners.map((l) => l.lastHeard));
      for (const l of listeners) await l.stop();
      await other?.close();
      assert.deepEqual(heard, { here: ['last'], there: other ? ['stored', 'last'] : [] });
    });

    it('keeps the first value of a key set twice', async () => {
      assert.equal(await setMetaValue(db, 'first', 'a'), 'a');
      assert.equal(await setMetaValue(db, 'first', 'b'), 'a');
    });

    it('tells listeners after commit, and nothing of a rolled back transaction', async () => {
      const heard: string[] = [];
      let told!: () => void;
      const committed = new Promise<void>((resolve) => {
        told = resolve;
      });
      const stop = await db.listen('contract', (payload) => {
        heard.push(payload);
        if (payload === 'committed') told();
      });
      await assert.rejects(
        db.transaction(async (tx) => {
          await tx.notify('contract', 'rolled back');
          throw new Error('undone');
        }),
      );
      await db.transaction((tx) => tx.notify('contract', 'committed'));
      await committed;
      await stop();
      assert.deepEqual(heard, ['committed']);
    });

    it('gives records ids that grow within a conversation, and reads them back after a cursor', async () => {
      const c = await conversation();
      const stored = [];
      for (let i = 0; i < 5; i++) {
        stored.push(await db.transaction((tx) => insertRecord(tx, c.id, agentMessage(`m${i}`))));
      }
      assert.deepEqual(
        stored.map((r) => r.seq),
        [1, 2, 3, 4, 5],
      );
      const ids = stored.map((r) => parseCursor(r.id)!);
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => a - b),
      );
      assert.equal(await lastRecordId(db, c.id), ids[4]);
      assert.deepEqual(
        (await recordsAfter(db, c.id, ids[1]!, { records: 2, bytes: 1e9 })).records.map((r) => r.id),
        stored.slice(2, 4).map((r) => r.id),
      );
      // A page is cut where its records pass the bytes asked for, but always holds one, and says what is left.
      const small = await recordsAfter(db, c.id, ids[1]!, { records: 200, bytes: 1 });
      assert.deepEqual([small.records.map((r) => r.id), small.more], [[stored[2]!.id], true]);
      const rest = await recordsAfter(db, c.id, ids[1]!, { records: 200, bytes: 1e9 });
      assert.deepEqual([rest.records.map((r) => r.id), rest.more], [stored.slice(2).map((r) => r.id), false]);
      // A record the caller holds is given back as it is (not read again), in its place among those read.
      const held = stored[3]!;
      const mixed = await recordsAfter(db, c.id, ids[1]!, { records: 200, bytes: 1e9 }, (id) =>
        id === ids[3] ? held : undefined,
      );
      assert.deepEqual(
        mixed.records.map((r) => r.id),
        stored.slice(2).map((r) => r.id),
      );
      assert.equal(mixed.records[1], held);
      // Read in two steps (with `held`) or in one (without), a page is cut in the same place.
      const cut = await recordsAfter(db, c.id, ids[1]!, { records: 200, bytes: 1 }, () => undefined);
      assert.deepEqual([cut.records.map((r) => r.id), cut.more], [[stored[2]!.id], true]);
      assert.ok((await conversationBytes(db, c.id)) > 0);
    });

    it('finds an agent message by the JSON inside it', async () => {
      const c = await conversation();
      await db.transaction((tx) => insertRecord(tx, c.id, agentMessage('msg_1', 'Read me aloud.')));
      assert.equal(await agentMessageText(db, c.id, 'agent_a', 'msg_1'), 'Read me aloud.');
      assert.equal(await agentMessageText(db, c.id, 'agent_a', 'msg_2'), undefined);
    });

    it('holds one running turn per conversation, named by its instance', async () => {
      const c = await conversation();
      await insertTurn(db, c.id, `t_${c.id}`);
      assert.equal(await isTurnRunning(db, c.id), true);
      await assert.rejects(insertTurn(db, c.id, `t2_${c.id}`));
      const running = (await runningTurns(db)).find((t) => t.conversationId === c.id);
      assert.equal(running?.instanceId, db.instanceId);
      assert.equal(await db.instanceAlive(db.instanceId), true);
      assert.ok(await markTurnEnded(db, `t_${c.id}`, 'success'));
      assert.equal(await markTurnEnded(db, `t_${c.id}`, 'interrupted'), undefined, 'the first end wins');
      assert.equal(await isTurnRunning(db, c.id), false);
    });

    it('grants once per key, even to 40 racing requests', async () => {
      const member = await provisionMember(db, workspaceId, 'grantee');
      const grants = await Promise.all(
        Array.from({ length: 40 }, () => grantCredits(db, workspaceId, member.member_id, 2.5, 'once')),
      );
      assert.equal(grants.filter((g) => 'idempotent' in g && !g.idempotent).length, 1);
      const wallet = await db.get<{ wallet: number }>('SELECT wallet FROM workspaces WHERE id = ?', workspaceId);
      assert.equal(wallet!.wallet, 97.5);
    });

    it('provisions a member once, and lists members in join order', async () => {
      const [a, b] = await Promise.all([
        provisionMember(db, workspaceId, 'twice'),
        provisionMember(db, workspaceId, 'twice'),
      ]);
      assert.equal(a.member_id, b.member_id);
      assert.equal([a, b].filter((m) => m.created).length, 1);
      const refs = (await listMembers(db, workspaceId)).map((m) => m.sp_user_ref);
      assert.deepEqual(refs.slice(-2), ['grantee', 'twice']);
    });

    it('counts SMS sends across racing requests: one code per phone per 30 seconds', async () => {
      const request = {
        workspaceId,
        phone: '+15550001',
        address: '10.0.0.1',
        addressPerHour: 100,
        workspacePerDay: 100,
      };
      const issued = await Promise.all(Array.from({ length: 10 }, () => issueSmsCode(db, randomBytes(32), request)));
      assert.equal(issued.filter((i) => 'code' in i).length, 1);
    });

    it('replaces a send result kept under a key', async () => {
      const key = { ownerId: 'alice', key: 'k1', fingerprint: 'f1' };
      await rememberSend(db, key, '{"first":true}', 1000);
      await rememberSend(db, { ...key, fingerprint: 'f2' }, '{"second":true}', 2000);
      assert.deepEqual(await priorSend(db, { ...key, fingerprint: 'f2' }, 0), { result: '{"second":true}' });
      assert.equal(await priorSend(db, key, 0), 'reused');
    });

    it('keeps binary columns as bytes (encrypted credentials)', async () => {
      const secret = randomBytes(32);
      await saveConnectorCredentials(db, secret, 'alice', 'github', { token: 'ghp_1' });
      assert.deepEqual(await getConnectorCredentials(db, secret, 'alice', 'github'), { token: 'ghp_1' });
    });

    it('stores and finds text holding U+0000, and reads JSON around it', async () => {
      const first = await provisionMember(db, workspaceId, 'nul\0ref');
      const again = await provisionMember(db, workspaceId, 'nul\0ref');
      assert.deepEqual([first.created, again.member_id], [true, first.member_id]);
      assert.equal(await workspaceBySlug(db, '\0'), undefined);
      const c = await conversation();
      await db.transaction(async (tx) => {
        await insertRecord(tx, c.id, {
          sender: 'user',
          event: 'message',
          raw: { type: 'user', message: { role: 'user', content: [{ type: 'text', text: 'a\0b' }] } },
        });
        await insertRecord(tx, c.id, agentMessage('nul', 'c\0d'));
      });
      assert.equal(await agentMessageText(db, c.id, 'agent_a', 'nul'), 'c\0d');
    });

    it('reads a conversation back as it was stored', async () => {
      const c = await conversation();
      assert.deepEqual(await getConversation(db, c.id), c);
    });

    it('brings what an earlier version stored to the rules of migration 0007, and takes it again unchanged', async () => {
      const c = await conversation();
      const other = await createConversation(db, {
        kind: 'chat',
        ownerId: 'alice',
        workspaceId: 'ws_other',
        agentIds: ['agent_b'],
      });
      await db.run(
        "INSERT INTO agents (id, workspace_id, name, runtime, created_at, ord) VALUES ('agent_b', ?, 'B', 'echo', 'now', 1)",
        workspaceId,
      );
      const upload = (id: string, referenced: number) =>
        db.run(
          `INSERT INTO uploaded_files (id, owner_id, filename, mime_type, size, created_at, referenced)
           VALUES (?, 'alice', 'a.txt', 'text/plain', 1, 'now', ?)`,
          id,
          referenced,
        );
      // Upload ids as the service makes them: `f_` and 22 characters.
      const [linked, twice, orphaned] = ['linked', 'twice', 'orphaned'].map((word) => `f_${word.padEnd(22, 'x')}`) as [
        string,
        string,
        string,
      ];
      for (const id of [linked, twice, orphaned]) await upload(id, 1);
      const url = (id: string) => `https://chat.example/api/v2/files/${id}/a.txt`;
      await db.transaction(async (tx) => {
        await insertRecord(tx, c.id, agentMessage('m_links', `see ${url(linked)} and ${url(twice)}`));
        await insertRecord(tx, other.id, agentMessage('m_other', `also ${url(twice)}`));
      });
      // As an earlier version left them: no links, a feedback under the conversation's workspace, an order whose
      // conversation is gone.
      await db.run('DELETE FROM upload_links');
      await db.run(
        `INSERT INTO feedback (workspace_id, conversation_id, message_id, agent_id, user_id, rating, text, created_at,
           updated_at) VALUES ('ws_other', ?, 'm_links', 'agent_b', 'alice', 'up', 'x', 'now', 'now')`,
        c.id,
      );
      await db.run(
        `INSERT INTO payment_orders (id, conversation_id, user_id, agent_id, amount_fen, title, status, expires_at,
           created_at) VALUES ('ord_gone', 'c_gone', 'alice', 'agent_b', 100, 'x', 'pending', '9999', 'now')`,
      );
      const migration = migrations(db.engine).find((m) => m.version === 7)!;
      const again = async () =>
        db.engine === 'sqlite'
          ? (db as unknown as { raw: { exec(sql: string): void } }).raw.exec(migration.sql)
          : db.run(migration.sql);
      const state = async () => ({
        links: await db.all('SELECT upload_id, conversation_id FROM upload_links ORDER BY upload_id, conversation_id'),
        referenced: await db.all('SELECT id, referenced FROM uploaded_files ORDER BY id'),
        feedback: await db.all('SELECT workspace_id FROM feedback WHERE message_id = ?', 'm_links'),
        order: await db.get('SELECT status FROM payment_orders WHERE id = ?', 'ord_gone'),
      });
      await again();
      const migrated = await state();
      assert.deepEqual(migrated, {
        links: [
          { upload_id: linked, conversation_id: c.id },
          { upload_id: twice, conversation_id: c.id },
          { upload_id: twice, conversation_id: other.id },
        ].sort((a, b) => (a.upload_id + a.conversation_id < b.upload_id + b.conversation_id ? -1 : 1)),
        referenced: [
          { id: linked, referenced: 1 },
          { id: orphaned, referenced: 0 },
          { id: twice, referenced: 1 },
        ],
        feedback: [{ workspace_id: workspaceId }],
        order: { status: 'canceled' },
      });
      await again();
      assert.deepEqual(await state(), migrated);
    });

    it('logs a refused statement by its code and constraint, never with the values of its row', async () => {
      const values = ['m_valueOfTheRow', 'u_valueOfTheRow', 'c_valueOfTheRow'];
      const refused = await db
        .run(
          `INSERT INTO feedback (workspace_id, conversation_id, message_id, agent_id, user_id, rating, text,
             created_at, updated_at) VALUES (?, ?, ?, 'agent_a', ?, 'up', 'a reply', 'now', 'now')`,
          workspaceId,
          values[2],
          values[0],
          values[1],
        )
        .then(
          () => assert.fail('a feedback on a conversation that does not exist is refused'),
          (err: unknown) => err,
        );
      const lines: string[] = [];
      createLogger({ destination: { write: (line) => lines.push(line) } }).error({ err: refused }, 'refused');
      // The positive control: the line is the error as the service logs it.
      assert.match(lines[0]!, /"err":\{"type":/);
      for (const value of values) assert.ok(!lines[0]!.includes(value), `${value} is not logged: ${lines[0]}`);
      if (engine.name === 'PostgreSQL') {
        assert.match(lines[0]!, /SQLSTATE 23503 \(constraint feedback_conversation_id_fkey, table feedback\)/);
        assert.deepEqual(
          [(refused as StatementRejected).code, (refused as StatementRejected).constraint],
          ['23503', 'feedback_conversation_id_fkey'],
        );
      }
    });
  });
}
