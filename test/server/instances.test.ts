import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type RunningService, startService } from '../../server/boot/service.js';
import { deleteConversation } from '../../server/store/conversation-rows.js';
import { INSTANCE_LOCKS } from '../../server/store/instance-connection.js';
import { insertRecords } from '../../server/store/record-rows.js';
import { clientToolResultMetadata, extractClientToolCalls } from '../../src/protocol/client-tools.js';
import type { ChatStreamRecord } from '../../src/protocol/record-types.js';
import { testPostgres } from '../helpers/postgres.js';
import { FIXTURE } from '../helpers/server.js';
import { type ServiceProcess, startServiceProcess } from '../helpers/service-process.js';
import { openSse } from '../helpers/sse.js';

/*
 * Two instances of the service on one PostgreSQL database behave as one service: A runs in this process,
 * B as a child process (so it can be killed). Each test names the instance every request goes to.
 */

/** Starts `svc-server` as a child on the database (so it can be killed). */
const startChild = (database: string, dir: string) =>
  startServiceProcess([
    '--port',
    '0',
    '--db',
    database,
    '--fixture',
    join(dir, 'fixture.json'),
    '--files-dir',
    join(dir, 'files'),
  ]);

describe('two instances on one PostgreSQL database', () => {
  let dir: string;
  let a: RunningService;
  let b: ServiceProcess;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-instances-'));
    writeFileSync(join(dir, 'fixture.json'), JSON.stringify(FIXTURE));
    const database = await (await testPostgres()).createDatabase();
    // Both start at once: the database is migrated and seeded once.
    [a, b] = await Promise.all([
      startService({ port: 0, db: database, fixture: FIXTURE, filesDir: join(dir, 'files') }),
      startChild(database, dir),
    ]);
  });

  after(async () => {
    if (b.child.exitCode === null && b.child.signalCode === null) {
      const exited = once(b.child, 'exit');
      b.child.kill('SIGTERM');
      await exited;
    }
    await a.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A JSON call to `/api/v2` of one instance. */
  async function call(
    base: string,
    path: string,
    init: { method?: string; token?: string; json?: unknown; headers?: Record<string, string> } = {},
  ) {
    const headers: Record<string, string> = { ...init.headers };
    if (init.token) headers.authorization = `Bearer ${init.token}`;
    if (init.json !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${base}/api/v2${path}`, {
      method: init.method ?? 'GET',
      headers,
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  }

  let refs = 0;
  /** A session token of a new acme member, provisioned on one instance and minted on the other. */
  async function visitor(): Promise<string> {
    const ref = `visitor-${++refs}`;
    assert.equal(
      (
        await call(a.url, '/workspaces/acme/members', {
          method: 'POST',
          token: 'sk_acme_1',
          json: { sp_user_ref: ref },
        })
      ).status,
      200,
    );
    const minted = await call(b.url, '/workspaces/acme/sessions', {
      method: 'POST',
      token: 'sk_acme_1',
      json: { sp_user_ref: ref },
    });
    assert.equal(minted.status, 200);
    return minted.body.token;
  }

  const stream = (base: string, conversationId: string, after?: string) =>
    `${base}/api/v2/conversations/${conversationId}/stream${after ? `?lastEventId=${after}` : ''}`;

  const ids = (records: ChatStreamRecord[]) => records.map((r) => r.id);

  it('debits 200 identical grants split across both instances once', async () => {
    const member = (
      await call(a.url, '/workspaces/acme/members', {
        method: 'POST',
        token: 'sk_acme_1',
        json: { sp_user_ref: 'grantee' },
      })
    ).body.member_id as string;
    const wallet = async () =>
      (await a.ctx.db.get<{ wallet: number }>("SELECT wallet FROM workspaces WHERE slug = 'acme'"))!.wallet;
    const before = await wallet();
    const grants = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        call(i % 2 ? b.url : a.url, `/workspaces/acme/members/${member}/credits`, {
          method: 'POST',
          token: 'sk_acme_1',
          json: { amount: 1.25, idempotency_key: 'one-grant' },
        }),
      ),
    );
    assert.deepEqual(new Set(grants.map((g) => g.status)), new Set([200]));
    assert.equal(new Set(grants.map((g) => g.body.purchase_id)).size, 1);
    assert.equal(grants.filter((g) => !g.body.idempotent).length, 1);
    assert.equal(await wallet(), before - 1.25);
  });

  it('streams a turn run on B to a reader on A, live and in order; either resumes from its cursor', async () => {
    const token = await visitor();
    const first = await call(b.url, '/conversations/send', {
      method: 'POST',
      token,
      json: { message: 'hello', targetAgentIds: ['agent_echo'], newConversation: true },
    });
    const { conversationId } = first.body;
    await (await openSse(stream(b.url, conversationId, first.body.userEventId), { token })).untilResult();
    // A reads live from before the next send; the send and its turn happen on B.
    const reader = await openSse(stream(a.url, conversationId), { token });
    const sent = await call(b.url, '/conversations/send', {
      method: 'POST',
      token,
      json: { message: 'over there', conversationId },
    });
    const live = await reader.untilResult();
    reader.close();
    assert.equal(live[0]!.id, sent.body.userEventId);
    assert.ok(live.some((r) => r.raw.type === 'assistant_delta'));
    assert.deepEqual(ids(live), [...ids(live)].sort(), 'ids only grow');
    assert.deepEqual(
      live.map((r) => r.seq),
      live.map((_, i) => live[0]!.seq + i),
      'no record missed',
    );
    // Resuming from any cursor on either instance gives exactly the records after it.
    const middle = live[2]!.id;
    for (const base of [a.url, b.url]) {
      const resumed = await (await openSse(stream(base, conversationId, middle), { token })).untilResult();
      assert.deepEqual(ids(resumed), ids(live.slice(3)));
    }
  });

  it('holds one running turn per conversation across instances (409), and interrupts it from the other', async () => {
    const token = await visitor();
    const sent = await call(b.url, '/conversations/send', {
      method: 'POST',
      token,
      json: { message: '/slow 30', targetAgentIds: ['agent_demo'], newConversation: true },
    });
    const { conversationId } = sent.body;
    const reader = await openSse(stream(a.url, conversationId, sent.body.userEventId), { token });
    await reader.waitFor((records) => records.some((r) => r.raw.type === 'assistant_delta'));
    const second = await call(a.url, '/conversations/send', {
      method: 'POST',
      token,
      json: { message: 'me too', conversationId },
    });
    assert.deepEqual([second.status, second.body], [409, { detail: 'a reply is still running in this conversation' }]);
    const interrupted = await call(a.url, `/conversations/${conversationId}/interrupt`, { method: 'POST', token });
    assert.deepEqual(interrupted.body, { interrupted: true, turnId: sent.body.results[0].streamId });
    const ended = await call(a.url, '/conversations/send', {
      method: 'POST',
      token,
      json: { message: 'now', conversationId },
    });
    assert.equal(ended.status, 200, 'the interrupt answered once the turn had ended');
    const records = await reader.untilResult();
    reader.close();
    assert.equal((records.at(-1)!.raw as { subtype: string }).subtype, 'interrupted');
  });

  it('takes the answer to a page tool call once, whichever instance each copy of it reaches', async () => {
    const token = await visitor();
    const clientTools = [
      { name: 'add_to_cart', description: 'Adds a product to the cart.', parameters: { type: 'object' } },
    ];
    const asked = await call(a.url, '/conversations/send', {
      method: 'POST',
      token,
      json: { message: '/cart add Tea', targetAgentIds: ['agent_demo'], newConversation: true, clientTools },
    });
    const { conversationId } = asked.body;
    const turn = await (await openSse(stream(b.url, conversationId, asked.body.userEventId), { token })).untilResult();
    const [call0] = turn.flatMap((r) => extractClientToolCalls(r));
    const answer = {
      message: '',
      conversationId,
      toolAction: true,
      metadata: clientToolResultMetadata(call0!.toolUseId, { added: 'Tea' }),
      clientTools,
    };
    // The widget's retries of one answer (one key), and other answers to the same call (other keys), at once.
    const keyOf = (i: number, retried: string, tag: string) => (i < 10 ? retried : `another-${tag}-${i}`);
    const answerAll = (retried: string, tag: string) =>
      Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          call(i % 2 ? b.url : a.url, '/conversations/send', {
            method: 'POST',
            token,
            json: answer,
            headers: { 'idempotency-key': keyOf(i, retried, tag) },
          }),
        ),
      );
    const answers = await answerAll('the-answer', 'first');
    const taken = answers.filter((r) => r.status === 200);
    // Which key's answer is taken is a race (writes wait per conversation, not in one line for the whole database).
    const takenKey = keyOf(
      answers.findIndex((r) => r.status === 200),
      'the-answer',
      'first',
    );
    assert.equal(new Set(taken.map((r) => r.body.userEventId)).size, 1, 'every 200 names one stored answer');
    for (const refused of answers.filter((r) => r.status !== 200)) {
      assert.equal(refused.status, 409);
      assert.match(refused.body.detail, /^(no call of a page tool|a reply is still running)/);
    }
    // Once the reply to it has ended, the call waits for nothing on either instance; the taken key still replays.
    await (await openSse(stream(a.url, conversationId, taken[0]!.body.userEventId), { token })).untilResult();
    const later = await answerAll(takenKey, 'later');
    for (const [i, res] of later.entries()) {
      if (i < 10) assert.deepEqual([res.status, res.body], [200, taken[0]!.body]);
      else {
        assert.deepEqual(
          [res.status, res.body],
          [409, { detail: 'no call of a page tool with this toolUseId waits for an answer' }],
        );
      }
    }
    const messages = await call(b.url, `/conversations/${conversationId}/messages`, { token });
    const stored = messages.body.entries.filter((r: ChatStreamRecord) => r.raw.type === 'user' && r.raw.toolAction);
    assert.equal(stored.length, 1, 'the answer is stored once');
  });

  it('shares uploads: a file uploaded through A downloads through B', async () => {
    const token = await visitor();
    const form = new FormData();
    form.append('file', new Blob(['shared bytes'], { type: 'text/plain' }), 'note.txt');
    const res = await fetch(`${a.url}/api/v2/files/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    assert.equal(res.status, 200);
    const { url } = (await res.json()) as { url: string };
    const onB = new URL(new URL(url).pathname, b.url);
    const download = await fetch(onB);
    assert.equal(download.status, 200);
    assert.equal(await download.text(), 'shared bytes');
  });

  /** Whether instance `instanceId`'s liveness lock is held (asked on a connection of A's pool, which holds none). */
  async function lockHeld(instanceId: string): Promise<boolean> {
    const row = await a.ctx.db.get<{ held: boolean }>(
      `SELECT CASE WHEN pg_try_advisory_lock(${INSTANCE_LOCKS}, hashtext(?))
         THEN NOT pg_advisory_unlock(${INSTANCE_LOCKS}, hashtext(?)) ELSE true END AS held`,
      instanceId,
      instanceId,
    );
    return row!.held;
  }

  const results = (records: ChatStreamRecord[]) => records.filter((r) => r.raw.type === 'result').length;

  it("survives A's own connection dropping mid-reply: its turn ends once; alive again as a new instance, it misses no record", async () => {
    const token = await visitor();
    // A runs a long reply, which B's reader follows.
    const slow = await call(a.url, '/conversations/send', {
      method: 'POST',
      token,
      json: { message: '/slow 30', targetAgentIds: ['agent_demo'], newConversation: true },
    });
    const slowId = slow.body.conversationId as string;
    const slowReader = await openSse(stream(b.url, slowId, slow.body.userEventId), { token });
    await slowReader.waitFor((records) => records.some((r) => r.raw.type === 'assistant_delta'));
    // A follows a conversation whose turns run on B (only notifications wake A's readers of B's records).
    const first = await call(b.url, '/conversations/send', {
      method: 'POST',
      token,
      json: { message: 'hello', targetAgentIds: ['agent_echo'], newConversation: true },
    });
    const followedId = first.body.conversationId as string;
    const followed = await openSse(stream(a.url, followedId, first.body.userEventId), { token });
    await followed.untilResult();

    // A record stored with no notification, as one committed while A does not listen would be.
    const {
      records: [unheard],
    } = await a.ctx.db.transaction((tx) =>
      insertRecords(tx, followedId, [
        {
          sender: 'agent',
          event: 'agent_status',
          agentId: 'agent_echo',
          raw: { type: 'agent_status', agentId: 'agent_echo', status: 'idle' },
        },
      ]),
    );

    // A conversation read on A that is deleted with no notification, as one deleted while A does not listen.
    const doomed = await call(b.url, '/conversations/send', {
      method: 'POST',
      token,
      json: { message: 'soon gone', targetAgentIds: ['agent_echo'], newConversation: true },
    });
    const doomedReader = await openSse(stream(a.url, doomed.body.conversationId, doomed.body.userEventId), { token });
    await doomedReader.untilResult();
    await a.ctx.db.transaction((tx) => deleteConversation(tx, doomed.body.conversationId));

    const before = a.ctx.db.instanceId;
    const back = new Promise<string>((resolve) => a.ctx.db.liveness.watch({ back: resolve }));
    const ended = await a.ctx.db.get<{ ended: boolean }>(
      // With a timeout, it returns once the backend is gone (and so are its locks).
      'SELECT pg_terminate_backend(pid, 60000) AS ended FROM pg_stat_activity WHERE application_name = ?',
      `svc-server ${before}`,
    );
    assert.equal(ended?.ended, true, "A's own connection is found by its application_name");
    const after = await back;
    assert.notEqual(after, before);
    assert.equal(a.ctx.db.instanceId, after);
    assert.equal(a.ctx.db.liveness.alive, true);
    assert.deepEqual([await lockHeld(after), await lockHeld(before)], [true, false], 'B takes the new A for alive');

    // Back, A's readers read on from the table, and hear B again; the stream of the conversation deleted ends.
    await followed.waitFor((all) => all.some((r) => r.id === unheard!.id));
    await doomedReader.ended;
    const sent = await call(b.url, '/conversations/send', {
      method: 'POST',
      token,
      json: { message: 'heard again', conversationId: followedId },
    });
    const live = await followed.waitFor((all) => results(all) === 2);
    followed.close();
    const turn = live.slice(live.findIndex((r) => r.id === sent.body.userEventId));
    assert.equal(turn.at(-1)!.raw.type, 'result');
    assert.deepEqual(
      turn.map((r) => r.seq),
      turn.map((_, i) => turn[0]!.seq + i),
      'no record of the turn run on B is missed',
    );

    // A's reply ended once, with an error, and nothing was added to it after its end.
    const slowRecords = await slowReader.untilResult();
    const result = slowRecords.at(-1)!.raw as { subtype: string; error: string };
    assert.equal(result.subtype, 'error');
    assert.ok(
      [
        'the service lost its database connection during this reply',
        'the service restarted during this reply',
        'the instance of the service running this reply stopped during it',
      ].includes(result.error),
      result.error,
    );
    const next = await call(a.url, '/conversations/send', {
      method: 'POST',
      token,
      json: { message: '/slow 1', conversationId: slowId },
    });
    assert.equal(next.status, 200, 'A takes new turns');
    const all = await slowReader.waitFor((records) => results(records) === 2);
    slowReader.close();
    // The next turn streams for a second: a turn that went on after its end would add to it meanwhile.
    const later = all.slice(slowRecords.length);
    assert.equal(later[0]?.id, next.body.userEventId, 'no record between the end and the next turn');
    assert.deepEqual(new Set(later.map((r) => r.turnId)), new Set([next.body.results[0].streamId]));
    const row = await a.ctx.db.get<{ instance_id: string }>(
      'SELECT instance_id FROM turns WHERE id = ?',
      next.body.results[0].streamId,
    );
    assert.equal(row?.instance_id, after, 'the new turn runs as the new instance');
  });

  it('closes the turn of an instance killed mid-reply, and expires its orders, from the other', async () => {
    const token = await visitor();
    const paying = await call(b.url, '/conversations/send', {
      method: 'POST',
      token,
      json: { message: '/pay 3 1', targetAgentIds: ['agent_demo'], newConversation: true },
    });
    const payReader = await openSse(stream(a.url, paying.body.conversationId, paying.body.userEventId), { token });
    await payReader.untilResult();
    const sent = await call(b.url, '/conversations/send', {
      method: 'POST',
      token,
      json: { message: '/slow 30', targetAgentIds: ['agent_demo'], newConversation: true },
    });
    const reader = await openSse(stream(a.url, sent.body.conversationId, sent.body.userEventId), { token });
    await reader.waitFor((records) => records.some((r) => r.raw.type === 'assistant_delta'));
    const exited = once(b.child, 'exit');
    b.child.kill('SIGKILL');
    await exited;
    const records = await reader.untilResult();
    reader.close();
    const result = records.at(-1)!.raw as { subtype: string; error: string };
    // Said as it happened: the instance running it stopped (the service as a whole did not restart).
    assert.deepEqual(
      [result.subtype, result.error],
      ['error', 'the instance of the service running this reply stopped during it'],
    );
    assert.ok(
      records.some((r) => r.raw.type === 'assistant'),
      'the text streamed before the kill is kept as a message',
    );
    // The order B made expires on A, with no one reading it: its timer died with B.
    const resolution = await payReader.waitFor((all) => all.some((r) => r.raw.type === 'payment_gate_resolution'));
    payReader.close();
    assert.equal((resolution.at(-1)!.raw as { status: string }).status, 'expired');
    // A keeps serving.
    const after = await call(a.url, '/conversations/send', {
      method: 'POST',
      token,
      json: { message: 'still here?', conversationId: sent.body.conversationId },
    });
    assert.equal(after.status, 200);
  });
});
