import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import {
  ChatClient,
  HttpTransport,
  hookMatcher,
  NotImplementedError,
  query,
  SvcClient,
  SvcSdkError,
  WorkspacesClient,
} from '../../src/index.js';
import { createSdkMcpServer, tool } from '../../src/tools/index.js';

const names =
  (entry: string) =>
  (err: unknown): boolean => {
    assert.ok(err instanceof NotImplementedError && err instanceof SvcSdkError);
    assert.ok(err.message.includes(entry), `${err.message} should name ${entry}`);
    return true;
  };

describe('client: reserved entries', () => {
  it('each throws NotImplementedError naming the entry', () => {
    assert.throws(() => query({ prompt: 'hi' }), names('query()'));
    assert.throws(() => hookMatcher(), names('hookMatcher()'));
    assert.throws(() => new HttpTransport({ url: 'https://example.com' }), names('HttpTransport'));
    assert.throws(() => tool('weather', {}), names('tool()'));
    assert.throws(() => createSdkMcpServer({ name: 'x' }), names('createSdkMcpServer()'));
    const client = new SvcClient({ apiKey: 'pk_alice' });
    assert.throws(() => client.listSessions(), names('listSessions()'));
    assert.throws(() => client.getSession('s_1'), names('getSession()'));
    assert.throws(() => client.deleteSession('s_1'), names('deleteSession()'));
  });
});

describe('client: a workspace key on a web page', () => {
  const g = globalThis as { window?: unknown; document?: unknown };
  const pretendBrowser = () => {
    g.window = globalThis;
    g.document = {};
  };
  afterEach(() => {
    delete g.window;
    delete g.document;
  });

  it('is refused with an explanation', () => {
    pretendBrowser();
    for (const create of [
      () => new SvcClient({ apiKey: 'sk_acme_1' }),
      () => new ChatClient({ apiKey: 'sk_acme_1' }),
      () => new WorkspacesClient({ apiKey: 'sk_acme_1' }),
    ]) {
      assert.throws(create, (err: unknown) => {
        assert.ok(err instanceof SvcSdkError);
        assert.match(err.message, /workspace API key/);
        assert.match(err.message, /whole workspace/);
        assert.match(err.message, /dangerouslyAllowBrowser/);
        return true;
      });
    }
  });

  it('is allowed with dangerouslyAllowBrowser, and other credentials are always allowed', () => {
    pretendBrowser();
    assert.ok(new SvcClient({ apiKey: 'sk_acme_1', dangerouslyAllowBrowser: true }));
    assert.ok(new SvcClient({ apiKey: 'st_session_token' }));
    assert.ok(new SvcClient({ apiKey: 'pk_alice' }));
    assert.ok(new SvcClient());
  });

  it('is fine on a server, where there is no window', () => {
    assert.ok(new SvcClient({ apiKey: 'sk_acme_1' }));
  });
});
