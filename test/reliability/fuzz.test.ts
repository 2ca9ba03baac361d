import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { sendAndRead, sessionToken } from '../helpers/conversation.js';
import { type Route, routesOf } from '../helpers/routes.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { provision } from '../helpers/workspace.js';
import { SEED, size } from './soak.js';

/** Random requests per route. */
const RUNS = size(40, 400);

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

  before(async () => {
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
  after(() => server.close());

  it('reads the route table: every area of the service is there', () => {
    const paths = new Set(routes.map((r) => `${r.method} ${r.path}`));
    for (const expected of [
      'POST /api/v2/conversations/send',
      'GET /api/v2/conversations/:id/stream',
      'POST /api/v2/workspaces/:slug/members/:memberId/credits',
      'POST /api/v2/files/upload',
      'PUT /api/v2/profile/credentials/:connectorTypeId',
      'POST /api/v2/agents/:id/messages/:messageId/audio/stream',
      'GET /api/v2/payments/:orderId/status',
      'POST /pay/:orderId/cancel',
    ]) {
      assert.ok(paths.has(expected), `${expected} is not in ${[...paths].join(', ')}`);
    }
  });

  it('never answers 5xx, and every API error is JSON { detail: string }', {
    timeout: size(120_000, 1_200_000),
  }, async (t) => {
    const segment = fc.oneof(
      fc.constantFrom(...known.ids),
      fc.constantFrom('..', '.', '%2e%2e', '%00', 'e000000000000001', 'x'.repeat(2000), ' ', '😀'),
      fc.string({ minLength: 1, maxLength: 40 }).map(encodeURIComponent),
    );
    const body = fc.oneof(
      fc.constant(undefined),
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc
        .dictionary(fc.constantFrom(...FIELDS), fc.oneof(fc.jsonValue(), fc.constantFrom(...known.ids)), { maxKeys: 6 })
        .map((v) => JSON.stringify(v)),
      fc.string({ maxLength: 200 }),
      fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
    );
    const request = fc.record({
      params: fc.array(segment, { minLength: 4, maxLength: 4 }),
      query: fc.dictionary(
        fc.constantFrom('lastEventId', 'turns', 'before', 'maxEntries', 'includeThinking', 'path', 'x'),
        fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom(...known.ids), fc.integer().map(String)),
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
          const parsed = JSON.parse(text) as { detail?: unknown };
          assert.equal(typeof parsed.detail, 'string', `${where}: ${text.slice(0, 200)}`);
          assert.ok(!/\bat .+:\d+:\d+/.test(text), `${where} leaks a stack: ${text.slice(0, 200)}`);
        }),
        { numRuns: RUNS, seed: SEED, includeErrorInReport: true },
      );
    }
    t.diagnostic(`${requests} requests over ${routes.length} routes`);
  });
});
