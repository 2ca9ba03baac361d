import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SvcClient } from '../../src/index.js';
import { freePort } from '../helpers/free-port.mjs';
import { type ModelServer, startModelServer } from '../helpers/model-server.mjs';
import { FIXTURE } from '../helpers/server.js';

const BIN = fileURLToPath(new URL('../../server/bin/svc-server.js', import.meta.url));
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

/** Stops a server with SIGTERM and returns its exit code. */
async function stop(server: ChildProcess) {
  if (server.exitCode !== null) return server.exitCode;
  const exited = once(server, 'exit');
  server.kill('SIGTERM');
  const [code] = await exited;
  return code;
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

  it('prints with --help the table of flags and environment variables that docs/server.md holds', async () => {
    const table = (text: string) =>
      text.split('\n').filter((line) => line.startsWith('| `--') || line.startsWith('| flag'));
    const { stdout } = await run(['--help']);
    const documented = table(readFileSync(new URL('../../docs/server.md', import.meta.url), 'utf8'));
    assert.ok(documented.length > 10, 'the table is found in the document');
    assert.deepEqual(table(stdout), documented);
  });

  it('on an empty database without --demo seeds and announces nothing; each log line is JSON', STARTUP, async () => {
    const server = spawn(process.execPath, [BIN, '--port', '0', '--db', ':memory:', '--files-dir', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, SVC_LOG_FORMAT: 'json', SVC_DEMO: '' },
    });
    const out = createInterface({ input: server.stdout });
    const stdout: string[] = [];
    out.on('line', (line) => stdout.push(line));
    let stderr = '';
    server.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    await once(out, 'line');
    const url = stdout[0]!.replace('listening on ', '');
    assert.equal((await fetch(`${url}/`)).status, 404);
    const whoami = await fetch(`${url}/api/v2/workspaces/demo/members`, { method: 'POST' });
    assert.ok(whoami.status === 401 || whoami.status === 404, `${whoami.status}`);
    assert.equal(await stop(server), 0);
    assert.deepEqual(stdout, [`listening on ${url}`]);
    const lines = stderr.trim().split('\n');
    const entries = lines.map((line) => JSON.parse(line) as { level: string; msg: string });
    assert.ok(
      entries.some(
        (entry) =>
          entry.level === 'warn' &&
          entry.msg === 'the database has no workspace: --demo seeds the demo workspace, --fixture FILE loads yours',
      ),
      stderr,
    );
  });

  it('takes every setting from its environment variable when no flag gives it', STARTUP, async () => {
    const port = await freePort();
    const server = spawn(process.execPath, [BIN], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: {
        ...process.env,
        PORT: String(port),
        SVC_HOST: '127.0.0.1',
        SVC_DATABASE_URL: ':memory:',
        SVC_FIXTURE: fixture(),
        SVC_FILES_DIR: dir,
        SVC_SMS_OUTBOX: join(dir, 'env-outbox.jsonl'),
        SVC_RATE_LIMIT: '2/60',
      },
    });
    try {
      const [first] = (await once(createInterface({ input: server.stdout }), 'line')) as [string];
      assert.equal(first, `listening on http://127.0.0.1:${port}`);
      const whoami = () =>
        fetch(`http://127.0.0.1:${port}/api/v2/workspaces/whoami`, { headers: { authorization: 'Bearer sk_acme_1' } });
      assert.deepEqual([(await whoami()).status, (await whoami()).status], [200, 200], 'the fixture of SVC_FIXTURE');
      const limited = await whoami();
      assert.equal(limited.status, 429, 'the rate of SVC_RATE_LIMIT');
      assert.deepEqual(await limited.json(), {
        detail: 'too many requests from this client (limit 2 per 60 s), try again later',
      });
      assert.ok(Number(limited.headers.get('retry-after')) > 0);
    } finally {
      await stop(server);
    }
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

describe('svc-server with a model endpoint', () => {
  let model: ModelServer;
  let dir: string;
  before(async () => {
    model = await startModelServer();
    dir = mkdtempSync(join(tmpdir(), 'svc-cli-model-'));
  });
  after(async () => {
    await model.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Starts `svc-server --demo` with `env` and reads its first four lines. */
  async function startDemo(env: Record<string, string>) {
    const args = ['--port', '0', '--db', ':memory:', '--demo', '--files-dir', dir];
    const child = spawn(process.execPath, [BIN, ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, SVC_MODEL_BASE_URL: '', SVC_MODEL: '', ...env },
    });
    const lines: string[] = [];
    for await (const line of createInterface({ input: child.stdout })) {
      lines.push(line);
      if (lines.length === 4) break;
    }
    return { child, lines, url: lines[0]!.replace('listening on ', ''), apiKey: lines[1]!.split(': ')[1]! };
  }

  it(
    'makes the demo’s main agent a model agent when the environment names an endpoint, and says so',
    STARTUP,
    async () => {
      const { child, lines, url, apiKey } = await startDemo({
        SVC_MODEL_BASE_URL: model.url,
        SVC_MODEL: 'scripted',
        SVC_MODEL_API_KEY: 'sk-cli-test-key',
      });
      try {
        assert.equal(lines[3], `demo agent Aria answers with the model scripted at ${model.url}`);
        const admin = new SvcClient({ baseUrl: url, apiKey, maxRetries: 0 }).workspace('demo');
        const { agent } = await admin.getAgent('agent_aria');
        assert.equal(agent.runtime, 'model');
        const session = await admin.startVisitorSession({ sp_user_ref: 'cli-visitor' });
        const visitor = new SvcClient({ baseUrl: url, apiKey: session.token, agentId: 'agent_aria', maxRetries: 0 });
        const turn = await visitor.sendMessage('hello from the command line');
        assert.equal(turn.text, 'You said: hello from the command line');
        const request = model.requests.at(-1)!;
        assert.equal(request.body.model, 'scripted');
        assert.equal(request.headers.authorization, 'Bearer sk-cli-test-key');
      } finally {
        await stop(child);
      }
    },
  );

  it('keeps the demo agent without an endpoint, and says how to give one', STARTUP, async () => {
    const { child, lines, url, apiKey } = await startDemo({});
    try {
      assert.match(lines[3]!, /^demo agent Aria runs the demo runtime/);
      const admin = new SvcClient({ baseUrl: url, apiKey, maxRetries: 0 }).workspace('demo');
      assert.equal((await admin.getAgent('agent_aria')).agent.runtime, 'demo');
    } finally {
      await stop(child);
    }
  });

  it('refuses --model-base-url without --model with a message and exit code 1', async () => {
    const { code, stderr } = await run(['--model-base-url', model.url]);
    assert.equal(code, 1);
    assert.match(stderr, /--model-base-url and --model go together/);
  });
});

describe('svc-server stops drained however it is started', () => {
  const ROOT = fileURLToPath(new URL('../..', import.meta.url));
  const server = `"${process.execPath}" "${BIN}"`;
  /** Each way an operator starts it: the launcher's command, and the service's flags after it. */
  const launchers: [string, (flags: string) => [string, string[]]][] = [
    ['npx svc-server', (flags) => ['sh', ['-c', `exec npx svc-server ${flags}`]]],
    ['npm run server', (flags) => ['sh', ['-c', `exec npm run --silent server -- ${flags}`]]],
    ['a shell', (flags) => ['sh', ['-c', `${server} ${flags}; echo "the shell went on"`]]],
  ];

  /** The processes below `pid` (Linux), deepest last. */
  function descendants(pid: number): number[] {
    let children: number[] = [];
    try {
      children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
    } catch {
      // It has exited meanwhile.
    }
    return children.flatMap((child) => [child, ...descendants(child)]);
  }

  for (const [name, command] of launchers) {
    it(`drains and exits when ${name} gets SIGTERM`, STARTUP, async () => {
      const [file, args] = command('--port 0 --db :memory: --log-format json --log-level info');
      const launcher = spawn(file, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      launcher.stderr.on('data', (chunk) => {
        stderr += chunk;
      });
      // Every process that holds the output pipes has exited once both have ended: the server too.
      const ended = Promise.all([once(launcher.stdout, 'end'), once(launcher.stderr, 'end')]);
      const [first] = (await once(createInterface({ input: launcher.stdout }), 'line')) as [string];
      assert.match(first, /^listening on http:\/\/127\.0\.0\.1:\d+$/, stderr);
      const below = descendants(launcher.pid!);
      try {
        launcher.kill('SIGTERM');
        await ended;
        assert.match(stderr, /"msg":"draining: not ready, no new streams or sends/, 'it drained before it exited');
        await assert.rejects(fetch(`${first.replace('listening on ', '')}/healthz`), 'nothing listens any more');
      } finally {
        // Should it fail, nothing is left running.
        for (const pid of below) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // Gone already.
          }
        }
      }
    });
  }
});
