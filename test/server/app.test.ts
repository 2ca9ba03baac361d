import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { rawRequest, requestText } from '../helpers/raw-http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { stderrOf } from '../helpers/stderr.js';

describe('service basics', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('answers an unknown route with 404 and a detail', async () => {
    const res = await server.api('/nope');
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { detail: 'route not found' });
  });

  it('answers malformed JSON with 400 and a detail, never a 500', async () => {
    const res = await server.api('/workspaces/acme/members', {
      method: 'POST',
      token: 'sk_acme_1',
      headers: { 'content-type': 'application/json' },
      body: '{"sp_user_ref": ',
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.detail, 'request body is not valid JSON');
  });

  it('answers a CORS preflight for any route', async () => {
    const res = await fetch(`${server.url}/api/v2/conversations/send`, {
      method: 'OPTIONS',
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' },
    });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    assert.match(res.headers.get('access-control-allow-headers') ?? '', /Last-Event-ID/);
    assert.match(res.headers.get('access-control-allow-headers') ?? '', /Idempotency-Key/);
  });

  it('whoami answers with the key of the workspace', async () => {
    const res = await server.api('/workspaces/whoami', { token: 'sk_acme_1' });
    assert.equal(res.status, 200);
    assert.equal(res.body.slug, 'acme');
    assert.equal(res.body.api_key_id, 'key_acme_1');
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
  });

  it('answers a JSON body sent as text/plain with 415, as it does any body that is not JSON', async () => {
    for (const [path, token, json] of [
      ['/conversations/send', 'pk_alice', { message: 'hi', targetAgentIds: ['agent_echo'] }],
      ['/workspaces/acme/members', 'sk_acme_1', { sp_user_ref: 'plain' }],
    ] as const) {
      const res = await server.api(path, {
        method: 'POST',
        token,
        headers: { 'content-type': 'text/plain' },
        body: JSON.stringify(json),
      });
      assert.deepEqual([res.status, res.body], [415, { detail: 'Content-Type must be application/json' }]);
    }
  });

  it('answers what Node’s HTTP parser refuses with { detail } and CORS headers, on the socket', async () => {
    const path = '/api/v2/workspaces/whoami';
    const cases: [string, string, number, string][] = [
      ['a NUL in a header', `GET ${path} HTTP/1.1\r\nHost: x\r\nX-A: a\0b\r\n\r\n`, 400, 'malformed HTTP request'],
      [
        'both Content-Length and Transfer-Encoding',
        'POST /api/v2/conversations/send HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
        400,
        'malformed HTTP request',
      ],
      ['an obs-fold line', `GET ${path} HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n`, 400, 'malformed HTTP request'],
      [
        'headers over 16 KB',
        `GET ${path} HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17_000)}\r\n\r\n`,
        431,
        'request headers too large (limit 16 KB)',
      ],
      ['no request line', '\u0000\u0001 nonsense\r\n\r\n', 400, 'malformed HTTP request'],
    ];
    for (const [what, bytes, status, detail] of cases) {
      const res = await rawRequest(server.url, bytes);
      assert.deepEqual([res.status, JSON.parse(res.body)], [status, { detail }], what);
      assert.equal(res.headers['access-control-allow-origin'], '*', what);
      assert.match(res.headers['content-type'] ?? '', /^application\/json/, what);
    }
    // A well-formed request on the same socket path is answered as usual (positive control).
    const ok = await rawRequest(server.url, requestText('GET', path, { host: 'x', authorization: 'Bearer sk_acme_1' }));
    assert.equal(ok.status, 200);
  });

  it('sends no-store and nosniff with every API answer, the ones carrying tokens first of all', async () => {
    const member = await server.api('/workspaces/acme/members', {
      method: 'POST',
      token: 'sk_acme_1',
      json: { sp_user_ref: 'cached' },
    });
    const session = await server.api('/workspaces/acme/sessions', {
      method: 'POST',
      token: 'sk_acme_1',
      json: { sp_user_ref: 'cached' },
    });
    const refused = await server.api('/workspaces/whoami');
    for (const res of [member, session, refused]) {
      assert.equal(res.headers.get('cache-control'), 'no-store');
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    }
  });
});

describe('clients that close their sending side', () => {
  it('are answered after their request however long the answer waits (nc -N, some proxies)', async () => {
    let heard!: () => void;
    const endHeard = new Promise<void>((resolve) => {
      heard = resolve;
    });
    // The answer waits until the service has handled the end of the client's sending side.
    const server = await startTestServer({ smsChallenge: { verify: () => endHeard.then(() => true) } });
    try {
      // Node's HTTP server listens to a socket's end first (its own `connection` listener comes first): once
      // this one hears it, a server that drops half-closed clients has dropped this one.
      server.app.server.on('connection', (socket) => socket.once('end', heard));
      const body = JSON.stringify({ phone: '+14155550142', challenge: 'answered' });
      const headers = { host: 'x', 'content-type': 'application/json' };
      // rawRequest ends its sending side once the request is written.
      const res = await rawRequest(server.url, requestText('POST', '/api/v2/workspaces/acme/sms/send', headers, body));
      assert.equal(res.status, 204);
      // The server made for this keeps Fastify's timeouts (Node's own differ: 5 s keep-alive, 300 s per request).
      const { keepAliveTimeout, requestTimeout, timeout } = server.app.server;
      assert.deepEqual([keepAliveTimeout, requestTimeout, timeout], [72_000, 0, 0]);
    } finally {
      await server.close();
    }
  });
});

describe('failures nobody caused', () => {
  it('logs every 500 with its cause on stderr when no log is configured, and answers only { detail }', async () => {
    const broken = await startTestServer();
    const written = await stderrOf(async () => {
      try {
        // The database goes away under the service: every route that reads it fails.
        await broken.ctx.db.close();
        const res = await broken.api('/workspaces/whoami', { token: 'sk_acme_1' });
        assert.deepEqual([res.status, res.body], [500, { detail: 'internal server error' }]);
        assert.equal(res.headers.get('access-control-allow-origin'), '*');
      } finally {
        await broken.close();
      }
    });
    const line = written.find((l) => l.includes('"msg":"500 GET /api/v2/workspaces/whoami"'));
    assert.ok(line, `nothing logged: ${JSON.stringify(written)}`);
    const entry = JSON.parse(line);
    assert.equal(entry.level, 'error');
    assert.match(entry.err.message, /The database connection is not open/);
    assert.match(entry.err.stack, / at /, 'with the stack');
    assert.ok(!line.includes('sk_acme_1'));
  });
});
