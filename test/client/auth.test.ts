import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { TokenSource, tokenEndpointProvider } from '../../src/client/auth.js';
import {
  AuthenticationError,
  ChatClient,
  type ChatStreamRecord,
  extractText,
  type SessionGrant,
} from '../../src/index.js';
import { adminClient } from '../helpers/client.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { uniqueRef } from '../helpers/workspace.js';

const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();

describe('TokenSource', () => {
  it('keeps a token until shortly before it expires, then renews it', async (t) => {
    // The clock moves only when the test moves it.
    t.mock.timers.enable({ apis: ['Date'], now: Date.parse('2026-01-01T00:00:00Z') });
    let calls = 0;
    const source = new TokenSource(async () => ({ token: `t${++calls}`, expires_at: inMs(400) }));
    assert.equal(await source.token(), 't1');
    t.mock.timers.tick(290);
    assert.equal(await source.token(), 't1', 'a fresh token is reused');
    t.mock.timers.tick(30);
    assert.equal(await source.token(), 't2', 'renewed in the last quarter of its life');
    assert.equal(calls, 2);
  });

  it('asks the provider once however many callers need a token at the same time', async () => {
    let calls = 0;
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const source = new TokenSource(async () => {
      calls++;
      await answered;
      return 'shared';
    });
    const asked = Promise.all(Array.from({ length: 10 }, () => source.token()));
    answer();
    const tokens = await asked;
    assert.deepEqual(new Set(tokens), new Set(['shared']));
    assert.equal(calls, 1);
  });

  it('says clearly when the provider returns no token', async () => {
    const source = new TokenSource(async () => ({ token: '' }));
    await assert.rejects(source.token(), /returned no token/);
  });
});

describe('client: a tokenProvider in the request core, against the service', () => {
  let server: TestServer;
  let good: SessionGrant;
  before(async () => {
    server = await startTestServer();
    good = await adminClient(server)
      .workspace('acme')
      .startVisitorSession({ sp_user_ref: uniqueRef('visitor') });
  });
  after(() => server.close());

  /** Fails the way a provider says the visitor must sign in again. */
  const signInAgain = () => Object.assign(new Error('Your session expired. Sign in again.'), { status: 401 });

  /**
   * A chat client whose provider hands out `handouts` in turn (the last one again and again; an Error is
   * thrown), recording what it handed out and the status of every response.
   */
  function clientWith(handouts: (SessionGrant | string | Error)[], config = {}) {
    const handed: string[] = [];
    const statuses: number[] = [];
    const tokenProvider = async () => {
      const next = handouts[Math.min(handed.length, handouts.length - 1)]!;
      handed.push(next instanceof Error ? 'failure' : typeof next === 'string' ? next : next.token);
      if (next instanceof Error) throw next;
      return next;
    };
    const fetchAndLog: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      statuses.push(res.status);
      return res;
    };
    const chat = new ChatClient({ baseUrl: server.url, tokenProvider, fetch: fetchAndLog, maxRetries: 0, ...config });
    return { chat, handed, statuses };
  }

  it('renews the token on a 401 and repeats the request once', async () => {
    const { chat, handed, statuses } = clientWith(['st_expired_or_revoked', good]);
    const sent = await chat.send({ message: 'hello', targetAgentIds: ['agent_echo'], newConversation: true });
    assert.deepEqual(statuses, [401, 200]);
    assert.deepEqual(handed, ['st_expired_or_revoked', good.token]);
    assert.match(sent.conversationId, /^c_/);
  });

  it('renews once for many calls refused at the same time', async () => {
    const { chat, handed } = clientWith(['st_expired_or_revoked', good]);
    const { conversationId } = await chat.send({
      message: 'hello',
      targetAgentIds: ['agent_echo'],
      newConversation: true,
    });
    assert.deepEqual(handed, ['st_expired_or_revoked', good.token]);
    const other = clientWith(['st_expired_or_revoked', good]);
    await Promise.all(Array.from({ length: 5 }, () => other.chat.history(conversationId)));
    assert.deepEqual(other.handed, ['st_expired_or_revoked', good.token]);
  });

  it('starts with apiKey when given one, and asks the provider only once the service refuses it', async () => {
    const { chat, handed } = clientWith([good], { apiKey: 'st_expired_or_revoked' });
    await chat.send({ message: 'hello', targetAgentIds: ['agent_echo'], newConversation: true });
    assert.deepEqual(handed, [good.token]);
  });

  it('reports a failed renewal as an AuthenticationError with the status the provider gave', async () => {
    const { chat, handed } = clientWith(['st_expired_or_revoked', signInAgain()]);
    await assert.rejects(
      chat.send({ message: 'hello', targetAgentIds: ['agent_echo'], newConversation: true }),
      (err: unknown) => {
        assert.ok(err instanceof AuthenticationError);
        assert.equal(err.status, 401);
        assert.equal(err.message, 'could not get a session token: Your session expired. Sign in again.');
        return true;
      },
    );
    assert.deepEqual(handed, ['st_expired_or_revoked', 'failure']);
  });

  it('ends a stream with that error instead of reconnecting', async () => {
    const { conversationId } = await clientWith([good]).chat.send({
      message: 'hi',
      targetAgentIds: ['agent_echo'],
      newConversation: true,
    });
    const { chat, handed } = clientWith(['st_expired_or_revoked', signInAgain()]);
    const states: string[] = [];
    const records = chat.stream(conversationId, { onConnectionChange: (state) => states.push(state) });
    await assert.rejects(records.next(), AuthenticationError);
    assert.deepEqual(handed, ['st_expired_or_revoked', 'failure']);
    assert.deepEqual(states, [], 'never open, never reconnecting');
  });

  it('resumes a stream the service ended at its token’s expiry, with a renewed token and no record lost', async () => {
    const workspace = adminClient(server).workspace('acme');
    const ref = uniqueRef('short-lived');
    await workspace.provisionMember({ sp_user_ref: ref });
    let minted = 0;
    let renewed!: () => void;
    const renewal = new Promise<void>((resolve) => {
      renewed = resolve;
    });
    const tokenProvider = async () => {
      if (++minted === 2) renewed();
      return workspace.mintSession({ sp_user_ref: ref, ttl_seconds: 2 });
    };
    const chat = new ChatClient({ baseUrl: server.url, tokenProvider, maxRetries: 0 });
    const first = await chat.send({ message: 'one', targetAgentIds: ['agent_echo'] });
    const seen: ChatStreamRecord[] = [];
    const reading = (async () => {
      for await (const record of chat.stream(first.conversationId, { lastEventId: first.userEventId })) {
        seen.push(record);
        if (seen.filter((r) => r.raw.type === 'result').length === 2) break;
      }
    })();
    // The first token lives 2 seconds: the stream ends then, and comes back with the second.
    await renewal;
    await chat.send({ message: 'two', conversationId: first.conversationId });
    await reading;
    assert.deepEqual(seen.map(extractText).filter(Boolean), ['Echo: one', 'two', 'Echo: two']);
    assert.equal(new Set(seen.map((r) => r.id)).size, seen.length);
  });

  it('two clients of one token endpoint that start together share one request, so they are one visitor', async () => {
    // Like the demo's backend: a request without the visitor's cookie mints a new visitor.
    let asked = 0;
    const endpoint = createServer(async (_req, res) => {
      asked++;
      const { token } = await adminClient(server)
        .workspace('acme')
        .startVisitorSession({ sp_user_ref: uniqueRef('visitor') });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ token }));
    });
    await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = endpoint.address() as { port: number };
      const [first, second] = [0, 1].map(
        () =>
          new ChatClient({
            baseUrl: server.url,
            tokenProvider: tokenEndpointProvider(`http://127.0.0.1:${port}/token`),
          }),
      );
      const [sent] = await Promise.all([first!.send({ message: 'hello' }), second!.listConversations()]);
      assert.equal(asked, 1);
      // Not `conversation not found`: the same visitor.
      assert.ok((await second!.history(sent.conversationId)).entries.length > 0);
    } finally {
      endpoint.closeAllConnections();
      await new Promise((resolve) => endpoint.close(resolve));
    }
  });

  it('reports a token endpoint that answers 500 as an AuthenticationError with status 500, asked once', async () => {
    let asked = 0;
    const endpoint = createServer((_req, res) => {
      asked++;
      res.writeHead(500, { 'content-type': 'text/plain' }).end('backend down');
    });
    await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = endpoint.address() as { port: number };
      const chat = new ChatClient({
        baseUrl: server.url,
        tokenProvider: tokenEndpointProvider(`http://127.0.0.1:${port}/token`),
      });
      await assert.rejects(chat.history('c_any'), (err: unknown) => {
        assert.ok(err instanceof AuthenticationError);
        assert.equal(err.status, 500);
        assert.equal(err.message, 'could not get a session token: the token endpoint answered 500');
        return true;
      });
      assert.equal(asked, 1, 'a 500 is not retried');
    } finally {
      endpoint.closeAllConnections();
      await new Promise((resolve) => endpoint.close(resolve));
    }
  });
});
