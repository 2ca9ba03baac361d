import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import Fastify from 'fastify';
import { sseBound, UpstreamTooLarge } from '../../server/runtimes/model/upstream.js';
import { sendAndRead, sessionToken } from '../helpers/conversation.js';
import { rawRequest } from '../helpers/raw-http.js';
import { type Route, routesOf } from '../helpers/routes.js';
import { FIXTURE, startTestServer, type TestServer } from '../helpers/server.js';
import { startServiceProcess } from '../helpers/service-process.js';
import { filledConversation, frameBytes, withSlowReaderServer, withStalledReaders } from '../helpers/slow-readers.js';
import { provision } from '../helpers/workspace.js';
import { SEED, size } from './soak.js';

/** Random requests per route. */
const RUNS = size(40, 400);

/** JSON nested `depth` levels, of objects or arrays: past the 32 levels the service takes, up to what 1 MB holds. */
const deepJson = fc
  .record({ depth: fc.integer({ min: 20, max: 150_000 }), arrays: fc.boolean() })
  .map(({ depth, arrays }) =>
    arrays ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`,
  );

/** JSON wide rather than deep: up to 20,000 keys or items. */
const wideJson = fc
  .record({ width: fc.integer({ min: 100, max: 20_000 }), arrays: fc.boolean() })
  .map(({ width, arrays }) =>
    arrays
      ? JSON.stringify(Array.from({ length: width }, (_, i) => i))
      : JSON.stringify(Object.fromEntries(Array.from({ length: width }, (_, i) => [`k${i}`, i]))),
  );

/** Header values a fetch can carry: printable Latin-1 only. */
const headerText = fc.string({ maxLength: 300 }).map((s) => s.replace(/[^\x20-\x7e]/g, ''));

const FIELDS = [
  'message',
  'conversationId',
  'targetAgentIds',
  'newConversation',
  'parts',
  'metadata',
  'mcpTokens',
  'toolAction',
  'sp_user_ref',
  'display_name',
  'amount',
  'idempotency_key',
  'ttl_seconds',
  'phone',
  'code',
  'credentials',
  'file',
  '__proto__',
  'constructor',
];

describe(`fuzz: every route with random and malformed bodies, queries and headers (${RUNS} runs each, SVC_SEED=${SEED})`, () => {
  let server: TestServer;
  let routes: Route[];
  /** Values that get past the first checks, so the fuzz reaches deep code paths too. */
  let known: { tokens: string[]; ids: string[] };

  /** What the service wrote to stderr: every 500 would be there with its cause (no log is configured). */
  const stderr: string[] = [];
  const write = process.stderr.write;
  before(async () => {
    process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      stderr.push(String(chunk));
      return (write as (...args: unknown[]) => boolean).call(process.stderr, chunk, ...rest);
    }) as typeof process.stderr.write;
    server = await startTestServer();
    routes = routesOf(server.app);
    const { token } = await sessionToken(server);
    const member = await provision(server);
    const { sent, records } = await sendAndRead(server, 'pk_alice', {
      message: '/pay 3',
      targetAgentIds: ['agent_demo'],
    });
    const order = records.find((r) => r.raw.type === 'payment_gate');
    const message = records.find((r) => r.raw.type === 'assistant');
    known = {
      tokens: ['sk_acme_1', 'sk_acme_2', 'sk_globex_1', 'lt_acme_owner', 'pk_alice', 'pk_bob', token, 'st_unknown'],
      ids: [
        'acme',
        'globex',
        'agent_demo',
        'agent_echo',
        'github',
        member,
        sent.conversationId,
        sent.userEventId!,
        order?.raw.type === 'payment_gate' ? order.raw.payment.orderId : 'o_none',
        message?.raw.type === 'assistant' ? message.raw.message.id : 'm_none',
      ],
    };
  });
  after(async () => {
    process.stderr.write = write;
    await server.close();
  });

  it('reads the route table: every area of the service is there', () => {
    const paths = new Set(routes.map((r) => `${r.method} ${r.path}`));
    for (const expected of [
      'POST /api/v2/conversations/send',
      'GET /api/v2/conversations/:id/stream',
      'POST /api/v2/workspaces/:slug/members/:memberId/credits',
      'POST /api/v2/files/upload',
      'PUT /api/v2/profile/credentials/:connectorTypeId',
      'POST /api/v2/agents/:agentId/messages/:messageId/audio/stream',
      'POST /api/v2/agents/:id/dev/send',
      'GET /api/v2/payments/:orderId/status',
      'POST /pay/:orderId/cancel',
    ]) {
      assert.ok(paths.has(expected), `${expected} is not in ${[...paths].join(', ')}`);
    }
  });

  it('reads each route under its own parameter names, whatever order the routes were registered in', async () => {
    const tables: string[][] = [];
    for (const order of [
      ['/agents/:id/dev/send', '/agents/:agentId/prompts'],
      ['/agents/:agentId/prompts', '/agents/:id/dev/send'],
    ]) {
      const app = Fastify();
      for (const path of order) app.get(path, async () => null);
      await app.ready();
      // The situation the reading is for: the tree prints both names of the one parameter.
      assert.match(app.printRoutes({ commonPrefix: false }), /:\w+\|:\w+/);
      tables.push(routesOf(app).map((route) => `${route.method} ${route.path}`));
      await app.close();
    }
    assert.deepEqual(tables[0], ['GET /agents/:id/dev/send', 'GET /agents/:agentId/prompts']);
    assert.deepEqual(tables[1]!.toSorted(), tables[0]!.toSorted());
  });

  it('never answers 5xx, and every API error is JSON { detail: string }', {
    timeout: size(120_000, 1_200_000),
  }, async (t) => {
    const segment = fc.oneof(
      fc.constantFrom(...known.ids),
      fc.constantFrom('..', '.', '%2e%2e', '%00', 'e000000000000001', 'x'.repeat(2000), ' ', '😀'),
      fc.string({ minLength: 1, maxLength: 40 }).map(encodeURIComponent),
    );
    /** A long path component: over what a file system takes (255 bytes), in a query's `path` too. */
    const longName = fc
      .record({ length: fc.integer({ min: 200, max: 5000 }), nested: fc.boolean() })
      .map(({ length, nested }) => `${nested ? 'out/' : ''}${'n'.repeat(length)}${nested ? '/x.txt' : ''}`);
    const body = fc.oneof(
      fc.constant(undefined),
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc
        .record({ field: fc.constantFrom(...FIELDS), value: fc.oneof(deepJson, wideJson) })
        .map(({ field, value }) => `{"message":"fuzz",${JSON.stringify(field)}:${value}}`),
      deepJson,
      fc
        .dictionary(fc.constantFrom(...FIELDS), fc.oneof(fc.jsonValue(), fc.constantFrom(...known.ids)), { maxKeys: 6 })
        .map((v) => JSON.stringify(v)),
      // Strings no engine stores as written (issue 26): a NUL or an unpaired surrogate, in a value or a key.
      fc
        .record({
          field: fc.constantFrom(...FIELDS),
          text: fc.constantFrom('a\u0000b', '\ud800', 'x\udc00', '\udfff\ud800', '\u0000'),
          asKey: fc.boolean(),
        })
        .map(({ field, text, asKey }) =>
          JSON.stringify(asKey ? { message: 'fuzz', metadata: { [text]: 1 } } : { message: 'fuzz', [field]: text }),
        ),
      fc.string({ maxLength: 200 }),
      fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
    );
    const request = fc.record({
      params: fc.array(segment, { minLength: 4, maxLength: 4 }),
      query: fc.dictionary(
        fc.constantFrom('lastEventId', 'turns', 'before', 'maxEntries', 'includeThinking', 'path', 'x'),
        fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom(...known.ids), fc.integer().map(String), longName),
        { maxKeys: 4 },
      ),
      auth: fc.option(
        fc.oneof(
          fc.constantFrom(...known.tokens).map((token) => `Bearer ${token}`),
          headerText,
          headerText.map((s) => `Bearer ${s}`),
        ),
      ),
      contentType: fc.option(
        fc.constantFrom(
          'application/json',
          'application/json; charset=utf-16',
          'text/plain',
          'multipart/form-data; boundary=zzz',
          'multipart/form-data',
          'application/x-www-form-urlencoded',
          'application/octet-stream',
        ),
      ),
      extra: fc.dictionary(fc.constantFrom('last-event-id', 'x-act-as', 'x-login-type', 'accept'), headerText, {
        maxKeys: 3,
      }),
      body,
    });

    let requests = 0;
    for (const route of routes) {
      await fc.assert(
        fc.asyncProperty(request, async ({ params, query, auth, contentType, extra, body }) => {
          let n = 0;
          const path = route.path.replace(/:\w+/g, () => params[n++]!);
          const url = new URL(server.url + path);
          for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
          const headers: Record<string, string> = { ...extra };
          if (auth !== null) headers.authorization = auth;
          if (contentType !== null) headers['content-type'] = contentType;
          const withBody = route.method !== 'GET' && body !== undefined;
          const controller = new AbortController();
          const res = await fetch(url, {
            method: route.method,
            headers,
            body: withBody ? body : undefined,
            signal: controller.signal,
          });
          requests++;
          const where = `${route.method} ${url.pathname}${url.search} → ${res.status}`;
          assert.ok(res.status < 500, where);
          const type = res.headers.get('content-type') ?? '';
          // A stream that opened is not read to its end: it never ends.
          if (type.startsWith('text/event-stream')) {
            controller.abort();
            return;
          }
          const text = await res.text();
          if (res.status < 400) return;
          // The pay page is a page for people: its errors are HTML, also never a stack.
          if (route.path.startsWith('/pay/') && type.startsWith('text/html')) return;
          assert.match(type, /^application\/json/, where);
          assert.equal(res.headers.get('access-control-allow-origin'), '*', `${where} lacks CORS`);
          const parsed = JSON.parse(text) as { detail?: unknown };
          assert.equal(typeof parsed.detail, 'string', `${where}: ${text.slice(0, 200)}`);
          assert.ok(!/\bat .+:\d+:\d+/.test(text), `${where} leaks a stack: ${text.slice(0, 200)}`);
        }),
        { numRuns: RUNS, seed: SEED, includeErrorInReport: true },
      );
    }
    t.diagnostic(`${requests} requests over ${routes.length} routes`);
  });

  it('answers malformed HTTP at the socket with { detail } and CORS headers, never a 5xx', {
    timeout: size(120_000, 1_200_000),
  }, async (t) => {
    const name = fc.constantFrom('X-A', 'Accept', 'Authorization', 'Content-Type', 'Last-Event-ID', 'Idempotency-Key');
    const value = fc.oneof(headerText, fc.constantFrom('Bearer pk_alice', 'application/json'));
    /** One way a request can break HTTP/1.1, as a hostile client or a broken proxy writes it. */
    const defect = fc.oneof(
      fc.record({ kind: fc.constant('nul' as const), at: fc.nat() }),
      fc.constant({ kind: 'content-length and chunked' as const }),
      fc.constant({ kind: 'obs-fold' as const }),
      fc.record({ kind: fc.constant('huge header' as const), size: fc.integer({ min: 16_500, max: 40_000 }) }),
      fc.record({ kind: fc.constant('bad header name' as const), char: fc.constantFrom('(', ' ', '@', ':', '\u007f') }),
      fc.record({ kind: fc.constant('two lengths' as const), a: fc.nat(100), b: fc.nat(100) }),
      fc.record({ kind: fc.constant('bad length' as const), text: fc.constantFrom('-1', 'abc', '1e3', '0x10', '') }),
      fc.constant({ kind: 'bare LF' as const }),
      fc.uint8Array({ minLength: 1, maxLength: 200 }).map((bytes) => ({ kind: 'bytes' as const, bytes })),
    );
    const request = fc.record({
      route: fc.constantFrom(...routes),
      headers: fc.array(fc.tuple(name, value), { maxLength: 6 }),
      body: fc.string({ maxLength: 100 }),
      defect,
    });
    let requests = 0;
    await fc.assert(
      fc.asyncProperty(request, async ({ route, headers, body, defect }) => {
        const path = route.path.replace(/:\w+/g, () => known.ids[0]!);
        const lines = [`${route.method} ${path} HTTP/1.1`, 'Host: fuzz', 'Connection: close'];
        for (const [header, text] of headers) lines.push(`${header}: ${text}`);
        let head = `${lines.join('\r\n')}\r\n`;
        let tail = `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
        switch (defect.kind) {
          case 'nul':
            head = `${head}X-Nul: a\0b\r\n`;
            break;
          case 'content-length and chunked':
            tail = `Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`;
            break;
          case 'obs-fold':
            head = `${head}X-Folded: a\r\n  b\r\n`;
            break;
          case 'huge header':
            head = `${head}X-Big: ${'a'.repeat(defect.size)}\r\n`;
            break;
          case 'bad header name':
            head = `${head}X${defect.char}Y: z\r\n`;
            break;
          case 'two lengths':
            tail = `Content-Length: ${defect.a}\r\nContent-Length: ${defect.b + 101}\r\n\r\n${body}`;
            break;
          case 'bad length':
            tail = `Content-Length: ${defect.text}\r\n\r\n${body}`;
            break;
          case 'bare LF':
            head = head.replace('\r\nHost', '\nHost');
            break;
        }
        const bytes =
          defect.kind === 'bytes' ? Buffer.concat([Buffer.from(head), Buffer.from(defect.bytes)]) : head + tail;
        const res = await rawRequest(server.url, bytes);
        requests++;
        const where = `${defect.kind} on ${route.method} ${path} → ${res.status}`;
        assert.ok(res.status < 500, where);
        assert.equal(res.headers['access-control-allow-origin'], '*', `${where} lacks CORS`);
        if (
          res.status < 400 ||
          (route.path.startsWith('/pay/') && res.headers['content-type']?.startsWith('text/html'))
        ) {
          return;
        }
        assert.match(res.headers['content-type'] ?? '', /^application\/json/, where);
        assert.equal(typeof JSON.parse(res.body).detail, 'string', `${where}: ${res.body.slice(0, 200)}`);
      }),
      { numRuns: size(300, 3000), seed: SEED, includeErrorInReport: true },
    );
    t.diagnostic(`${requests} malformed requests`);
  });

  it('logged no 500: the service wrote no failure to stderr during the fuzzing', () => {
    assert.deepEqual(
      stderr.filter((line) => line.includes('[svc]')),
      [],
    );
  });
});

describe(`fuzz: hostile sizes (SVC_SEED=${SEED})`, () => {
  it('an oversized JSON body or upload, of any size up to the discard bound, gets its 413 { detail } through fetch', async () => {
    // The built service in a process of its own: over loopback within one process the client finished
    // sending before the connection closed, which hid the resets.
    const dir = mkdtempSync(join(tmpdir(), 'svc-sizes-'));
    writeFileSync(join(dir, 'fixture.json'), JSON.stringify(FIXTURE));
    const service = await startServiceProcess([
      ...['--port', '0', '--db', ':memory:', '--fixture', join(dir, 'fixture.json')],
      ...['--files-dir', join(dir, 'files')],
    ]);
    try {
      const sizes = fc.sample(fc.integer({ min: 1024 * 1024 + 1, max: 24 * 1024 * 1024 }), {
        seed: SEED,
        numRuns: size(6, 40),
      });
      for (const bytes of sizes) {
        const json = await fetch(`${service.url}/api/v2/conversations/send`, {
          method: 'POST',
          headers: { authorization: 'Bearer pk_alice', 'content-type': 'application/json' },
          body: JSON.stringify({ message: 'x'.repeat(bytes) }),
        });
        assert.deepEqual([json.status, await json.json()], [413, { detail: 'request body too large' }], `${bytes}`);
        const form = new FormData();
        // Uploads take up to 20 MB.
        form.append('file', new Blob([new Uint8Array(20 * 1024 * 1024 + bytes)]), 'big.bin');
        const upload = await fetch(`${service.url}/api/v2/files/upload`, {
          method: 'POST',
          headers: { authorization: 'Bearer pk_alice' },
          body: form,
        });
        assert.deepEqual([upload.status, await upload.json()], [413, { detail: 'file too large (limit 20 MB)' }]);
      }
      // The connection still serves: the next request is answered.
      assert.equal((await fetch(`${service.url}/healthz`)).status, 200);
    } finally {
      service.child.kill();
      await once(service.child, 'exit');
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('non-reading streams at random cursors, on conversations of random record sizes: each holds at most the mark of its socket and a record, and reads on exactly', () =>
    withSlowReaderServer(async (server, token) => {
      const cases = fc.sample(
        fc.record({
          recordBytes: fc.integer({ min: 1024, max: 256 * 1024 }),
          readers: fc.integer({ min: 1, max: 8 }),
          cursors: fc.array(fc.nat(), { minLength: 8, maxLength: 8 }),
        }),
        { seed: SEED, numRuns: size(3, 20) },
      );
      for (const { recordBytes, readers: count, cursors } of cases) {
        const { conversationId, filled } = await filledConversation(server, token, recordBytes, 6 * 1024 * 1024);
        const bound = Math.max(...filled.map(frameBytes));
        // Each reader is owed at least the last record (one after the last would wait for nothing to read).
        const starts = cursors.slice(0, count).map((n) => filled[n % (filled.length - 1)]!);
        const cursorsOf = starts.map((start) => start.id);
        await withStalledReaders(server, conversationId, token, cursorsOf, async ({ readers, watch }) => {
          // A reader near the end is owed less than the kernel's socket buffers take: it never fills, and is
          // waited for until the service has written it everything.
          const owed = starts.map((start) =>
            filled.slice(filled.indexOf(start) + 1).reduce((sum, record) => sum + frameBytes(record), 0),
          );
          await watch.until(
            () => readers.every((r, i) => watch.full(r.port) || watch.written(r.port) >= owed[i]!),
            watch.highWaterMark() + bound,
          );
          for (const reader of readers) {
            assert.ok(
              watch.most(reader.port) <= watch.highWaterMark() + bound,
              `${watch.most(reader.port)} bytes held`,
            );
          }
          assert.equal((await server.api('/workspaces/whoami', { token: 'sk_acme_1' })).status, 200);
          for (const [i, reader] of readers.entries()) {
            const ids = await reader.readUntil(filled.at(-1)!.id);
            const from = filled.indexOf(starts[i]!);
            assert.deepEqual(
              ids,
              filled.slice(from + 1).map((r) => r.id),
              `reader ${i} after ${starts[i]!.id}`,
            );
          }
        });
      }
    }));

  it('the model bound passes every stream of small events, however chunked, and stops every event over it', () => {
    const event = fc.oneof(
      fc.string({ maxLength: 40 }).map((text) => `data: ${text.replace(/[\r\n]/g, '')}`),
      fc.constant(': ping'),
    );
    const newline = fc.constantFrom('\n', '\r\n', '\r');
    const stream = fc.array(fc.tuple(fc.array(event, { minLength: 1, maxLength: 4 }), newline), { maxLength: 20 });
    return fc.assert(
      fc.asyncProperty(
        stream,
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.nat({ max: 300 }),
        async (events, cuts, bound) => {
          const text = events.map(([lines, nl]) => `${lines.join(nl)}${nl}${nl}`).join('');
          const largest = Math.max(0, ...events.map(([lines]) => lines.reduce((sum, line) => sum + line.length, 0)));
          const bytes = new TextEncoder().encode(text);
          const at = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
          const chunks = [0, ...at, bytes.length]
            .slice(1)
            .map((end, i, ends) => bytes.subarray(i ? ends[i - 1] : 0, end));
          const source = new ReadableStream<Uint8Array>({
            start(controller) {
              for (const chunk of chunks) controller.enqueue(chunk);
              controller.close();
            },
          });
          let passed = 0;
          let stopped = false;
          try {
            const bounded = source.pipeThrough(sseBound({ eventBytes: bound, replyBytes: 1e9 }));
            for await (const chunk of bounded as unknown as AsyncIterable<Uint8Array>) passed += chunk.length;
          } catch (err) {
            assert.ok(err instanceof UpstreamTooLarge);
            stopped = true;
          }
          // Strings of UTF-16 code units may take more bytes than characters: only the clear cases are asserted.
          if (largest <= bound && text.length === bytes.length) assert.equal(passed, bytes.length);
          if (largest > bound && text.length === bytes.length) assert.ok(stopped);
        },
      ),
      { seed: SEED, numRuns: size(200, 2000) },
    );
  });
});
