import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { scriptTagFiles } from '../../scripts/script-tag-files.mjs';
import { getRaw } from './raw-http.js';

const DIST = join(import.meta.dirname, '../../dist');

/**
 * Asserts that `base` (`http://…/dist/`) serves the built widget's files as a CDN does: brotli or gzip as the
 * browser accepts, the same bytes once decompressed; the two entries cached for five minutes and then revalidated
 * by their ETag (304, no body); every chunk (named by its content's hash) `immutable` for a year. The reference
 * service and the documented nginx are held to it alike.
 */
export async function assertServedAsCdn(base: string): Promise<void> {
  const files = scriptTagFiles(DIST);
  const get = (name: string, headers: Record<string, string> = {}) => getRaw(`${base}${basename(name)}`, headers);
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
  assert.equal((await get('package.json')).status, 404);
}
