import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { get as httpGet, type IncomingHttpHeaders } from 'node:http';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { scriptTagFiles } from '../../scripts/script-tag-files.mjs';
import { ROOT } from '../embed/build-app.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** A GET as a browser sends it, with the bytes that came over the wire (not decompressed). */
function getRaw(url: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    httpGet(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}

describe('demo pages (--demo)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ demo: true, fixture: undefined });
  });
  after(() => server.close());

  it('serve every page and file with nosniff, no referrer, and pages under a strict CSP', async () => {
    for (const path of ['/', '/sms', '/esm']) {
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
    const files = scriptTagFiles(join(ROOT, 'dist'));
    const get = (name: string, headers: Record<string, string> = {}) =>
      getRaw(`${server.url}/dist/${basename(name)}`, headers);
    for (const entry of ['svc-chat.js', 'svc-chat.esm.js']) {
      const res = await get(files[entry]!, { 'accept-encoding': 'gzip, deflate, br' });
      assert.equal(res.status, 200, entry);
      assert.equal(res.headers['content-encoding'], 'br', entry);
      assert.equal(res.headers.vary, 'Accept-Encoding');
      assert.equal(res.headers['cache-control'], 'public, max-age=300, must-revalidate', entry);
      assert.deepEqual(brotliDecompressSync(res.body), readFileSync(files[entry]!), entry);
      // A browser that kept it asks again with its ETag: nothing to send.
      const again = await get(files[entry]!, { 'if-none-match': String(res.headers.etag) });
      assert.equal(again.status, 304, entry);
      assert.equal(again.body.length, 0);
    }
    const panel = files['svc-chat-panel.js']!;
    assert.match(basename(panel), /^svc-chat-panel\.[\w-]{8}\.js$/, 'named by its content');
    const gzipped = await get(panel, { 'accept-encoding': 'gzip' });
    assert.equal(gzipped.headers['content-encoding'], 'gzip');
    assert.equal(gzipped.headers['cache-control'], 'public, max-age=31536000, immutable');
    const wire = gzipped.body;
    assert.deepEqual(gunzipSync(wire), readFileSync(panel));
    assert.ok(wire.length < readFileSync(panel).length / 2, `${wire.length} B on the wire`);
    const plain = await get(panel);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.deepEqual(plain.body, readFileSync(panel));
    assert.equal((await get('svc-chat-nope.js')).status, 404);
    assert.equal((await get('../package.json')).status, 404);
  });

  it('hands out visitor sessions that no cache may keep', async () => {
    const res = await fetch(`${server.url}/demo/token`, { method: 'POST' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const { token } = (await res.json()) as { token: string };
    assert.match(token, /^st_/);
  });
});
