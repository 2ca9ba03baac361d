import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.mjs';

const DOC = fileURLToPath(new URL('../../docs/server.md', import.meta.url));
const NGINX = process.env.SVC_NGINX ?? '/usr/sbin/nginx';

/** The one `nginx` block of docs/server.md: the configuration an operator copies. */
export function documentedConfig(): string {
  const blocks = [...readFileSync(DOC, 'utf8').matchAll(/^```nginx\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  if (blocks.length !== 1) throw new Error(`docs/server.md should hold one nginx block, not ${blocks.length}`);
  return blocks[0]!;
}

const UPSTREAM_SERVER = /^(\s*server )\S+(;)$/gm;
/** The worker limits the block's first lines give nginx.conf (a conf.d file cannot set them). */
const WORKER_FILES = /^# .*\bworker_rlimit_nofile (\d+);/m;
const WORKER_CONNECTIONS = /^# .*\bworker_connections (\d+);/m;

/** The worker limits docs/server.md gives nginx.conf, as its lines. */
export function documentedWorkerLimits(): { files: string; events: string } {
  const documented = documentedConfig();
  const [files, connections] = [WORKER_FILES.exec(documented)?.[1], WORKER_CONNECTIONS.exec(documented)?.[1]];
  if (!files || !connections)
    throw new Error('the documented nginx block should name worker_rlimit_nofile and worker_connections');
  return { files: `worker_rlimit_nofile ${files};`, events: `events { worker_connections ${connections}; }` };
}
const LISTEN = /^(\s*listen )\S+(;)$/m;
const WIDGET_ALIAS = /^(\s*alias )\S+(;)$/m;
/** The widget's built folder, which the documented `location /dist/` serves. */
const WIDGET_DIR = fileURLToPath(new URL('../../dist/', import.meta.url));

/**
 * The documented configuration with only its addresses changed: each upstream `server` line names one of
 * `instances` (`127.0.0.1:PORT`, as many as the document lists), `listen` the test's port, and the widget's
 * `alias` this repository's built `dist/`. Throws when
 * the document's lines are not the ones this changes, so what runs is what operators read.
 */
export function testConfig(instances: string[], port: number): string {
  const documented = documentedConfig();
  const servers = documented.match(UPSTREAM_SERVER) ?? [];
  if (servers.length !== instances.length || !LISTEN.test(documented) || !WIDGET_ALIAS.test(documented)) {
    throw new Error(
      `the documented nginx block should list ${instances.length} upstream servers, one listen line and the widget's alias`,
    );
  }
  let i = 0;
  return documented
    .replace(UPSTREAM_SERVER, (_, head: string, tail: string) => `${head}${instances[i++]}${tail}`)
    .replace(LISTEN, (_, head: string, tail: string) => `${head}127.0.0.1:${port}${tail}`)
    .replace(WIDGET_ALIAS, (_, head: string, tail: string) => `${head}${WIDGET_DIR}${tail}`);
}

export interface TestNginx {
  /** `http://127.0.0.1:PORT`: the proxy in front of the instances. */
  url: string;
  stop(): Promise<void>;
}

/**
 * Debian's nginx (`.ci/run` installs it) in front of `instances`, with the configuration of docs/server.md
 * (testConfig) inside a main configuration of its own: a temporary prefix for its pid, logs and buffers, no
 * daemon, nothing of the machine's nginx configuration read or touched.
 */
export async function startNginx(instances: string[]): Promise<TestNginx> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-nginx-'));
  // As root nginx's workers run as nobody: they need to reach the buffer folders below this one.
  chmodSync(dir, 0o755);
  const port = await freePort();
  writeFileSync(join(dir, 'svc.conf'), testConfig(instances, port));
  const limits = documentedWorkerLimits();
  // Debian's module files name their modules below the prefix (`modules/…`), where its own prefix has this link.
  symlinkSync('/usr/lib/nginx/modules', join(dir, 'modules'));
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `${kind}_temp_path ${dir}/${kind};`);
  writeFileSync(
    join(dir, 'nginx.conf'),
    [
      // The modules Debian's packages enable (the brotli filter), as its /etc/nginx/nginx.conf loads them.
      'include /etc/nginx/modules-enabled/*.conf;',
      'daemon off;',
      'worker_processes 1;',
      `pid ${dir}/nginx.pid;`,
      `error_log ${dir}/error.log warn;`,
      // As the document raises them (the test's own limit on open files may stay lower: nginx says so and goes on).
      limits.files,
      limits.events,
      `http { access_log off; ${temp.join(' ')} include ${dir}/svc.conf; }`,
    ].join('\n'),
  );
  const args = ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')];
  try {
    execFileSync(NGINX, [...args, '-t'], { stdio: 'pipe' });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    const output = (err as { stderr?: Buffer }).stderr?.toString() ?? (err as Error).message;
    throw new Error(`nginx refused the documented configuration (Debian: apt-get install nginx): ${output}`);
  }
  const child = spawn(NGINX, args, { stdio: 'ignore' });
  await listening(child, port, dir);
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null) {
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Resolves once nginx accepts connections on `port`; rejects with its error log if it exits first. */
async function listening(child: ChildProcess, port: number, dir: string): Promise<void> {
  for (let attempt = 0; child.exitCode === null; attempt++) {
    const socket = connect(port, '127.0.0.1');
    const up = await new Promise<boolean>((resolve) => {
      socket.once('connect', () => resolve(true)).once('error', () => resolve(false));
    });
    socket.destroy();
    if (up) return;
    await sleep(Math.min(10 * 2 ** attempt, 500));
  }
  throw new Error(`nginx exited: ${readFileSync(join(dir, 'error.log'), 'utf8')}`);
}
