import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Db } from '../../server/store/db.js';
import type { AssistantRawEvent, ChatStreamRecord, PaymentGatePayload } from '../../src/protocol/types.js';
import { send, sendAndRead, sessionToken, streamUrl } from '../helpers/conversation.js';
import { testPostgres } from '../helpers/postgres.js';
import { FIXTURE, startTestServer, type TestServer } from '../helpers/server.js';
import { openSse } from '../helpers/sse.js';
import { uniqueRef } from '../helpers/workspace.js';

/*
 * What refers to a conversation, a member or a workspace, read from the schema itself on both engines, against
 * docs/server.md "What a conversation owns": a table added later that refers to one of them fails here until the
 * delete path covers it or the document says why it is kept. Then a conversation with every kind of dependant
 * the document lists is deleted over HTTP, and each line is checked.
 */

const DOC = readFileSync(fileURLToPath(new URL('../../docs/server.md', import.meta.url)), 'utf8');

type Target = 'conversation' | 'member' | 'workspace';
const TABLE_OF: Record<Target, string> = { conversation: 'conversations', member: 'members', workspace: 'workspaces' };
/** Columns that refer to a target by their name, without a foreign key. */
const NAMED: Record<Target, string[]> = {
  conversation: ['conversation_id', 'chat_group_id'],
  member: ['member_id', 'user_id', 'owner_id', 'owner_user_id'],
  workspace: ['workspace_id'],
};

/** `table.column` → what it refers to and what becomes of it, from the two tables of the document's section. */
function documented(): Map<string, { target: Target; fate: string }> {
  const section = /## What a conversation owns\n([\s\S]*?)\n## /.exec(DOC)?.[1];
  assert.ok(section, 'docs/server.md has the section "What a conversation owns"');
  const rows = [...section.matchAll(/^\| `(\w+\.\w+)` *\| (conversation|member|workspace) *\| (.+?) *\|$/gm)];
  return new Map(rows.map(([, reference, target, fate]) => [reference!, { target: target as Target, fate: fate! }]));
}

/** Every column of the schema with the table its foreign key names, if any. */
async function columns(db: Db): Promise<{ table: string; column: string; references?: string }[]> {
  if (db.engine === 'sqlite') {
    const tables = await db.all<{ name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
    );
    const found = [];
    for (const { name } of tables) {
      const keys = await db.all<{ from: string; table: string }>(`PRAGMA foreign_key_list(${name})`);
      for (const { name: column } of await db.all<{ name: string }>(`PRAGMA table_info(${name})`)) {
        found.push({ table: name, column, references: keys.find((key) => key.from === column)?.table });
      }
    }
    return found;
  }
  const keys = await db.all<{ table_name: string; column_name: string; target: string }>(
    `SELECT kcu.table_name, kcu.column_name, ccu.table_name AS target
     FROM information_schema.table_constraints tc
     JOIN information_schema.key_column_usage kcu
       ON kcu.constraint_name = tc.constraint_name AND kcu.table_schema = tc.table_schema
     JOIN information_schema.constraint_column_usage ccu
       ON ccu.constraint_name = tc.constraint_name AND ccu.table_schema = tc.table_schema
     WHERE tc.constraint_type = 'FOREIGN KEY' AND tc.table_schema = current_schema()`,
  );
  const all = await db.all<{ table_name: string; column_name: string }>(
    'SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema()',
  );
  return all.map(({ table_name, column_name }) => ({
    table: table_name,
    column: column_name,
    references: keys.find((key) => key.table_name === table_name && key.column_name === column_name)?.target,
  }));
}

/** The columns that refer to a conversation, a member or a workspace, as `table.column` → target. */
async function references(db: Db): Promise<Map<string, Target>> {
  const found = new Map<string, Target>();
  for (const { table, column, references } of await columns(db)) {
    for (const target of Object.keys(TABLE_OF) as Target[]) {
      if (table === TABLE_OF[target]) continue;
      if (references === TABLE_OF[target] || NAMED[target].includes(column)) found.set(`${table}.${column}`, target);
    }
  }
  return found;
}

/** The fixture, acme's staff taking conversations over (a conversation's handoff is among its dependants). */
const WITH_OPERATORS = {
  ...FIXTURE,
  workspaces: FIXTURE.workspaces!.map((w) => (w.slug === 'acme' ? { ...w, operators: {} } : w)),
};

const engines: { name: string; db: () => Promise<string> }[] = [
  { name: 'SQLite', db: async () => ':memory:' },
  { name: 'PostgreSQL', db: async () => (await testPostgres()).createDatabase() },
];

for (const engine of engines) {
  describe(`what a conversation owns, on ${engine.name}`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ db: await engine.db(), fixture: WITH_OPERATORS, quotas: { streamsPerUser: 2 } });
    });
    after(() => server.close());
    const db = () => server.ctx.db;

    it('documents every column that refers to a conversation, a member or a workspace', async () => {
      // The detector fires on a table made up for it, by a foreign key and by a name.
      await db().run('CREATE TABLE probe (thing_id TEXT REFERENCES conversations(id), chat_group_id TEXT, x TEXT)');
      const probed = await references(db());
      await db().run('DROP TABLE probe');
      assert.deepEqual(
        [probed.get('probe.thing_id'), probed.get('probe.chat_group_id'), probed.get('probe.x')],
        ['conversation', 'conversation', undefined],
      );
      const inSchema = [...(await references(db()))].map(([reference, target]) => `${reference} → ${target}`).sort();
      const inDoc = [...documented()].map(([reference, { target }]) => `${reference} → ${target}`).sort();
      assert.deepEqual(inSchema, inDoc, 'the schema and docs/server.md "What a conversation owns"');
    });

    /** The rows of each documented reference to a conversation that name it. */
    async function dependants(conversationId: string) {
      const counts = new Map<string, { rows: number; pending: number }>();
      for (const [reference, { target }] of documented()) {
        if (target !== 'conversation') continue;
        const [table, column] = reference.split('.');
        const rows = await db().all<{ status?: string }>(`SELECT * FROM ${table} WHERE ${column} = ?`, conversationId);
        counts.set(reference, { rows: rows.length, pending: rows.filter((row) => row.status === 'pending').length });
      }
      return counts;
    }

    const upload = async (token: string, name: string, fields: Record<string, string> = {}) => {
      const form = new FormData();
      for (const [field, value] of Object.entries(fields)) form.append(field, value);
      form.append('file', new Blob([`bytes of ${name}`], { type: 'text/plain' }), name);
      const res = await server.api('/files/upload', { method: 'POST', token, body: form });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return { id: /\/files\/(f_[\w-]{22})\//.exec(res.body.url)![1]!, url: res.body.url as string };
    };
    const uploadOnDisk = (id: string) => existsSync(join(server.dir, 'files', 'uploads', id));
    const filePart = (file: { url: string }, filename: string) => ({
      type: 'file' as const,
      file: { filename, file_url: file.url },
    });
    const pay = (orderId: string) =>
      fetch(`${server.url}/pay/${orderId}/pay`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: '',
        redirect: 'manual',
      });
    const gateOf = (records: ChatStreamRecord[]) =>
      (records.find((r) => r.raw.type === 'payment_gate')!.raw as { payment: PaymentGatePayload }).payment;

    /** A conversation with the demo agent that has a dependant of every kind the document lists. */
    async function conversationWithEverything(token: string) {
      const withFiles = await sendAndRead(server, token, {
        message: '/file',
        targetAgentIds: ['agent_demo'],
        newConversation: true,
      });
      const id = withFiles.sent.conversationId;
      // The agent's workspace files (above) and its own upload (an image its reply links to).
      const image = await sendAndRead(server, token, { message: '/image', conversationId: id });
      const agentUpload = /\/files\/(f_[\w-]{22})\//.exec(JSON.stringify(image.records))![1]!;
      const reply = withFiles.records.find((r) => r.raw.type === 'assistant')!.raw as AssistantRawEvent;
      const rated = await server.api(`/conversations/${id}/messages/${reply.message.id}/feedback`, {
        method: 'PUT',
        token,
        json: { rating: 'down' },
      });
      assert.equal(rated.status, 200);
      // An order paid (its acknowledgement is a turn of its own) and one pending.
      const paid = gateOf((await sendAndRead(server, token, { message: '/pay 3', conversationId: id })).records);
      const acknowledged = await openSse(streamUrl(server, id), { token });
      assert.equal((await pay(paid.orderId)).status, 303);
      await acknowledged.untilResult();
      acknowledged.close();
      const pending = gateOf((await sendAndRead(server, token, { message: '/pay 5', conversationId: id })).records);
      // A call of a tool the page gives the chat, waiting for the page's answer.
      await sendAndRead(server, token, {
        message: '/cart add Tea',
        conversationId: id,
        clientTools: [
          { name: 'add_to_cart', description: 'Adds a product to the cart.', parameters: { type: 'object' } },
        ],
      });
      // A handoff: the agent asks for a person, one takes it and closes it (the agents answer again after).
      await sendAndRead(server, token, { message: '/human', conversationId: id });
      const operator = await server.api('/workspaces/acme/operators/sessions', {
        method: 'POST',
        token: 'sk_acme_1',
        json: { operator_ref: uniqueRef('staff'), display_name: 'Alex' },
      });
      assert.equal(operator.status, 200, JSON.stringify(operator.body));
      for (const action of ['take', 'close']) {
        const held = await server.api(`/operators/conversations/${id}/${action}`, {
          method: 'POST',
          token: operator.body.token,
          json: {},
        });
        assert.equal(held.status, 200, `${action}: ${JSON.stringify(held.body)}`);
      }
      // The visitor's uploads: one only this conversation links to, one another conversation links to as well,
      // one made for it (chatGroupId) that nothing links to.
      const own = await upload(token, 'own.txt');
      const shared = await upload(token, 'shared.txt');
      const madeFor = await upload(token, 'made-for.txt', { chatGroupId: id });
      await sendAndRead(server, token, {
        message: 'two files',
        conversationId: id,
        parts: [filePart(own, 'own.txt'), filePart(shared, 'shared.txt')],
      });
      const other = await sendAndRead(server, token, {
        message: 'the shared file',
        targetAgentIds: ['agent_echo'],
        newConversation: true,
        parts: [filePart(shared, 'shared.txt')],
      });
      return { id, agentUpload, paid, pending, own, shared, madeFor, other: other.sent.conversationId };
    }

    it('deletes a conversation with every kind of dependant: each goes, is canceled or stays as documented', async () => {
      const { token } = await sessionToken(server);
      const c = await conversationWithEverything(token);
      await server.readersGone(c.id);
      await server.readersGone(c.other);
      // A reply running, read by two streams: the visitor's whole quota of streams (2 on this service).
      const running = await send(server, token, { message: '/slow 60', conversationId: c.id });
      const readers = [
        await openSse(streamUrl(server, c.id, running.userEventId), { token }),
        await openSse(streamUrl(server, c.id, running.userEventId), { token }),
      ];
      await readers[0]!.waitFor((records) => records.some((r) => r.raw.type === 'assistant_delta'));
      const before = await dependants(c.id);
      for (const [reference, { rows }] of before) assert.ok(rows > 0, `the test made a dependant in ${reference}`);

      const deleted = await server.api(`/conversations/${c.id}`, { method: 'DELETE', token });
      assert.equal(deleted.status, 204, JSON.stringify(deleted.body));

      const afterwards = await dependants(c.id);
      for (const [reference, { fate }] of documented()) {
        if (!afterwards.has(reference)) continue;
        const { rows, pending } = afterwards.get(reference)!;
        if (fate.startsWith('deleted')) assert.equal(rows, 0, `${reference}: ${fate}`);
        else if (fate.startsWith('canceled')) {
          assert.deepEqual([rows, pending], [before.get(reference)!.rows, 0], `${reference}: ${fate}`);
        } else assert.fail(`${reference}: a fate the test does not know: ${fate}`);
      }
      // The turn stopped, the streams ended, and they no longer count: two streams open elsewhere.
      await Promise.all(readers.map((reader) => reader.ended));
      await server.readersGone(c.id);
      await Promise.all(server.instances.map(({ ctx }) => ctx.turns.whenIdle()));
      const elsewhere = [
        await openSse(streamUrl(server, c.other), { token }),
        await openSse(streamUrl(server, c.other), { token }),
      ];
      assert.deepEqual(
        elsewhere.map((reader) => reader.status),
        [200, 200],
      );
      for (const reader of elsewhere) reader.close();
      // Its orders: canceled (the paid one stays paid); status and page answer 410, paying changes nothing.
      for (const order of [c.paid, c.pending]) {
        const status = await server.api(`/payments/${order.orderId}/status`, { token });
        assert.deepEqual([status.status, status.body], [410, { detail: 'the conversation of this order was deleted' }]);
        const page = await fetch(order.payUrl);
        assert.equal(page.status, 410);
        assert.match(await page.text(), /The conversation this order came from was deleted/);
        assert.equal((await pay(order.orderId)).status, 410);
      }
      const statuses = await db().all<{ id: string; status: string }>(
        'SELECT id, status FROM payment_orders WHERE conversation_id = ? ORDER BY created_at',
        c.id,
      );
      assert.deepEqual(
        statuses.map((order) => order.status),
        ['paid', 'canceled'],
      );
      await server.ctx.payments.expireDue();
      // Its uploads go with it, files too, but the one another conversation links to stays.
      for (const id of [c.agentUpload, c.own.id, c.madeFor.id]) {
        assert.equal(uploadOnDisk(id), false, `${id} removed`);
        assert.equal((await fetch(`${server.url}/api/v2/files/${id}/x`)).status, 404);
      }
      assert.equal(uploadOnDisk(c.shared.id), true);
      assert.equal((await fetch(c.shared.url)).status, 200);
      assert.equal(existsSync(join(server.dir, 'files', 'conversations', c.id)), false, 'its agent workspace');
      assert.equal((await server.api(`/conversations/${c.id}/messages`, { token })).status, 404);
      // The other conversation is whole.
      const kept = await server.api(`/conversations/${c.other}/messages`, { token });
      assert.ok(kept.body.entries.some((r: ChatStreamRecord) => r.raw.type === 'assistant'));
    });

    it('deletes in one transaction: a delete that fails midway leaves everything as it was', async () => {
      const { token } = await sessionToken(server);
      const { sent, records } = await sendAndRead(server, token, {
        message: '/pay 4',
        targetAgentIds: ['agent_demo'],
        newConversation: true,
      });
      const reply = records.find((r) => r.raw.type === 'assistant')!.raw as AssistantRawEvent;
      await server.api(`/conversations/${sent.conversationId}/messages/${reply.message.id}/feedback`, {
        method: 'PUT',
        token,
        json: { rating: 'up' },
      });
      const before = await dependants(sent.conversationId);
      // The conversation's own row refuses to go, after everything it owns was deleted in the same transaction.
      const refuse =
        engine.name === 'SQLite'
          ? ["CREATE TRIGGER refuse BEFORE DELETE ON conversations BEGIN SELECT RAISE(ABORT, 'refused'); END"]
          : [
              "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$",
              'CREATE TRIGGER refuse BEFORE DELETE ON conversations FOR EACH ROW EXECUTE FUNCTION refuse()',
            ];
      for (const statement of refuse) await db().run(statement);
      try {
        const failed = await server.api(`/conversations/${sent.conversationId}`, { method: 'DELETE', token });
        assert.equal(failed.status, 500);
      } finally {
        await db().run(engine.name === 'SQLite' ? 'DROP TRIGGER refuse' : 'DROP TRIGGER refuse ON conversations');
      }
      assert.deepEqual(await dependants(sent.conversationId), before);
      assert.equal((await server.api(`/conversations/${sent.conversationId}/messages`, { token })).status, 200);
      const again = await server.api(`/conversations/${sent.conversationId}`, { method: 'DELETE', token });
      assert.equal(again.status, 204);
    });
  });
}
