import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLogger } from '../../server/boot/logger.js';
import { DatabaseUnavailable, type Db } from '../../server/store/db.js';
import { readTurn, send, sessionToken } from '../helpers/conversation.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { openSse } from '../helpers/sse.js';
import { uniquePhone } from '../helpers/workspace.js';

/** A `fetch` of a path outside `/api/v2` (health, metrics). */
async function get(server: TestServer, path: string, token?: string) {
  const res = await fetch(`${server.url}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text.startsWith('{') ? JSON.parse(text) : undefined };
}

/** The value of one series of a Prometheus text document, or undefined. */
function sample(metrics: string, series: string): number | undefined {
  const line = metrics.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('health, metrics and request logs', () => {
  let server: TestServer;
  const lines: string[] = [];
  before(async () => {
    server = await startTestServer({ log: { level: 'debug', destination: { write: (line) => lines.push(line) } } });
  });
  after(() => server.close());

  it('answers /healthz and /readyz without a credential, and keeps them out of the OpenAPI document', async () => {
    assert.deepEqual((await get(server, '/healthz')).body, { status: 'ok' });
    assert.deepEqual((await get(server, '/readyz')).body, { status: 'ready' });
    const { paths } = (await server.api('/openapi.json')).body as { paths: Record<string, unknown> };
    assert.ok(Object.keys(paths).length > 20, 'the document lists the API');
    assert.deepEqual(
      Object.keys(paths).filter((path) => /healthz|readyz|metrics/.test(path)),
      [],
    );
  });

  it('counts requests by route pattern and status, records, open streams, running turns and SMS codes', async () => {
    const { token } = await sessionToken(server);
    const sent = await send(server, token, {
      message: '/slow 30',
      targetAgentIds: ['agent_demo'],
      newConversation: true,
    });
    const reader = await openSse(
      `${server.url}/api/v2/conversations/${sent.conversationId}/stream?lastEventId=${sent.userEventId}`,
      { token },
    );
    await reader.waitFor((records) => records.some((r) => r.raw.type === 'assistant_delta'));
    const phone = uniquePhone();
    for (let i = 0; i < 2; i++) await server.api('/workspaces/acme/sms/send', { method: 'POST', json: { phone } });
    const during = (await get(server, '/metrics')).text;
    assert.equal(sample(during, 'svc_record_streams_open'), 1);
    assert.equal(sample(during, 'svc_turns_running'), 1);
    assert.equal(sample(during, 'svc_sms_codes_sent_total'), 1);
    assert.equal(sample(during, 'svc_sms_codes_refused_total{limit="phone"}'), 1);
    assert.ok(sample(during, 'svc_records_written_total')! >= 3);
    assert.ok(sample(during, 'nodejs_eventloop_lag_seconds')! >= 0);
    const sends =
      'svc_http_request_duration_seconds_count{method="POST",route="/api/v2/conversations/send",status="200"}';
    assert.equal(sample(during, sends), 1);
    assert.ok(!during.includes(sent.conversationId), 'routes by pattern, never a URL');

    await server.api(`/conversations/${sent.conversationId}/interrupt`, { method: 'POST', token });
    await reader.untilResult();
    reader.close();
    await server.readersGone(sent.conversationId);
    const later = (await get(server, '/metrics')).text;
    assert.equal(sample(later, 'svc_record_streams_open'), 0);
    assert.equal(sample(later, 'svc_turns_running'), 0);
  });

  it('logs one JSON line per request: level, time, request id, route pattern, status, duration; the client at debug', async () => {
    const { token } = await sessionToken(server);
    const sent = await send(server, token, { message: 'hi', targetAgentIds: ['agent_echo'], newConversation: true });
    await readTurn(server, token, sent.conversationId, sent.userEventId!);
    await server.api(`/conversations/${sent.conversationId}/messages`, { token });
    const entries = lines.map((line) => JSON.parse(line));
    const done = entries.find((e) => e.route === '/api/v2/conversations/:id/messages' && e.status === 200);
    assert.ok(done, 'the request line');
    assert.equal(done.level, 'info');
    assert.match(done.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.match(done.reqId, /^[0-9a-f]{16}$/);
    assert.equal(done.method, 'GET');
    assert.equal(typeof done.ms, 'number');
    const received = entries.find((e) => e.reqId === done.reqId && e.level === 'debug');
    assert.deepEqual([received.msg, received.ip, received.headers], ['request received', '127.0.0.1', undefined]);
    assert.ok(!lines.some((line) => line.includes(sent.conversationId)), 'no URL with its ids');
    assert.ok(!lines.some((line) => line.includes(token)), 'no token');
  });
});

describe('readiness', () => {
  it('answers /readyz 503 { detail } with Retry-After once the database does not answer, /healthz still 200', async () => {
    const server = await startTestServer();
    try {
      await server.ctx.db.close();
      const ready = await get(server, '/readyz');
      assert.deepEqual([ready.status, ready.body], [503, { detail: 'the database does not answer' }]);
      assert.equal(ready.headers.get('retry-after'), '5');
      assert.equal((await get(server, '/healthz')).status, 200);
    } finally {
      await server.close();
    }
  });

  it('answers /readyz 503 while the database lacks a migration of this version, and ready again once it has it', async () => {
    const server = await startTestServer();
    try {
      const last = await server.ctx.db.get<{ version: number; name: string; applied_at: string }>(
        'SELECT version, name, applied_at FROM schema_migrations ORDER BY version DESC LIMIT 1',
      );
      await server.ctx.db.run('DELETE FROM schema_migrations WHERE version = ?', last!.version);
      const ready = await get(server, '/readyz');
      assert.deepEqual(
        [ready.status, ready.body],
        [503, { detail: 'the database lacks migrations of this version of the service' }],
      );
      await server.ctx.db.run(
        'INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)',
        last!.version,
        last!.name,
        last!.applied_at,
      );
      assert.equal((await get(server, '/readyz')).status, 200);
    } finally {
      await server.close();
    }
  });
});

describe('a metrics token', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ metricsToken: 'metrics-token-for-the-test' });
  });
  after(() => server.close());

  it('is asked for by /metrics, and only there', async () => {
    assert.deepEqual((await get(server, '/metrics')).body, { detail: 'invalid Bearer token' });
    assert.equal((await get(server, '/metrics', 'wrong')).status, 401);
    const scraped = await get(server, '/metrics', 'metrics-token-for-the-test');
    assert.equal(scraped.status, 200);
    assert.match(scraped.headers.get('content-type')!, /^text\/plain; version=0\.0\.4/);
    assert.equal((await get(server, '/healthz')).status, 200);
  });
});

describe('overload', () => {
  it('answers a client over its request rate 429 { detail } with Retry-After, counted per credential, else per address', async () => {
    const server = await startTestServer({ overload: { rateLimit: { max: 3, windowMs: 60_000 } } });
    try {
      const whoami = (token?: string) => server.api('/workspaces/whoami', { token });
      for (let i = 0; i < 3; i++) assert.equal((await whoami('sk_acme_1')).status, 200);
      const refused = await whoami('sk_acme_1');
      assert.deepEqual(
        [refused.status, refused.body],
        [429, { detail: 'too many requests from this client (limit 3 per 60 s), try again later' }],
      );
      assert.ok(Number(refused.headers.get('retry-after')) >= 1);
      assert.equal(refused.headers.get('access-control-allow-origin'), '*');
      assert.equal((await whoami('sk_globex_1')).status, 200, 'another credential counts apart');
      for (let i = 0; i < 3; i++) assert.equal((await whoami()).status, 401, 'no credential: the address');
      assert.equal((await whoami()).status, 429);
      for (let i = 0; i < 5; i++) assert.equal((await get(server, '/healthz')).status, 200, 'probes are not limited');
    } finally {
      await server.close();
    }
  });

  it('counts a made-up token against its address: no counter of its own, none pushed out by thousands', async () => {
    const server = await startTestServer({ overload: { rateLimit: { max: 5, windowMs: 60_000 } } });
    const agent = new Agent({ keepAlive: true, maxSockets: 16 });
    try {
      /** A request from the loopback address `from`, by default to a route that takes no credential (an unknown file: 404). */
      const from = (address: string, token?: string, path = '/files/f_0000000000000000000000/x.txt') =>
        new Promise<number>((resolve, reject) => {
          const req = request(
            `${server.url}/api/v2${path}`,
            { localAddress: address, agent, headers: token ? { authorization: `Bearer ${token}` } : {} },
            (res) => {
              res.resume();
              resolve(res.statusCode!);
            },
          );
          req.on('error', reject).end();
        });
      const madeUp = () => `st_${randomBytes(16).toString('hex')}`;
      // An address over its limit is refused whatever token it makes up.
      for (let i = 0; i < 5; i++) assert.equal(await from('127.0.0.21', madeUp()), 404);
      for (let i = 0; i < 20; i++) assert.equal(await from('127.0.0.21', madeUp()), 429, `made-up token ${i}`);
      assert.equal(await from('127.0.0.21'), 429, 'and without one');
      // 5,100 made-up tokens from another address leave the first address's counter where it was.
      assert.equal(await from('127.0.0.22', 'pk_alice', '/conversations'), 200, 'a credential, checked');
      for (let i = 0; i < 5; i++) assert.equal(await from('127.0.0.22'), 404);
      assert.equal(await from('127.0.0.22'), 429);
      const flood: Promise<number>[] = [];
      for (let i = 0; i < 5_100; i++) flood.push(from('127.0.0.23', madeUp()));
      const answers = await Promise.all(flood);
      assert.equal(answers.filter((status) => status === 404).length, 5, 'the flooding address had its 5');
      assert.equal(await from('127.0.0.22'), 429, 'the first address is still over its limit');
      // A credential once checked counts apart from its address: a visitor behind a busy address goes on.
      assert.equal(await from('127.0.0.22', 'pk_alice', '/conversations'), 200);
    } finally {
      agent.destroy();
      await server.close();
    }
  });

  it('sheds requests with 503 { detail } and Retry-After while the heap is over its bound, but not the probes; not ready meanwhile', async () => {
    // Any heap is over one byte: the service sheds from its first sample on.
    const server = await startTestServer({ overload: { maxHeapBytes: 1 } });
    try {
      let shed = await server.api('/workspaces/whoami', { token: 'sk_acme_1' });
      while (shed.status === 200) {
        // The plugin samples the heap every few seconds; asked again until it has.
        await sleep(100);
        shed = await server.api('/workspaces/whoami', { token: 'sk_acme_1' });
      }
      assert.deepEqual(
        [shed.status, shed.body, shed.headers.get('retry-after')],
        [503, { detail: 'the service is overloaded, try again later' }, '5'],
      );
      for (const path of ['/healthz', '/metrics']) assert.equal((await get(server, path)).status, 200);
      // /readyz answers too, and says what every other request meets: a balancer that probes sends them elsewhere.
      const ready = await get(server, '/readyz');
      assert.deepEqual(
        [ready.status, ready.body, ready.headers.get('retry-after')],
        [503, { detail: 'this instance is overloaded' }, '5'],
      );
    } finally {
      await server.close();
    }
  });
});

describe('drain', () => {
  it('turns not ready, refuses new streams and sends with 503, ends open streams, and lets a running turn finish', async () => {
    const server = await startTestServer({ drainGraceMs: 120_000 });
    const { token } = await sessionToken(server);
    const sent = await send(server, token, {
      message: '/slow 3',
      targetAgentIds: ['agent_demo'],
      newConversation: true,
    });
    const stream = `${server.url}/api/v2/conversations/${sent.conversationId}/stream?lastEventId=${sent.userEventId}`;
    const reader = await openSse(stream, { token });
    await reader.waitFor((records) => records.some((r) => r.raw.type === 'assistant_delta'));
    // A reader inside the service, which the drain does not end: it hears the turn to its end.
    const results: string[] = [];
    server.ctx.records.follow(sent.conversationId, undefined, {
      record: (record) => {
        if (record.raw.type === 'result') results.push(record.raw.subtype);
        return true;
      },
      close: () => {},
    });
    const drained = server.drain();
    await reader.ended;
    const ready = await get(server, '/readyz');
    assert.deepEqual([ready.status, ready.body], [503, { detail: 'this instance is shutting down' }]);
    assert.equal(ready.headers.get('connection'), 'close', 'clients reconnect elsewhere');
    const refused = { status: 503, body: { detail: 'this instance is shutting down, try again' } };
    const sendRes = await server.api('/conversations/send', {
      method: 'POST',
      token,
      json: { message: 'more', conversationId: sent.conversationId },
    });
    assert.deepEqual({ status: sendRes.status, body: sendRes.body }, refused);
    assert.equal(sendRes.headers.get('retry-after'), '1');
    const streamRes = await server.api(`/conversations/${sent.conversationId}/stream`, { token });
    assert.deepEqual({ status: streamRes.status, body: streamRes.body }, refused);
    await drained;
    assert.deepEqual(results, ['success'], 'the turn finished within the grace, then the service closed');
    rmSync(server.dir, { recursive: true, force: true });
  });
});

describe('the logger', () => {
  it('redacts credentials by its configuration, whatever line carries them', () => {
    const written: string[] = [];
    const logger = createLogger({ level: 'info', destination: { write: (line) => written.push(line) } });
    logger.info(
      {
        headers: { authorization: 'Bearer sk_acme_1', cookie: 'session=st_cookie_value' },
        body: { phone: '+4915123456789', code: '123456', mcpTokens: { github: 'mcp-token-value' } },
        connector: { token: 'tok-ada-7f3k' },
      },
      'a line that should never carry these',
    );
    const entry = JSON.parse(written[0]!);
    assert.deepEqual(entry.headers, { authorization: '[redacted]', cookie: '[redacted]' });
    assert.deepEqual(entry.body, { phone: '+4915123456789', code: '[redacted]', mcpTokens: '[redacted]' });
    assert.deepEqual(entry.connector, { token: '[redacted]' });
  });
});

describe('the readable log format', () => {
  it('writes one line per entry: time, level, message, fields; credentials redacted as in JSON', () => {
    const written: string[] = [];
    const logger = createLogger({ level: 'info', pretty: true, destination: { write: (line) => written.push(line) } });
    logger.info({ route: '/healthz', status: 200, headers: { authorization: 'Bearer sk_acme_1' } }, 'GET /healthz 200');
    assert.equal(written.length, 1);
    assert.match(
      written[0]!,
      /^\d\d:\d\d:\d\d\.\d{3} INFO {2}GET \/healthz 200 {2}route=\/healthz {2}status=200 {2}headers=\{"authorization":"\[redacted\]"\}\n$/,
    );
  });
});

describe('a database that goes away', () => {
  it('ends the turn of a send whose commit went unheard, so the conversation takes the next message', async () => {
    const server = await startTestServer();
    try {
      const { token } = await sessionToken(server);
      const first = await send(server, token, {
        message: 'hello',
        targetAgentIds: ['agent_echo'],
        newConversation: true,
      });
      await readTurn(server, token, first.conversationId, first.userEventId!);
      const { db } = server.ctx;
      const transaction = db.transaction;
      // The next transaction commits, and its answer is lost as a connection cut during COMMIT loses it.
      Object.assign(db, {
        async transaction(fn: Parameters<Db['transaction']>[0]) {
          await transaction.call(db, fn);
          Object.assign(db, { transaction });
          throw new DatabaseUnavailable('Connection terminated unexpectedly');
        },
      });
      const sent = () =>
        server.api('/conversations/send', {
          method: 'POST',
          token,
          headers: { 'idempotency-key': 'lost-answer' },
          json: { message: 'is anyone there?', conversationId: first.conversationId },
        });
      const lost = await sent();
      assert.deepEqual(
        [lost.status, lost.body, lost.headers.get('retry-after')],
        [503, { detail: 'the database cannot be reached, try again' }, '2'],
      );
      // Sent again under its key, it answers what was stored; the reply it began ended, cut off by the database.
      const again = await sent();
      assert.equal(again.status, 200);
      const records = await readTurn(server, token, first.conversationId, again.body.userEventId);
      assert.deepEqual(
        [records.at(-1)!.raw.type, (records.at(-1)!.raw as { error?: string }).error],
        ['result', 'the service lost its database connection during this reply'],
      );
      const next = await send(server, token, { message: 'and now?', conversationId: first.conversationId });
      const reply = await readTurn(server, token, first.conversationId, next.userEventId!);
      assert.equal((reply.at(-1)!.raw as { subtype: string }).subtype, 'success');
    } finally {
      await server.close();
    }
  });
});
