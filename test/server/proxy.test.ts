import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, type IncomingHttpHeaders, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CORS_HEADERS, SAFETY_HEADERS } from '../../server/http/errors.js';
import { type ChatStreamRecord, SvcClient } from '../../src/index.js';
import { freePort } from '../helpers/free-port.mjs';
import { startNginx, type TestNginx } from '../helpers/nginx.js';
import { testPostgres } from '../helpers/postgres.js';
import { FIXTURE } from '../helpers/server.js';
import { type ServiceProcess, startServiceProcess } from '../helpers/service-process.js';
import { openSse } from '../helpers/sse.js';
import { until as waitUntil } from '../helpers/until.js';
import { assertServedAsCdn } from '../helpers/widget-serving.js';
import { uniquePhone } from '../helpers/workspace.js';

/*
 * Two instances of svc-server (child processes, so they can be sent SIGTERM) on one PostgreSQL database,
 * behind Debian's nginx running the configuration of docs/server.md. Visitors talk to nginx only; the test
 * reads each instance's /metrics to know where a stream landed.
 */

interface Instance {
  port: number;
  process: ServiceProcess;
}

describe('two instances behind the documented nginx', () => {
  let dir: string;
  let database: string;
  let nginx: TestNginx;
  const instances: Instance[] = [];

  /** Starts instance `i` on its port (again, after a drain), with `args` after the common ones. */
  async function start(i: number, args: string[] = []): Promise<void> {
    const process = await startServiceProcess([
      ...['--port', String(instances[i]!.port), '--db', database, '--files-dir', join(dir, 'files')],
      ...['--fixture', join(dir, 'fixture.json'), '--sms-outbox', join(dir, 'outbox.jsonl')],
      ...['--trust-proxy', '127.0.0.1', '--quota', 'smsPerAddressPerHour=1', '--log-level', 'warn'],
      ...args,
    ]);
    instances[i]!.process = process;
  }

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-proxy-'));
    writeFileSync(join(dir, 'fixture.json'), JSON.stringify(FIXTURE));
    database = await (await testPostgres()).createDatabase();
    for (let i = 0; i < 2; i++) instances.push({ port: await freePort(), process: undefined as never });
    await Promise.all([start(0), start(1)]);
    nginx = await startNginx(instances.map((instance) => `127.0.0.1:${instance.port}`));
  });

  after(async () => {
    await nginx?.stop();
    for (const { process } of instances) {
      if (process?.child.exitCode === null) {
        const exited = once(process.child, 'exit');
        process.child.kill('SIGKILL');
        await exited;
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const admin = () => new SvcClient({ baseUrl: nginx.url, apiKey: 'sk_acme_1' }).workspace('acme');
  let visitors = 0;
  /** A visitor's client through nginx, which resumes its streams by itself. */
  async function visitor(): Promise<{ token: string; client: SvcClient }> {
    const session = await admin().startVisitorSession({ sp_user_ref: `proxy-visitor-${++visitors}` });
    return {
      token: session.token,
      client: new SvcClient({ baseUrl: nginx.url, apiKey: session.token, agentId: 'agent_demo' }),
    };
  }

  /** A JSON call straight to one instance, past nginx. */
  async function direct(i: number, path: string, init: { method?: string; token?: string; json?: unknown } = {}) {
    const res = await fetch(`http://127.0.0.1:${instances[i]!.port}${path}`, {
      method: init.method ?? 'GET',
      headers: {
        ...(init.token && { authorization: `Bearer ${init.token}` }),
        ...(init.json !== undefined && { 'content-type': 'application/json' }),
      },
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text.startsWith('{') ? JSON.parse(text) : text };
  }

  /** A gauge of instance `i`'s /metrics. */
  async function gauge(i: number, name: string): Promise<number> {
    const { body } = await direct(i, '/metrics');
    const value = new RegExp(`^${name} (\\S+)$`, 'm').exec(body)?.[1];
    assert.ok(value !== undefined, `${name} in the metrics of instance ${i}`);
    return Number(value);
  }

  /** The instance holding the one open stream (the other holds none). */
  async function streamHolder(): Promise<number> {
    const open = [await gauge(0, 'svc_record_streams_open'), await gauge(1, 'svc_record_streams_open')];
    assert.deepEqual([...open].sort(), [0, 1], `one stream open: ${open}`);
    return open.indexOf(1);
  }

  /** Reads a conversation through the client's own stream (it resumes by itself), records collected as they come. */
  function follow(client: SvcClient, conversationId: string, lastEventId: string) {
    const records: ChatStreamRecord[] = [];
    const states: string[] = [];
    const controller = new AbortController();
    const waiters = new Set<() => void>();
    const done = (async () => {
      try {
        const stream = client.chat.stream(conversationId, {
          lastEventId,
          signal: controller.signal,
          onConnectionChange: (state) => {
            states.push(state);
            for (const waiter of [...waiters]) waiter();
          },
        });
        for await (const record of stream) {
          records.push(record);
          for (const waiter of [...waiters]) waiter();
        }
      } catch (err) {
        if (!controller.signal.aborted) throw err;
      }
    })();
    /** Resolves once `check` holds, asked again at each record and change of the connection. */
    const until = (check: () => boolean, what: string) =>
      waitUntil(check, what, (changed) => {
        waiters.add(changed);
        return () => waiters.delete(changed);
      });
    return {
      records,
      states,
      until,
      async stop() {
        controller.abort();
        await done;
      },
    };
  }

  const results = (records: ChatStreamRecord[]) => records.filter((r) => r.raw.type === 'result');

  /** Every record once and in order: ids unique and growing, `seq` without a gap. */
  function assertExactlyOnce(records: ChatStreamRecord[]) {
    const ids = records.map((r) => r.id);
    assert.equal(new Set(ids).size, ids.length, 'no record twice');
    assert.deepEqual(ids, [...ids].sort(), 'in order');
    assert.deepEqual(
      records.map((r) => r.seq),
      records.map((_, i) => records[0]!.seq + i),
      'no record missed',
    );
  }

  /** SIGTERMs instance `i` and resolves with its exit code. */
  async function terminate(i: number): Promise<number | null> {
    const { child } = instances[i]!.process;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    return (await exited)[0] as number | null;
  }

  /**
   * A conversation with the demo agent, its first turn done, and a visitor reading it through nginx from
   * the end of that turn; `holder` is the instance the stream landed on.
   */
  async function readingVisitor() {
    const { token, client } = await visitor();
    const first = await client.sendMessage('hello', { newConversation: true });
    const reader = follow(client, first.conversationId, first.lastEventId!);
    // The stream is open once the client says so; the metrics then show where.
    await reader.until(() => reader.states.includes('open'), 'the stream open');
    return { token, client, conversationId: first.conversationId, reader, holder: await streamHolder() };
  }

  type Reading = Awaited<ReturnType<typeof readingVisitor>>;

  /** Starts `/slow SECONDS` on instance `i`, past nginx, and waits until the visitor reads its first delta. */
  async function slowTurnOn(i: number, { token, conversationId, reader }: Reading, seconds: number) {
    const sent = await direct(i, '/api/v2/conversations/send', {
      method: 'POST',
      token,
      json: { message: `/slow ${seconds}`, conversationId },
    });
    assert.equal(sent.status, 200);
    await reader.until(() => reader.records.some((r) => r.raw.type === 'assistant_delta'), 'a delta');
  }

  /** Waits for the turn's `result`, checks the visitor got every record once, and returns the result. */
  async function turnResult({ reader }: Reading) {
    await reader.until(() => results(reader.records).length === 1, "the turn's result");
    await reader.stop();
    assertExactlyOnce(reader.records);
    return results(reader.records)[0]!.raw as { subtype: string; error?: string };
  }

  it("serves the widget's folder as a CDN does, with the documented location /dist/", async () => {
    await assertServedAsCdn(`${nginx.url}/dist/`);
  });

  it('streams a reply through nginx while it is written, not once it ends', async () => {
    const { token } = await visitor();
    const res = await fetch(`${nginx.url}/api/v2/conversations/send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: '/slow 60', targetAgentIds: ['agent_demo'], newConversation: true }),
    });
    const sent = (await res.json()) as { conversationId: string; userEventId: string; results: { streamId: string }[] };
    const reader = await openSse(
      `${nginx.url}/api/v2/conversations/${sent.conversationId}/stream?lastEventId=${sent.userEventId}`,
      { token },
    );
    await reader.waitFor((records) => records.some((r) => r.raw.type === 'assistant_delta'));
    // The turn streams for a minute: that it can still be interrupted shows the delta came while it ran.
    const interrupted = await fetch(`${nginx.url}/api/v2/conversations/${sent.conversationId}/interrupt`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    assert.deepEqual(await interrupted.json(), { interrupted: true, turnId: sent.results[0]!.streamId });
    const records = await reader.untilResult();
    reader.close();
    assert.equal((records.at(-1)!.raw as { subtype: string }).subtype, 'interrupted');
    // On PostgreSQL each instance reports its pool.
    for (const i of [0, 1]) {
      for (const state of ['in_use', 'idle', 'waiting']) await gauge(i, `svc_db_pool_connections{state="${state}"}`);
    }
  });

  it('resumes a stream from its cursor through nginx, by header and by query', async () => {
    const { token, client } = await visitor();
    const turn = await client.sendMessage('/markdown', { newConversation: true });
    const all = turn.records;
    const middle = all[Math.floor(all.length / 2)]!.id;
    const stream = `${nginx.url}/api/v2/conversations/${turn.conversationId}/stream`;
    for (const reader of [
      await openSse(stream, { token, lastEventIdHeader: middle }),
      await openSse(`${stream}?lastEventId=${middle}`, { token }),
    ]) {
      const resumed = await reader.untilResult();
      reader.close();
      assert.deepEqual(
        resumed.map((r) => r.id),
        all.slice(all.findIndex((r) => r.id === middle) + 1).map((r) => r.id),
      );
    }
  });

  it("counts SMS codes by the client's address that nginx forwards (--trust-proxy)", async () => {
    /** A send through nginx from the loopback address `from`. */
    const sendFrom = (from: string) =>
      new Promise<number>((resolve, reject) => {
        const body = JSON.stringify({ phone: uniquePhone() });
        const req = request(
          `${nginx.url}/api/v2/workspaces/acme/sms/send`,
          { method: 'POST', localAddress: from, headers: { 'content-type': 'application/json' } },
          (res) => {
            res.resume();
            resolve(res.statusCode!);
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    // One code an hour per address (--quota smsPerAddressPerHour=1): a second address still gets one.
    assert.equal(await sendFrom('127.0.0.2'), 204);
    assert.equal(await sendFrom('127.0.0.2'), 429);
    assert.equal(await sendFrom('127.0.0.3'), 204);
  });

  /** A request through nginx from the loopback address `from`: its status, headers and body. */
  const through = (path: string, from: string, init: { method?: string; body?: Buffer } = {}) =>
    new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
      const req = request(`${nginx.url}${path}`, { method: init.method ?? 'GET', localAddress: from, agent }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      });
      req.on('error', reject);
      req.end(init.body);
    });
  const agent = new Agent({ keepAlive: true, maxSockets: 50 });
  after(() => agent.destroy());

  /** What nginx answers by itself is `{ detail }` with the headers the service puts on every answer. */
  function assertWordedAsTheService(answer: { headers: IncomingHttpHeaders; body: string }, detail: string) {
    assert.deepEqual(JSON.parse(answer.body), { detail });
    assert.equal(answer.headers['content-type'], 'application/json');
    for (const [name, value] of Object.entries({ ...CORS_HEADERS, ...SAFETY_HEADERS })) {
      assert.equal(answer.headers[name], value, name);
    }
  }

  it('keeps /metrics inside: 404 { detail } through nginx, however the path is written; each instance serves it', async () => {
    for (const path of ['/metrics', '/metrics?format=text', '/%6Detrics', '//metrics']) {
      const answer = await through(path, '127.0.0.1');
      assert.equal(answer.status, 404, path);
      assertWordedAsTheService(answer, 'route not found');
    }
    for (const i of [0, 1]) assert.match((await direct(i, '/metrics')).body, /^svc_record_streams_open /m);
  });

  it("answers a body over nginx's limit with 413 { detail } and CORS headers, which a page's fetch reads", async () => {
    const res = await fetch(`${nginx.url}/api/v2/files/upload`, {
      method: 'POST',
      headers: { authorization: 'Bearer pk_alice', 'content-type': 'application/octet-stream' },
      body: Buffer.alloc(26 * 1024 * 1024),
    });
    const headers: IncomingHttpHeaders = Object.fromEntries(res.headers);
    assert.equal(res.status, 413);
    assertWordedAsTheService({ headers, body: await res.text() }, 'request body too large');
  });

  it('limits requests per client address (limit_req): past the burst 429 { detail } with Retry-After; others go on', async () => {
    // The burst is 500 and 50 a second follow: requests 50 at a time until one is refused (a bound, not a clock).
    let refused: Awaited<ReturnType<typeof through>> | undefined;
    for (let sent = 0; !refused && sent < 20_000; sent += 50) {
      const answers = await Promise.all(Array.from({ length: 50 }, () => through('/healthz', '127.0.0.4')));
      assert.deepEqual(
        answers.filter((a) => a.status !== 200 && a.status !== 429),
        [],
        'only served or refused',
      );
      refused = answers.find((answer) => answer.status === 429);
    }
    assert.ok(refused, 'a 429 came');
    assertWordedAsTheService(refused, 'too many requests from this address, try again later');
    assert.equal(refused.headers['retry-after'], '1');
    assert.equal((await through('/healthz', '127.0.0.5')).status, 200, 'another address is served');
  });

  it('drains the instance a visitor reads from during a turn on the other: the client resumes there, missing nothing', async () => {
    const reading = await readingVisitor();
    const { holder } = reading;
    await slowTurnOn(1 - holder, reading, 5);
    assert.equal(await terminate(holder), 0);
    assert.equal((await turnResult(reading)).subtype, 'success');
    assert.ok(reading.reader.states.includes('reconnecting'), 'the client was moved to the other instance');
    await start(holder);
  });

  it('drains the instance running the turn: not ready, refuses new work, lets the turn finish, exits 0', async () => {
    const reading = await readingVisitor();
    const { token, reader, holder } = reading;
    await slowTurnOn(holder, reading, 10);
    const exit = terminate(holder);
    // Its stream ended (the drain began): it is not ready and turns new work away, while its turn runs on.
    await reader.until(() => reader.states.includes('reconnecting'), 'the stream reconnecting');
    const ready = await direct(holder, '/readyz');
    assert.deepEqual([ready.status, ready.body], [503, { detail: 'this instance is shutting down' }]);
    const refused = await direct(holder, '/api/v2/conversations/send', {
      method: 'POST',
      token,
      json: { message: 'anyone there?', newConversation: true, targetAgentIds: ['agent_echo'] },
    });
    assert.deepEqual(
      [refused.status, refused.body, refused.headers.get('retry-after')],
      [503, { detail: 'this instance is shutting down, try again' }, '1'],
    );
    assert.equal((await turnResult(reading)).subtype, 'success', 'the turn finished');
    assert.equal(await exit, 0);
    await start(holder);
  });

  it('ends the turns still running when the grace is over, with their result, and exits 0', async () => {
    // Both instances with no grace at all, so whichever the stream lands on ends its turn at once.
    for (const i of [0, 1]) {
      await terminate(i);
      await start(i, ['--drain-grace', '0']);
    }
    const reading = await readingVisitor();
    await slowTurnOn(reading.holder, reading, 60);
    assert.equal(await terminate(reading.holder), 0);
    const result = await turnResult(reading);
    assert.deepEqual([result.subtype, result.error], ['error', 'the service stopped during this reply']);
    await start(reading.holder);
  });

  it("answers { detail } with Retry-After and CORS when no instance answers (nginx's 502)", async () => {
    for (const i of [0, 1]) await terminate(i);
    const answer = await through('/api/v2/conversations', '127.0.0.1');
    assert.equal(answer.status, 502);
    assertWordedAsTheService(answer, 'the service cannot be reached, try again');
    assert.equal(answer.headers['retry-after'], '1');
  });
});
