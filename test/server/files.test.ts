import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { conversationDir } from '../../server/services/conversation-files.js';
import { LIMITS } from '../../server/services/limits.js';
import { sweepUploads } from '../../server/services/uploads.js';
import { clock } from '../../server/store/clock.js';
import { sendAndRead, sessionToken } from '../helpers/conversation.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

function form(file: Blob | undefined, fields: Record<string, string> = {}, filename = 'upload.bin'): FormData {
  const body = new FormData();
  for (const [name, value] of Object.entries(fields)) body.append(name, value);
  if (file) body.append('file', file, filename);
  return body;
}

const upload = (server: TestServer, body: BodyInit, token = 'pk_alice', headers?: Record<string, string>) =>
  server.api('/files/upload', { method: 'POST', token, body, headers });

/** Starts a conversation with the demo agent's `/file` command and waits for its two files. */
async function conversationWithFiles(server: TestServer, token: string): Promise<string> {
  const { sent } = await sendAndRead(server, token, {
    message: '/file',
    targetAgentIds: ['agent_demo'],
    newConversation: true,
  });
  return sent.conversationId;
}

describe('file upload and capability URLs', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('keeps the content type and serves the bytes at a capability URL without credentials', async () => {
    const res = await upload(
      server,
      form(new Blob([PNG], { type: 'application/octet-stream' }), { contentType: 'image/png' }, 'dot.png'),
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.filename, 'dot.png');
    assert.equal(res.body.mimeType, 'image/png', 'the contentType field wins over the part type');
    assert.equal(res.body.size, PNG.length);
    assert.equal(res.body.provider, 'local');
    assert.match(res.body.url, new RegExp(`^${server.url}/api/v2/files/f_[A-Za-z0-9_-]{22}/dot\\.png$`));

    const served = await fetch(res.body.url);
    assert.equal(served.status, 200);
    assert.deepEqual(Buffer.from(await served.arrayBuffer()), PNG);
    assert.equal(served.headers.get('content-type'), 'image/png');
    assert.equal(served.headers.get('x-content-type-options'), 'nosniff');
    assert.match(served.headers.get('content-disposition') ?? '', /^inline; filename\*=UTF-8''dot\.png$/);
  });

  it('takes the part type and name when no field overrides them, and the filename field when given', async () => {
    const plain = await upload(server, form(new Blob(['hello'], { type: 'text/plain' }), {}, 'notes.txt'));
    assert.equal(plain.body.mimeType, 'text/plain');
    assert.equal(plain.body.filename, 'notes.txt');
    const renamed = await upload(
      server,
      form(new Blob(['x'], { type: 'text/plain' }), { filename: '季度 报告 (final).txt' }),
    );
    assert.equal(renamed.body.filename, '季度 报告 (final).txt');
    const served = await fetch(renamed.body.url);
    assert.equal(await served.text(), 'x');
    assert.equal(
      served.headers.get('content-disposition'),
      "inline; filename*=UTF-8''%E5%AD%A3%E5%BA%A6%20%E6%8A%A5%E5%91%8A%20%28final%29.txt",
    );
  });

  it('keeps a file name from climbing folders', async () => {
    const res = await upload(server, form(new Blob(['x']), { filename: '../../etc/passwd' }));
    assert.equal(res.body.filename, 'passwd');
  });

  it('replaces the characters that reorder a file name (right-to-left override and the like)', async () => {
    for (const control of ['\u202e', '\u202d', '\u2066', '\u2067', '\u2068', '\u2069', '\u200f', '\u061c']) {
      const res = await upload(server, form(new Blob(['x']), { filename: `invoice${control}gpj.exe` }));
      assert.equal(res.body.filename, 'invoice\ufffdgpj.exe', JSON.stringify(control));
      assert.ok(res.body.url.endsWith(`/${encodeURIComponent('invoice\ufffdgpj.exe')}`));
    }
  });

  it('never serves HTML or SVG inline from its own origin', async () => {
    for (const [name, type] of [
      ['page.html', 'text/html'],
      ['chart.svg', 'image/svg+xml'],
      ['app.js', 'text/javascript'],
    ]) {
      const res = await upload(server, form(new Blob(['<script>alert(1)</script>'], { type }), {}, name));
      assert.equal(res.body.mimeType, type);
      const served = await fetch(res.body.url);
      assert.equal(served.headers.get('content-type'), type);
      assert.match(served.headers.get('content-disposition') ?? '', /^attachment;/, name);
      assert.match(served.headers.get('content-security-policy') ?? '', /sandbox/);
      assert.equal(served.headers.get('x-content-type-options'), 'nosniff');
    }
  });

  it('accepts files larger than the JSON body limit, up to 20 MB', async () => {
    const big = Buffer.alloc(3 * 1024 * 1024, 7);
    const res = await upload(server, form(new Blob([big])));
    assert.equal(res.status, 200);
    assert.equal(res.body.size, big.length);
  });

  it('refuses a file over 20 MB with 413', async () => {
    const res = await upload(server, form(new Blob([Buffer.alloc(20 * 1024 * 1024 + 1)])));
    assert.equal(res.status, 413);
    assert.equal(res.body.detail, 'file too large (limit 20 MB)');
  });

  it('explains a request without a file, a body that is not multipart, and a missing credential', async () => {
    const noFile = await upload(server, form(undefined, { filename: 'a.txt' }));
    assert.deepEqual([noFile.status, noFile.body.detail], [400, 'multipart field "file" is missing']);
    const json = await server.api('/files/upload', { method: 'POST', token: 'pk_alice', json: { file: 'x' } });
    assert.deepEqual([json.status, json.body.detail], [415, 'Content-Type must be multipart/form-data']);
    const text = await upload(server, 'plain text', 'pk_alice', { 'content-type': 'text/plain' });
    assert.deepEqual([text.status, text.body.detail], [415, 'Content-Type must be multipart/form-data']);
    const anonymous = await server.api('/files/upload', { method: 'POST', body: form(new Blob(['x'])) });
    assert.deepEqual([anonymous.status, anonymous.body.detail], [401, 'invalid Bearer token']);
    const badType = await upload(server, form(new Blob(['x']), { contentType: 'text/html\r\nx-evil: 1' }));
    assert.equal(badType.status, 400);
    assert.match(badType.body.detail, /^body\/contentType must be a media type/);
  });

  it('answers 404 for an unknown file id', async () => {
    const res = await server.api('/files/f_AAAAAAAAAAAAAAAAAAAAAA/x.png');
    assert.deepEqual([res.status, res.body.detail], [404, 'file not found']);
  });
});

describe('upload limit', () => {
  it('derives the 413 message from the configured limit', async () => {
    const server = await startTestServer({ maxUploadBytes: 1024 });
    try {
      const fits = await upload(server, form(new Blob([Buffer.alloc(1024)])));
      assert.equal(fits.status, 200);
      const over = await upload(server, form(new Blob([Buffer.alloc(1025)])));
      assert.deepEqual([over.status, over.body.detail], [413, 'file too large (limit 1 KB)']);
    } finally {
      await server.close();
    }
  });
});

describe('upload quota per user', () => {
  let server: TestServer;
  const realNow = clock.now;
  let skew = 0;
  before(async () => {
    server = await startTestServer({ quotas: { uploadBytesPerHour: 1024 * 1024 } });
    clock.now = () => realNow() + skew;
  });
  after(async () => {
    clock.now = realNow;
    await server.close();
  });

  const uploads = () => readdirSync(join(server.ctx.filesDir, 'uploads')).length;

  it('refuses what goes past a user’s hourly quota with 429, exactly, even in parallel', async () => {
    const { token } = await sessionToken(server);
    const results = await Promise.all(
      Array.from({ length: 8 }, () => upload(server, form(new Blob([Buffer.alloc(300 * 1024)])), token)),
    );
    assert.equal(results.filter((r) => r.status === 200).length, 3);
    const refused = results.filter((r) => r.status === 429);
    assert.equal(refused.length, 5);
    assert.ok(refused.every((r) => r.body.detail === 'upload quota reached (1 MB per hour), try again later'));
    assert.ok(refused.every((r) => Number(r.headers.get('retry-after')) > 3500));
    // The refused bytes were not kept, and the next upload is refused before its bytes are read.
    assert.equal(uploads(), 3);
    const full = await upload(server, form(new Blob([Buffer.alloc(300 * 1024)])), token);
    assert.equal(full.status, 429);
    // Another user has a quota of their own; an hour later the first has theirs again.
    const other = await sessionToken(server);
    assert.equal((await upload(server, form(new Blob([Buffer.alloc(300 * 1024)])), other.token)).status, 200);
    skew += 60 * 60 * 1000;
    assert.equal((await upload(server, form(new Blob([Buffer.alloc(300 * 1024)])), token)).status, 200);
  });
});

describe('uploads no message refers to expire', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it(`are deleted ${LIMITS.unreferencedUploadMs / 3_600_000} hours after they were made; sent ones stay`, async () => {
    const { token } = await sessionToken(server);
    const unused = (await upload(server, form(new Blob(['forgotten'])), token)).body.url as string;
    const sent = (await upload(server, form(new Blob([PNG]), { contentType: 'image/png' }, 'dot.png'), token)).body;
    const message = await server.api('/conversations/send', {
      method: 'POST',
      token,
      json: {
        message: 'look',
        targetAgentIds: ['agent_echo'],
        parts: [{ type: 'image_url', image_url: { url: sent.url } }],
      },
    });
    assert.equal(message.status, 200);
    const status = async (url: string) => (await fetch(url)).status;
    const at = (ms: number) => sweepUploads(server.ctx, Date.now() + ms);

    assert.equal(await at(LIMITS.unreferencedUploadMs - 60_000), 0);
    assert.deepEqual([await status(unused), await status(sent.url)], [200, 200]);
    assert.equal(await at(LIMITS.unreferencedUploadMs + 60_000), 1);
    assert.deepEqual([await status(unused), await status(sent.url)], [404, 200]);
    assert.equal(readdirSync(join(server.ctx.filesDir, 'uploads')).length, 1);
  });

  it('are cleared away when the service starts too: what expired while it was down goes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-expiry-'));
    const options = { db: join(dir, 'svc.db'), filesDir: join(dir, 'files') };
    const realNow = clock.now;
    try {
      const before = await startTestServer(options);
      const { token } = await sessionToken(before);
      const path = new URL((await upload(before, form(new Blob(['forgotten'])), token)).body.url).pathname;
      await before.close();
      clock.now = () => realNow() + LIMITS.unreferencedUploadMs + 60_000;
      const restarted = await startTestServer(options);
      try {
        assert.equal((await fetch(`${restarted.url}${path}`)).status, 404);
        assert.deepEqual(readdirSync(join(options.filesDir, 'uploads')), []);
      } finally {
        await restarted.close();
      }
    } finally {
      clock.now = realNow;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps the files agents made and showed in a reply', async () => {
    const { records } = await sendAndRead(server, 'pk_alice', {
      message: '/image',
      targetAgentIds: ['agent_demo'],
      newConversation: true,
    });
    const url: string | undefined = records
      .flatMap((r: any) => (r.raw.type === 'assistant' ? r.raw.message.content : []))
      .find((b: any) => b.type === 'image')?.source.url;
    assert.ok(url);
    await sweepUploads(server.ctx, Date.now() + 2 * LIMITS.unreferencedUploadMs);
    assert.equal((await fetch(url)).status, 200);
  });
});

describe('conversation files (read and download)', () => {
  let server: TestServer;
  let alice: string;
  let bob: string;
  before(async () => {
    server = await startTestServer();
    alice = await conversationWithFiles(server, 'pk_alice');
    bob = await conversationWithFiles(server, 'pk_bob');
  });
  after(() => server.close());

  const read = (path: string, token = 'pk_alice', id = alice) =>
    server.api(`/conversations/${id}/files/read?path=${encodeURIComponent(path)}`, { token });

  it('reads an agent-produced text file as UTF-8', async () => {
    const res = await read('report.md');
    assert.equal(res.status, 200);
    assert.equal(res.body.encoding, 'utf-8');
    assert.equal(res.body.mimeType, 'text/markdown');
    assert.match(res.body.content, /^#/);
    const csv = await read('data.csv');
    assert.equal(csv.body.mimeType, 'text/csv');
    assert.match(csv.body.content, /,/);
  });

  it('reads binary files as base64, also in sub-folders', async () => {
    mkdirSync(join(conversationDir(server.ctx, alice), 'out'), { recursive: true });
    writeFileSync(join(conversationDir(server.ctx, alice), 'out', 'dot.png'), PNG);
    const res = await read('out/dot.png');
    assert.deepEqual(res.body, { content: PNG.toString('base64'), encoding: 'base64', mimeType: 'image/png' });
  });

  it('downloads the bytes as an attachment with the file name', async () => {
    writeFileSync(join(conversationDir(server.ctx, alice), '年度 summary.txt'), 'hello 世界');
    const res = await fetch(
      `${server.url}/api/v2/conversations/${alice}/files/download?path=${encodeURIComponent('年度 summary.txt')}`,
      { headers: { authorization: 'Bearer pk_alice' } },
    );
    assert.equal(res.status, 200);
    assert.equal(await res.text(), 'hello 世界');
    assert.equal(res.headers.get('content-type'), 'text/plain');
    assert.equal(
      res.headers.get('content-disposition'),
      "attachment; filename*=UTF-8''%E5%B9%B4%E5%BA%A6%20summary.txt",
    );
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  });

  it("answers 404 for another user's or an unknown conversation, and for a missing file", async () => {
    for (const path of ['read', 'download']) {
      const other = await server.api(`/conversations/${bob}/files/${path}?path=report.md`, { token: 'pk_alice' });
      assert.deepEqual([other.status, other.body.detail], [404, 'conversation not found']);
      const unknown = await server.api(`/conversations/c_nope/files/${path}?path=report.md`, { token: 'pk_alice' });
      assert.deepEqual([unknown.status, unknown.body.detail], [404, 'conversation not found']);
      const missing = await server.api(`/conversations/${alice}/files/${path}?path=nope.md`, { token: 'pk_alice' });
      assert.deepEqual([missing.status, missing.body.detail], [404, 'file not found']);
    }
    const own = await read('report.md', 'pk_bob', bob);
    assert.equal(own.status, 200);
    symlinkSync('loop.txt', join(conversationDir(server.ctx, alice), 'loop.txt'));
    const loop = await read('loop.txt');
    assert.deepEqual([loop.status, loop.body.detail], [404, 'file not found']);
    const folder = await read('out');
    assert.deepEqual([folder.status, folder.body.detail], [404, 'file not found']);
    const noPath = await server.api(`/conversations/${alice}/files/read`, { token: 'pk_alice' });
    assert.equal(noPath.status, 400);
  });

  it('refuses every path that leaves the conversation folder', async () => {
    const conversations = join(server.ctx.filesDir, 'conversations');
    writeFileSync(join(conversations, 'secret.txt'), 'top secret');
    const dir = conversationDir(server.ctx, alice);
    symlinkSync(join(conversations, 'secret.txt'), join(dir, 'innocent.txt'));
    symlinkSync(conversations, join(dir, 'linked-folder'));
    // Raw query strings: each one is sent exactly as written.
    const queries = [
      encodeURIComponent('/etc/passwd'),
      encodeURIComponent(join(conversations, 'secret.txt')),
      encodeURIComponent('../secret.txt'),
      encodeURIComponent('out/../../secret.txt'),
      encodeURIComponent(`../${bob}/report.md`),
      '..',
      '%2e%2e%2fsecret.txt',
      '%2E%2E/secret.txt',
      '%252e%252e%252fsecret.txt',
      '%25252e%25252e%25252fsecret.txt',
      encodeURIComponent('..\\secret.txt'),
      encodeURIComponent('out\\dot.png'),
      'report.md%00.png',
      encodeURIComponent('C:/Windows/win.ini'),
      'innocent.txt',
      'linked-folder/secret.txt',
    ];
    for (const query of queries) {
      for (const route of ['read', 'download']) {
        const res = await server.api(`/conversations/${alice}/files/${route}?path=${query}`, { token: 'pk_alice' });
        assert.equal(res.status, 400, `${route} ${query} answered ${res.status} ${JSON.stringify(res.body)}`);
        assert.equal(res.body.detail, 'path escapes the conversation workspace');
      }
    }
  });

  it('refuses a path holding a name longer than a file system takes with 400, never a 500', async () => {
    for (const route of ['read', 'download']) {
      for (const path of ['a'.repeat(256), `out/${'é'.repeat(128)}`, `${'a'.repeat(300)}/x.txt`]) {
        const res = await server.api(`/conversations/${alice}/files/${route}?path=${encodeURIComponent(path)}`, {
          token: 'pk_alice',
        });
        assert.deepEqual([res.status, res.body.detail], [400, 'querystring/path must not hold a name over 255 bytes']);
      }
      const longest = await server.api(`/conversations/${alice}/files/${route}?path=${'a'.repeat(255)}`, {
        token: 'pk_alice',
      });
      assert.deepEqual([longest.status, longest.body.detail], [404, 'file not found']);
      const tooLong = await server.api(`/conversations/${alice}/files/${route}?path=${'a/'.repeat(2100)}`, {
        token: 'pk_alice',
      });
      assert.deepEqual([tooLong.status, tooLong.body.detail], [400, 'querystring/path must be at most 4096 bytes']);
    }
  });

  it('follows a symlink that stays inside the folder', async () => {
    const dir = conversationDir(server.ctx, alice);
    symlinkSync(join(dir, 'report.md'), join(dir, 'latest.md'));
    const res = await read('latest.md');
    assert.equal(res.status, 200);
    assert.equal(res.body.content, (await read('report.md')).body.content);
  });
});
