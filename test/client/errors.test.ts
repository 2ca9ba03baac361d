import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { after, afterEach, before, describe, it } from 'node:test';
import { inspect } from 'node:util';
import {
  AbortError,
  ApiConnectionError,
  ApiError,
  ApiTimeoutError,
  AuthenticationError,
  ChatClient,
  ConflictError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  PreconditionRequiredError,
  RateLimitError,
  SvcClient,
  SvcSdkError,
} from '../../src/index.js';
import { adminClient, visitorClient } from '../helpers/client.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { uniqueRef } from '../helpers/workspace.js';

type Handler = (req: IncomingMessage, res: ServerResponse, n: number) => void;

/** A tiny local HTTP server for what the real service never does (HTML error pages, cut bodies, silence). */
async function localServer(handler: Handler): Promise<{ url: string; requests: IncomingMessage[]; server: Server }> {
  const requests: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    requests.push(req);
    handler(req, res, requests.length);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}`, requests, server };
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

describe('client: errors from the real service', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  const hasDetail =
    (ErrorClass: typeof ApiError, status: number, detail: string) =>
    (err: unknown): boolean => {
      assert.ok(err instanceof ErrorClass, `expected ${ErrorClass.name}, got ${String(err)}`);
      assert.ok(err instanceof ApiError && err instanceof SvcSdkError);
      assert.equal(err.status, status);
      assert.equal(err.message, detail);
      assert.deepEqual(err.body, { detail });
      return true;
    };

  it('401 becomes AuthenticationError with the detail', async () => {
    const stranger = new SvcClient({ apiKey: 'pk_nobody', baseUrl: server.url });
    await assert.rejects(
      stranger.chat.send({ message: 'hi' }),
      hasDetail(AuthenticationError, 401, 'invalid Bearer token'),
    );
    const alice = new SvcClient({ apiKey: 'pk_alice', baseUrl: server.url });
    await assert.rejects(alice.workspaces.whoami(), hasDetail(AuthenticationError, 401, 'invalid Bearer token'));
  });

  it('403 becomes PermissionDeniedError', async () => {
    const revoked = new SvcClient({ apiKey: 'sk_acme_2', baseUrl: server.url });
    await assert.rejects(
      revoked.workspaces.listAgents('acme'),
      hasDetail(PermissionDeniedError, 403, 'API key revoked'),
    );
    const globex = new SvcClient({ apiKey: 'sk_globex_1', baseUrl: server.url });
    await assert.rejects(
      globex.workspaces.listMembers('acme'),
      hasDetail(PermissionDeniedError, 403, 'API key does not match workspace'),
    );
    const visitor = await visitorClient(server);
    await assert.rejects(
      visitor.workspaces.listMembers('acme'),
      hasDetail(PermissionDeniedError, 403, 'not the owner of this workspace'),
    );
  });

  it('404 becomes NotFoundError: another user’s conversation does not exist for you', async () => {
    const alice = new SvcClient({ apiKey: 'pk_alice', baseUrl: server.url });
    const bob = new SvcClient({ apiKey: 'pk_bob', baseUrl: server.url });
    const { conversationId } = await alice.sendMessage('mine', { targetAgentIds: ['agent_echo'] });
    await assert.rejects(bob.chat.messages(conversationId), hasDetail(NotFoundError, 404, 'conversation not found'));
  });

  it('409 becomes ConflictError: a second message while a reply is running', async () => {
    const visitor = await visitorClient(server);
    const sent = await visitor.chat.send({ message: '/slow 3', targetAgentIds: ['agent_demo'] });
    await assert.rejects(
      visitor.chat.send({ message: 'too soon', conversationId: sent.conversationId }),
      hasDetail(ConflictError, 409, 'a reply is still running in this conversation'),
    );
    await visitor.chat.interrupt(sent.conversationId);
  });

  it('428 becomes PreconditionRequiredError: an SMS code near the daily cap needs the challenge answered', async () => {
    const challenged = await startTestServer({ smsChallenge: { verify: async (answer) => answer === 'solved' } });
    try {
      const admin = adminClient(challenged, { apiKey: 'lt_acme_owner' });
      // A cap of 2: once one code went to a new number, the next new number needs the answer.
      await admin.workspace('acme').setSmsLimit({ daily_limit: 2 });
      const visitor = new SvcClient({ baseUrl: challenged.url });
      await visitor.workspaces.sendSmsCode('acme', { phone: '+8613900000001' });
      await assert.rejects(
        visitor.workspaces.sendSmsCode('acme', { phone: '+8613900000002' }),
        hasDetail(PreconditionRequiredError, 428, 'answer the challenge and ask again with its answer in challenge'),
      );
      await visitor.workspaces.sendSmsCode('acme', { phone: '+8613900000002', challenge: 'solved' });
    } finally {
      await challenged.close();
    }
  });

  it('another 4xx is an ApiError with status and detail', async () => {
    const admin = adminClient(server);
    const { member_id } = await admin.workspaces.provisionMember('acme', { sp_user_ref: uniqueRef() });
    await assert.rejects(
      admin.workspaces.grantCredits('acme', member_id, { amount: 1e9, idempotency_key: uniqueRef('g') }),
      hasDetail(ApiError, 402, 'insufficient owner wallet balance'),
    );
  });
});

describe('client: the request core', () => {
  let local: Awaited<ReturnType<typeof localServer>> | undefined;
  afterEach(async () => {
    const server = local?.server;
    local = undefined;
    if (!server?.listening) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('a non-JSON error page gives ApiError `HTTP 502: <first 200 characters>`', async () => {
    const page = `<html><body>${'Bad gateway. '.repeat(40)}</body></html>`;
    local = await localServer((_req, res) => res.writeHead(502, { 'content-type': 'text/html' }).end(page));
    const client = new ChatClient({ baseUrl: local.url, apiKey: 'pk_x', maxRetries: 0 });
    await assert.rejects(client.messages('c_1'), (err: unknown) => {
      assert.ok(err instanceof InternalServerError);
      assert.equal(err.status, 502);
      assert.equal(err.message, `HTTP 502: ${page.slice(0, 200)}`);
      assert.equal(err.body, page);
      return true;
    });
  });

  it('a truncated error body still gives an ApiError with the status', async () => {
    local = await localServer((_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"detail": "ser', () => res.destroy());
    });
    const client = new ChatClient({ baseUrl: local.url, maxRetries: 0 });
    await assert.rejects(client.messages('c_1'), (err: unknown) => {
      assert.ok(err instanceof InternalServerError);
      assert.equal(err.status, 503);
      assert.match(err.message, /^HTTP 503/);
      return true;
    });
  });

  it('retries a GET after 503 and a reset connection, then succeeds', async () => {
    local = await localServer((_req, res, n) => {
      if (n === 1) return json(res, 503, { detail: 'busy' }, { 'retry-after': '0' });
      if (n === 2) return res.socket?.destroy();
      json(res, 200, { entries: [] });
    });
    const client = new ChatClient({ baseUrl: local.url, maxRetries: 2 });
    assert.deepEqual(await client.messages('c_1'), { entries: [] });
    assert.equal(local.requests.length, 3);
  });

  it('gives up after maxRetries and throws the last error', async () => {
    local = await localServer((_req, res) => json(res, 429, { detail: 'slow down' }, { 'retry-after': '0' }));
    const client = new ChatClient({ baseUrl: local.url, maxRetries: 2 });
    await assert.rejects(client.messages('c_1'), RateLimitError);
    assert.equal(local.requests.length, 3);
  });

  it('waits as long as retry-after says', async () => {
    local = await localServer((_req, res, n) =>
      n === 1 ? json(res, 429, { detail: 'slow down' }, { 'retry-after': '1' }) : json(res, 200, { entries: [] }),
    );
    const client = new ChatClient({ baseUrl: local.url });
    const started = Date.now();
    await client.messages('c_1');
    assert.ok(Date.now() - started >= 900, 'the retry came before retry-after');
  });

  it('never retries a send, a message could otherwise go out twice', async () => {
    local = await localServer((_req, res) => json(res, 503, { detail: 'busy' }, { 'retry-after': '0' }));
    const client = new ChatClient({ baseUrl: local.url, maxRetries: 5 });
    await assert.rejects(client.send({ message: 'once' }), InternalServerError);
    assert.equal(local.requests.length, 1);
  });

  it('does not retry a 500 or a 4xx', async () => {
    local = await localServer((_req, res) => json(res, 500, { detail: 'internal server error' }));
    const client = new ChatClient({ baseUrl: local.url, maxRetries: 3 });
    await assert.rejects(client.messages('c_1'), InternalServerError);
    assert.equal(local.requests.length, 1);
  });

  it('a refused connection is ApiConnectionError', async () => {
    local = await localServer(() => {});
    const { url, server } = local;
    await new Promise((resolve) => server.close(resolve));
    const client = new ChatClient({ baseUrl: url, maxRetries: 0 });
    await assert.rejects(client.messages('c_1'), (err: unknown) => {
      assert.ok(err instanceof ApiConnectionError && !(err instanceof ApiTimeoutError));
      return true;
    });
  });

  it('a silent server is ApiTimeoutError after timeoutMs', async () => {
    local = await localServer(() => {});
    const client = new ChatClient({ baseUrl: local.url, timeoutMs: 200, maxRetries: 0 });
    const started = Date.now();
    await assert.rejects(client.messages('c_1'), (err: unknown) => {
      assert.ok(err instanceof ApiTimeoutError);
      assert.match(err.message, /timed out after 200 ms/);
      return true;
    });
    assert.ok(Date.now() - started < 5_000);
    await assert.rejects(client.messages('c_1', { timeoutMs: 50 }), ApiTimeoutError);
  });

  it('the caller’s signal aborts a request with AbortError, also before it starts', async () => {
    const controller = new AbortController();
    // The server never answers: the request is aborted once it arrived.
    local = await localServer(() => controller.abort());
    const client = new ChatClient({ baseUrl: local.url, maxRetries: 0 });
    await assert.rejects(client.messages('c_1', { signal: controller.signal }), AbortError);
    const before = local.requests.length;
    await assert.rejects(client.messages('c_1', { signal: AbortSignal.abort() }), AbortError);
    assert.equal(local.requests.length, before, 'an aborted signal sends nothing');
  });

  it('an abort during the wait before a retry ends it with AbortError', async () => {
    const controller = new AbortController();
    // Aborted once the 503 is sent: the client then waits 30 s before its retry.
    local = await localServer((_req, res) => {
      res.once('finish', () => controller.abort());
      json(res, 503, { detail: 'busy' }, { 'retry-after': '30' });
    });
    const client = new ChatClient({ baseUrl: local.url, maxRetries: 2 });
    await assert.rejects(client.messages('c_1', { signal: controller.signal }), AbortError);
    assert.equal(local.requests.length, 1);
  });

  it('sends the token only in Authorization, with X-Login-Type and X-Act-As, and encodes path segments', async () => {
    local = await localServer((_req, res) => json(res, 200, { entries: [] }));
    const client = new SvcClient({
      baseUrl: `${local.url}/`,
      apiKey: 'lt_secret_login',
      loginType: 'jwt',
      actAs: 'svc_account',
    });
    await client.chat.messages('a/b c?', { includeThinking: true });
    const [req] = local.requests;
    assert.equal(req?.url, '/api/v2/conversations/a%2Fb%20c%3F/messages?includeThinking=true');
    assert.equal(req?.headers.authorization, 'Bearer lt_secret_login');
    assert.equal(req?.headers['x-login-type'], 'jwt');
    assert.equal(req?.headers['x-act-as'], 'svc_account');
    assert.doesNotMatch(req?.url ?? '', /secret/);
  });

  it('refuses an id that would turn into another route, before sending anything', async () => {
    local = await localServer((_req, res) => json(res, 200, { entries: [] }));
    const client = new SvcClient({ baseUrl: local.url, apiKey: 'pk_x' });
    for (const id of ['..', '.', '']) {
      await assert.rejects(client.chat.messages(id), (err: unknown) => {
        assert.ok(err instanceof SvcSdkError);
        assert.match(err.message, /Invalid path segment/);
        return true;
      });
    }
    await assert.rejects(client.chat.stream('..').next(), SvcSdkError);
    assert.equal(local.requests.length, 0);
  });

  it('a logged client shows no token', () => {
    const client = new SvcClient({ apiKey: 'pk_very_secret', baseUrl: 'http://127.0.0.1:1' });
    assert.doesNotMatch(inspect(client, { depth: 10 }), /pk_very_secret/);
    assert.doesNotMatch(JSON.stringify(client.http.config), /pk_very_secret/);
  });

  it('reads SVC_API_KEY from the environment when no apiKey is given', async () => {
    local = await localServer((_req, res) => json(res, 200, { entries: [] }));
    const saved = process.env.SVC_API_KEY;
    process.env.SVC_API_KEY = 'pk_from_env';
    try {
      await new ChatClient({ baseUrl: local.url }).messages('c_1');
    } finally {
      if (saved === undefined) delete process.env.SVC_API_KEY;
      else process.env.SVC_API_KEY = saved;
    }
    assert.equal(local.requests[0]?.headers.authorization, 'Bearer pk_from_env');
  });

  it('a 200 that is not JSON is a clear SvcSdkError', async () => {
    local = await localServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html>login</html>'),
    );
    const client = new ChatClient({ baseUrl: local.url });
    await assert.rejects(client.messages('c_1'), (err: unknown) => {
      assert.ok(err instanceof SvcSdkError && !(err instanceof ApiError));
      assert.match(err.message, /not JSON: <html>login/);
      return true;
    });
  });
});
