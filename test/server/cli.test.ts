import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort } from '../helpers/free-port.mjs';
import { FIXTURE } from '../helpers/server.js';

const BIN = fileURLToPath(new URL('../../bin/svc-server.js', import.meta.url));
/** A server that crashes before printing its URL fails the test here (its stderr is shown) instead of hanging. */
const STARTUP = { timeout: 30_000 };

/** Runs `svc-server` with `args` (and `env` over this process's environment) and collects its output until it exits. */
async function run(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const [code] = await once(child, 'exit');
  return { code, stdout, stderr };
}

describe('svc-server command line', () => {
  let dir: string;
  let child: ChildProcess;
  let url: string;
  const outbox = () => join(dir, 'outbox.jsonl');
  const fixture = () => join(dir, 'fixture.json');

  /** Starts the server as a user would and reads the URL from its first stdout line. */
  async function start() {
    const args = ['--port', '0', '--db', ':memory:', '--fixture', fixture(), '--sms-outbox', outbox()];
    const server = spawn(process.execPath, [BIN, ...args, '--files-dir', dir], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const [first] = (await once(createInterface({ input: server.stdout }), 'line')) as [string];
    const match = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(first);
    assert.ok(match, `unexpected first line: ${first}`);
    return { child: server, url: match[1]! };
  }

  async function stop(server: ChildProcess) {
    if (server.exitCode !== null) return server.exitCode;
    const exited = once(server, 'exit');
    server.kill('SIGTERM');
    const [code] = await exited;
    return code;
  }

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
    writeFileSync(fixture(), JSON.stringify(FIXTURE));
    ({ child, url } = await start());
  }, STARTUP);

  after(async () => {
    await stop(child);
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints its URL first and serves the fixture over HTTP', async () => {
    const res = await fetch(`${url}/api/v2/workspaces/whoami`, { headers: { authorization: 'Bearer sk_acme_1' } });
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.slug, 'acme');
    assert.equal(body.api_key_id, 'key_acme_1');
  });

  it('writes SMS codes to the --sms-outbox file', async () => {
    const res = await fetch(`${url}/api/v2/workspaces/acme/sms/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ phone: '+4915123456789' }),
    });
    assert.equal(res.status, 204);
    const [line] = readFileSync(outbox(), 'utf8').trim().split('\n');
    const message = JSON.parse(line!);
    assert.equal(message.phone, '+4915123456789');
    assert.equal(message.slug, 'acme');
    assert.match(message.code, /^\d{6}$/);
  });

  it('stops with exit code 0 on SIGTERM', STARTUP, async () => {
    const second = await start();
    assert.equal(await stop(second.child), 0);
    await assert.rejects(fetch(`${second.url}/api/v2/workspaces/whoami`));
  });

  it('prints its usage with --help', async () => {
    const { code, stdout } = await run(['--help']);
    assert.equal(code, 0);
    assert.match(stdout, /^usage: svc-server /);
  });

  it('refuses an invalid port with a message and exit code 1', async () => {
    const { code, stderr } = await run(['--port', 'eighty']);
    assert.equal(code, 1);
    assert.match(stderr, /--port must be 0 to 65535/);
  });

  it('listens on the port in PORT when no --port is given, as `PORT=9000 npm start` does', STARTUP, async () => {
    const port = await freePort();
    const server = spawn(process.execPath, [BIN, '--db', ':memory:', '--fixture', fixture(), '--files-dir', dir], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, PORT: String(port) },
    });
    try {
      const [first] = (await once(createInterface({ input: server.stdout }), 'line')) as [string];
      assert.equal(first, `listening on http://127.0.0.1:${port}`);
      const res = await fetch(`http://127.0.0.1:${port}/api/v2/workspaces/whoami`, {
        headers: { authorization: 'Bearer sk_acme_1' },
      });
      assert.equal(res.status, 200);
    } finally {
      await stop(server);
    }
  });

  it('takes --port over PORT, and says which value is wrong', async () => {
    const { code, stderr } = await run(['--port', '70000'], { PORT: '8080' });
    assert.equal(code, 1);
    assert.match(stderr, /--port must be 0 to 65535, not "70000"/);
    const fromEnv = await run([], { PORT: 'eighty' });
    assert.equal(fromEnv.code, 1);
    assert.match(fromEnv.stderr, /not "eighty"/);
  });
});
