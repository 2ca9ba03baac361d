import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { NOBODY_THERE } from '../../server/runtimes/nobody-there.js';
import { TURN_FAILED } from '../../server/runtimes/types.js';
import { ABANDONED } from '../../server/turns/end-turn.js';
import { LOST_LIVENESS } from '../../server/turns/registry.js';
import {
  type ChatStreamRecord,
  extractClientToolCalls,
  OperatorInbox,
  readClientToolAnswer,
  type SendResult,
  SvcClient,
} from '../../src/index.js';
import { freePort } from '../helpers/free-port.mjs';
import { startNginx, type TestNginx } from '../helpers/nginx.js';
import { ownPostgres, type TestPostgres } from '../helpers/postgres.js';
import { FIXTURE } from '../helpers/server.js';
import { type ServiceProcess, startServiceProcess } from '../helpers/service-process.js';
import { random, SEED, size } from './soak.js';

/*
 * Faults of the database under two instances of svc-server (child processes) on PostgreSQL, behind Debian's
 * nginx running the configuration of docs/server.md: the database's connections terminated
 * (`pg_terminate_backend`), the database stopped for a while (`pg_ctl stop -m fast`, then started), and
 * restarted at once, each while a visitor's reply is beginning and while it streams, with visitors sending
 * meanwhile. No instance exits; `/readyz` follows the database; every send lands exactly once or is answered
 * 503 with Retry-After (and lands once when sent again with its Idempotency-Key); every reply ends with its
 * `result`, a failure in a sentence for the visitor; both instances serve again without a restart.
 */

/** Each fault at each point of a turn, once (the soak: three times, in a random order). */
const FAULTS = ['terminate', 'stop', 'restart'] as const;
const POINTS = ['begun', 'streaming'] as const;
const ROUNDS = size(1, 3);
/** Sends made while each fault happens. */
const SENDS = 3;
/** What a visitor may read when the database went away under a reply. */
const SENTENCES = new Set<string>([LOST_LIVENESS, ABANDONED.stopped, TURN_FAILED.notStored]);
/**
 * How long globex's visitors wait for a person: long enough for the database to be stopped, and seen stopped, before
 * the wait ends on a busy machine (a stop and its sighting take 1 to 3 s here; the test checks it came first).
 */
const WAIT_SECONDS = 12;

interface Instance {
  port: number;
  process: ServiceProcess;
}

describe(`a database outage under two instances behind the documented nginx (seed ${SEED})`, () => {
  let dir: string;
  let cluster: TestPostgres;
  let database: string;
  let nginx: TestNginx;
  const instances: Instance[] = [];
  const pick = random();

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-outage-'));
    // acme's staff take conversations (issue 47), as in the handoffs suite; globex's visitors wait WAIT_SECONDS.
    const operators: Record<string, { wait_seconds?: number }> = { acme: {}, globex: { wait_seconds: WAIT_SECONDS } };
    const workspaces = FIXTURE.workspaces!.map((w) => ({ ...w, operators: operators[w.slug] }));
    writeFileSync(join(dir, 'fixture.json'), JSON.stringify({ ...FIXTURE, workspaces }));
    cluster = await ownPostgres();
    database = await cluster.createDatabase();
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      const process = await startServiceProcess([
        ...['--port', String(port), '--db', database, '--files-dir', join(dir, 'files')],
        ...['--fixture', join(dir, 'fixture.json'), '--trust-proxy', '127.0.0.1', '--log-level', 'warn'],
      ]);
      instances.push({ port, process });
    }
    nginx = await startNginx(instances.map(({ port }) => `127.0.0.1:${port}`));
  });

  after(async () => {
    await nginx?.stop();
    for (const { process } of instances) {
      if (process.child.exitCode === null && process.child.signalCode === null) {
        const exited = once(process.child, 'exit');
        process.child.kill('SIGKILL');
        await exited;
      }
    }
    cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Fails the test, with its log, if an instance has exited. */
  function assertRunning(when: string) {
    for (const [i, { process }] of instances.entries()) {
      const { exitCode, signalCode } = process.child;
      assert.ok(
        exitCode === null && signalCode === null,
        `instance ${i} exited (${exitCode ?? signalCode}) ${when}:\n${process.stderr.join('')}`,
      );
    }
  }

  /** What instance `i` answers on /readyz; status 0 when it does not answer at all. */
  const readiness = async (i: number) => {
    const res = await fetch(`http://127.0.0.1:${instances[i]!.port}/readyz`).catch(() => undefined);
    if (!res) return { status: 0, body: undefined, retryAfter: null };
    return { status: res.status, body: await res.json(), retryAfter: res.headers.get('retry-after') };
  };

  /** Waits until both instances say `status` on /readyz (asked again and again: readiness has no event). */
  async function untilReadiness(status: 200 | 503) {
    for (let attempt = 0; ; attempt++) {
      const answers = await Promise.all([readiness(0), readiness(1)]);
      if (answers.every((answer) => answer.status === status)) return answers;
      assertRunning(`while waiting for /readyz ${status}`);
      await sleep(Math.min(50 * 2 ** attempt, 500));
    }
  }

  let visitors = 0;
  /** A new visitor of `slug`'s, its token and client, through nginx (minted while the database is up). */
  async function visitor(slug = 'acme') {
    const session = await new SvcClient({ baseUrl: nginx.url, apiKey: `sk_${slug}_1` })
      .workspace(slug)
      .startVisitorSession({ sp_user_ref: `outage-visitor-${++visitors}` });
    return { token: session.token, client: new SvcClient({ baseUrl: nginx.url, apiKey: session.token }) };
  }

  /** A send through nginx as the widget makes it, with its Idempotency-Key; the answer as it came. */
  async function send(token: string, key: string, body: Record<string, unknown>) {
    const res = await fetch(`${nginx.url}/api/v2/conversations/send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(body),
    }).catch((err: Error) => err);
    if (res instanceof Error) return { status: 0, body: res.message, retryAfter: null };
    const text = await res.text();
    return {
      status: res.status,
      body: text.startsWith('{') ? JSON.parse(text) : text,
      retryAfter: res.headers.get('retry-after'),
    };
  }

  /** A send that did not land: a 503 `{ detail }` with Retry-After, which a client sends again. */
  function assertRetryable(answer: Awaited<ReturnType<typeof send>>, what: string) {
    assert.equal(answer.status, 503, `${what}: ${JSON.stringify(answer.body)}`);
    assert.equal(typeof answer.body.detail, 'string', `${what}: a { detail } body`);
    assert.ok(Number(answer.retryAfter) >= 1, `${what}: Retry-After`);
  }

  /** Follows a conversation with the visitor's client (it resumes by itself) until a turn's `result`. */
  function follow(client: SvcClient, sent: Pick<SendResult, 'conversationId' | 'userEventId'>) {
    const records: ChatStreamRecord[] = [];
    let heard = () => {};
    const controller = new AbortController();
    const done = (async () => {
      try {
        for await (const record of client.chat.stream(sent.conversationId, {
          lastEventId: sent.userEventId,
          signal: controller.signal,
        })) {
          records.push(record);
          heard();
          if (record.raw.type === 'result') return;
        }
      } catch (err) {
        if (!controller.signal.aborted) throw err;
      }
    })();
    const until = (check: () => boolean) =>
      new Promise<void>((resolve, reject) => {
        heard = () => check() && resolve();
        heard();
        done.then(() => (check() ? resolve() : reject(new Error('the stream ended first'))), reject);
      });
    return { records, until, done, stop: () => controller.abort() };
  }

  /** The messages a visitor's conversations hold with `text`, over all of them (a lost answer would make two). */
  async function landed(client: SvcClient, texts: string[]): Promise<Map<string, number>> {
    const count = new Map(texts.map((text) => [text, 0]));
    for (let cursor: string | undefined; ; ) {
      const page = await client.chat.listConversations({ cursor, limit: 100 });
      for (const { id } of page.conversations) {
        for (const entry of (await client.chat.messages(id)).entries) {
          if (entry.raw.type !== 'user') continue;
          const text = entry.raw.message.content.map((block) => ('text' in block ? block.text : '')).join('');
          if (count.has(text)) count.set(text, count.get(text)! + 1);
        }
      }
      if (!page.nextCursor) return count;
      cursor = page.nextCursor;
    }
  }

  /** Injects `fault`; for `stop`, checks what the instances answer while the database is away, then starts it. */
  async function inject(fault: (typeof FAULTS)[number], sender: { token: string; client: SvcClient }) {
    if (fault === 'terminate') {
      assert.ok((await cluster.terminateConnections(new URL(database).pathname.slice(1))) > 0, 'connections cut');
      return;
    }
    if (fault === 'restart') {
      await cluster.restart();
      return;
    }
    await cluster.halt('fast');
    try {
      for (const answer of await untilReadiness(503)) {
        assert.deepEqual([typeof answer.body.detail, Number(answer.retryAfter) >= 1], ['string', true]);
      }
      // Reads and sends answer 503 with Retry-After while the database is away, through nginx and at each instance.
      const history = await sender.client.chat.listConversations({ limit: 1, maxRetries: 0 }).then(
        () => undefined,
        (err: { status?: number }) => err.status,
      );
      assert.equal(history, 503, 'a read is answered 503');
      for (const { port } of instances) {
        const res = await fetch(`http://127.0.0.1:${port}/api/v2/conversations`, {
          headers: { authorization: `Bearer ${sender.token}` },
        });
        assert.deepEqual(
          [res.status, await res.json(), Number(res.headers.get('retry-after')) >= 1],
          [503, { detail: 'the database cannot be reached, try again' }, true],
        );
      }
      const refused = await send(sender.token, crypto.randomUUID(), {
        message: 'while the database is away',
        targetAgentIds: ['agent_echo'],
        newConversation: true,
      });
      assertRetryable(refused, 'a send while the database is away');
    } finally {
      await cluster.start();
    }
  }

  it('the answer to a call of a page tool while the database is away: a 503, the client sends it again, it lands once', async () => {
    const { token } = await visitor();
    // The client as the widget has it, with every answer it got counted.
    const statuses: number[] = [];
    let refused = () => {};
    const client = new SvcClient({
      baseUrl: nginx.url,
      apiKey: token,
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        if (init?.method === 'POST') statuses.push(res.status);
        if (res.status === 503) refused();
        return res;
      },
    });
    const cartTool = { name: 'add_to_cart', description: 'Adds to the cart.', parameters: { type: 'object' } };
    const conversation = client.conversation({ targetAgentIds: ['agent_demo'], clientTools: [cartTool] });
    const asked = await conversation.send('/cart add Tea 2');
    const [call] = asked.records.flatMap(extractClientToolCalls);
    assert.deepEqual(call?.input, { product: 'Tea', quantity: 2 });

    await cluster.halt('fast');
    let answered: ReturnType<typeof conversation.answerClientTool> | undefined;
    try {
      await untilReadiness(503);
      const first503 = new Promise<void>((resolve) => {
        refused = resolve;
      });
      answered = conversation.answerClientTool(call!.toolUseId, { output: { cart: { Tea: 2 } } });
      await first503;
    } finally {
      await cluster.start();
    }
    const turn = await answered!;
    assert.ok(statuses.includes(503), `a 503 first: ${statuses}`);
    assert.equal(turn.text, 'Done. The page answered: `{"cart":{"Tea":2}}`');
    const answers = (await client.chat.messages(conversation.id!)).entries.filter(
      (entry) => entry.raw.type === 'user' && readClientToolAnswer(entry.raw)?.toolUseId === call!.toolUseId,
    );
    assert.equal(answers.length, 1, 'the answer landed once');
    await assert.rejects(
      conversation.answerClientTool(call!.toolUseId, { output: 'again' }),
      (err: { status?: number }) => err.status === 409,
    );
    assertRunning('after the answer');
  });

  it('a take while the database is away: a 503, the conversation taken once it is back, the visitor told once', async () => {
    const { client } = await visitor();
    const conversation = client.conversation({ targetAgentIds: ['agent_echo'] });
    await conversation.send('hello');
    await conversation.requestHandoff('the database is about to go');
    const session = await new SvcClient({ baseUrl: nginx.url, apiKey: 'sk_acme_1' })
      .workspace('acme')
      .mintOperatorSession({ operator_ref: 'outage-staff', display_name: 'Alex' });
    const inbox = new OperatorInbox({ baseUrl: nginx.url, apiKey: session.token });

    await cluster.halt('fast');
    try {
      await untilReadiness(503);
      await assert.rejects(
        inbox.take(conversation.id!, { maxRetries: 0 }),
        (err: { status?: number }) => err.status === 503,
      );
    } finally {
      await cluster.start();
    }
    await untilReadiness(200);
    // Asked again, as the inbox does after a 503: taken now, and a second ask is answered as before.
    assert.equal((await inbox.take(conversation.id!)).state, 'human');
    assert.equal((await inbox.take(conversation.id!)).state, 'human');
    const joined = (await client.chat.messages(conversation.id!)).entries.filter(
      (entry) => entry.raw.type === 'operator_joined',
    );
    assert.equal(joined.length, 1, 'the visitor is told once');
    assertRunning('after the take');
  });

  it('a wait for a person that ends while the database is away ends once it is back, once: the note, the card, a take refused', async () => {
    // Every answer the visitor's and the operator's clients get, their streams' too.
    const statuses: number[] = [];
    const counted: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      statuses.push(res.status);
      return res;
    };
    const { token } = await visitor('globex');
    const client = new SvcClient({ baseUrl: nginx.url, apiKey: token, fetch: counted });
    const conversation = client.conversation({ targetAgentIds: ['agent_globex'] });
    await conversation.send('hello');
    const session = await new SvcClient({ baseUrl: nginx.url, apiKey: 'sk_globex_1' })
      .workspace('globex')
      .mintOperatorSession({ operator_ref: 'outage-staff', display_name: 'Sam' });
    const inbox = new OperatorInbox({ baseUrl: nginx.url, apiKey: session.token, fetch: counted });
    const asked = Date.now();
    const waiting = await conversation.requestHandoff('the database is about to go');
    // The service set its deadline WAIT_SECONDS after it stored the request: by this at the latest.
    const deadline = Date.now() + WAIT_SECONDS * 1000;
    assert.equal(waiting.state, 'waiting');
    const followed = follow(client, { conversationId: conversation.id!, userEventId: waiting.at! });

    await cluster.halt('fast');
    try {
      await untilReadiness(503);
      assert.ok(Date.now() < asked + WAIT_SECONDS * 1000, 'the database went away before the wait ended');
      // Away past the deadline: the wait is the feature's own, no other pause.
      await sleep(deadline - Date.now());
      assertRunning('at the deadline, the database away');
    } finally {
      await cluster.start();
    }
    // The agent's turn after the wait ends with its result; the visitor's stream resumed through the outage.
    await followed.until(() => followed.records.some((r) => r.raw.type === 'result'));
    const result = followed.records.find((r) => r.raw.type === 'result')!;
    assert.equal(result.raw.type === 'result' && result.raw.subtype, 'success', JSON.stringify(result.raw));
    await untilReadiness(200);

    const { entries } = await client.chat.messages(conversation.id!);
    const unanswered = entries.filter((entry) => entry.raw.type === 'handoff_unanswered');
    assert.deepEqual(
      unanswered.map((entry) => entry.raw),
      [{ type: 'handoff_unanswered', waitedSeconds: WAIT_SECONDS }],
      'the wait ended once',
    );
    const said = entries.flatMap((entry) => (entry.raw.type === 'assistant' ? entry.raw.message.content : []));
    const notes = said.filter((block) => block.type === 'text' && block.text === NOBODY_THERE);
    const cards = said.filter((block) => block.type === 'tool_use' && block.name === 'collect_info');
    assert.deepEqual([notes.length, cards.length], [1, 1], 'one note and one contact card');

    // The operator who comes late is told the conversation no longer waits, as docs/protocol.md says.
    await assert.rejects(inbox.take(conversation.id!), (err: { status?: number; message?: string }) => {
      assert.deepEqual([err.status, err.message], [409, 'this conversation is not waiting for a person']);
      return true;
    });
    // The agents answer the visitor again, and nothing said before is lost or doubled.
    assert.equal((await conversation.send('after the outage')).text, 'Echo: after the outage');
    const after = (await client.chat.messages(conversation.id!)).entries.map((entry) => entry.raw.type);
    assert.deepEqual(
      ['user', 'handoff_requested', 'handoff_unanswered'].map((type) => after.filter((t) => t === type).length),
      [2, 1, 1],
    );
    assert.deepEqual(
      statuses.filter((status) => status >= 500 && status !== 503),
      [],
      'no 5xx but the 503 of a database away',
    );
    assertRunning('after the wait ended');
  });

  const cycles = Array.from({ length: ROUNDS }, () =>
    FAULTS.flatMap((fault) => POINTS.map((point) => ({ fault, point }))),
  );
  const order = cycles.flat().sort(() => (ROUNDS > 1 ? pick() - 0.5 : 0));

  for (const [n, { fault, point }] of order.entries()) {
    it(`${fault} while a reply has ${point}: nobody exits, sends land once or get a 503, the reply ends`, async () => {
      const reader = await visitor();
      const sender = await visitor();
      const turn = await reader.client.chat.send({
        message: '/slow 3',
        targetAgentIds: ['agent_demo'],
        newConversation: true,
      });
      const followed = follow(reader.client, turn);
      try {
        if (point === 'streaming') {
          await followed.until(() => followed.records.some((r) => r.raw.type === 'assistant_delta'));
        }

        // Visitors send while the fault happens: each answer is a landing or a retryable refusal.
        const texts = Array.from({ length: SENDS }, (_, i) => `cycle ${n} send ${i}`);
        const keys = texts.map(() => crypto.randomUUID());
        const body = (text: string) => ({ message: text, targetAgentIds: ['agent_echo'], newConversation: true });
        const during = texts.map((text, i) => send(sender.token, keys[i]!, body(text)));
        await inject(fault, sender);
        const answers = await Promise.all(during);
        assertRunning(`after ${fault}`);

        const ready = await untilReadiness(200);
        assert.deepEqual(
          ready.map((answer) => answer.body),
          [{ status: 'ready' }, { status: 'ready' }],
        );
        // Sent again with its key, as a client does after a 503: it lands now, once.
        for (const [i, answer] of answers.entries()) {
          if (answer.status === 200) continue;
          assertRetryable(answer, `send ${i}`);
          const again = await sender.client.chat.send(body(texts[i]!), { idempotencyKey: keys[i]! });
          assert.ok(again.conversationId);
        }
        const counts = await landed(sender.client, texts);
        assert.deepEqual(
          [...counts.values()],
          texts.map(() => 1),
          `each send once: ${JSON.stringify([...counts])}`,
        );

        // The reply ends with its result (the client resumed through the outage), a failure in the visitor's words.
        await followed.until(() => followed.records.some((r) => r.raw.type === 'result'));
        const result = followed.records.find((r) => r.raw.type === 'result')!.raw as {
          subtype: string;
          error?: string;
        };
        if (result.subtype !== 'success') {
          assert.equal(result.subtype, 'error');
          assert.ok(SENTENCES.has(result.error!), `a sentence for the visitor: ${result.error}`);
        }
        const ids = followed.records.map((r) => r.id);
        assert.equal(new Set(ids).size, ids.length, 'no record twice');

        // Both instances serve again, each on its own, without a restart: a reply through each.
        for (const { port } of instances) {
          const direct = new SvcClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: sender.token });
          const reply = await direct.sendMessage('back', { targetAgentIds: ['agent_echo'], newConversation: true });
          assert.equal(reply.text, 'Echo: back');
        }
        assertRunning('at the end of the cycle');
      } finally {
        followed.stop();
      }
    });
  }
});
