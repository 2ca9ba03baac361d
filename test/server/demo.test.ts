import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { assertServedAsCdn } from '../helpers/widget-serving.js';

describe('demo pages (--demo)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ demo: true, fixture: undefined });
  });
  after(() => server.close());

  it('serve every page and file with nosniff, no referrer, and pages under a strict CSP', async () => {
    for (const path of ['/', '/sms', '/esm', '/inbox']) {
      const res = await fetch(`${server.url}${path}`);
      assert.equal(res.status, 200, path);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff', path);
      assert.equal(res.headers.get('referrer-policy'), 'no-referrer', path);
      assert.match(res.headers.get('content-security-policy') ?? '', /script-src 'self'/, path);
    }
    const missing = await fetch(`${server.url}/demo/nope.js`);
    assert.equal(missing.headers.get('x-content-type-options'), 'nosniff');
  });

  it("serves the widget's files as a CDN does: compressed, chunks kept for good, the entries revalidated", async () => {
    await assertServedAsCdn(`${server.url}/dist/`);
  });

  it('hands out visitor sessions that no cache may keep', async () => {
    const res = await fetch(`${server.url}/demo/token`, { method: 'POST' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const { token } = (await res.json()) as { token: string };
    assert.match(token, /^st_/);
  });

  it('hands the demo inbox an operator session (never the workspace key) that no cache may keep', async () => {
    const res = await fetch(`${server.url}/demo/operator-token`, { method: 'POST' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const { token } = (await res.json()) as { token: string };
    assert.match(token, /^ot_/);
    const queue = await fetch(`${server.url}/api/v2/operators/queue`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(queue.status, 200);
  });
});
