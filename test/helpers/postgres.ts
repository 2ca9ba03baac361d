import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

/**
 * A real PostgreSQL for tests: Debian's `postgresql` binaries (`.ci/run` installs them), a cluster made by
 * `initdb` in a temporary folder and reached over a unix socket there, so no port is taken. PostgreSQL
 * refuses to run as root: as root, the server runs as the `postgres` user the package creates. Stopped when
 * the process exits.
 */
export interface TestPostgres {
  /** A new empty database; resolves to its URL. */
  createDatabase(): Promise<string>;
  /** The server's first process (its connections' processes are its children). */
  postmaster(): number;
  stop(): void;
  /**
   * Fault injection for a cluster of its own (`startPostgres`): `pg_ctl stop` in `mode` (`fast` ends every
   * connection and shuts down cleanly, `immediate` as if the server died), then `start` again with the same
   * settings, or `restart` both at once.
   */
  halt(mode: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  restart(): Promise<void>;
  /** `pg_terminate_backend` of every other connection to `database` (an administrator cutting them). */
  terminateConnections(database: string): Promise<number>;
}

/** The newest installed server's binaries (or `SVC_PG_BIN`). */
function binaries(): string {
  const fromEnv = process.env.SVC_PG_BIN;
  if (fromEnv) return fromEnv;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!versions.length) {
    throw new Error(
      'PostgreSQL is not installed: the tests need its server binaries (Debian: apt-get install postgresql; ' +
        'or set SVC_PG_BIN to the folder holding initdb and pg_ctl)',
    );
  }
  return join(root, versions[0]!, 'bin');
}

/** A server binary's command line: as `postgres` when this process is root. */
function runner(bin: string, dir: string): (tool: string, args: string[]) => [string, string[]] {
  if (process.getuid?.() !== 0) return (tool, args) => [join(bin, tool), args];
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  chownSync(dir, uid, gid);
  return (tool, args) => ['runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]];
}

/** Settings of a test cluster: nothing outlives the test process, so nothing is flushed to disk. */
const NOT_DURABLE = ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off'];

let started: Promise<TestPostgres> | undefined;

/** The cluster of this test process, started on first use. */
export function testPostgres(): Promise<TestPostgres> {
  started ??= startPostgres(NOT_DURABLE);
  return started;
}

/** A cluster of this test's own, which it may stop and start (TestPostgres.halt) without harming the others. */
export const ownPostgres = (): Promise<TestPostgres> => startPostgres(NOT_DURABLE);

/** A cluster of its own with `settings` (`name=value`, as `postgres -c` takes them). */
export async function startPostgres(settings: string[]): Promise<TestPostgres> {
  const bin = binaries();
  const dir = mkdtempSync(join(tmpdir(), 'svc-pg-'));
  const command = runner(bin, dir);
  const run = (tool: string, args: string[]) => execFileSync(...command(tool, args), { stdio: 'pipe' });
  /** The same without holding this process meanwhile: what the test does goes on while the server stops or starts. */
  const runAsync = (tool: string, args: string[]) => promisify(execFile)(...command(tool, args)).then(() => undefined);
  const data = join(dir, 'data');
  const options = [
    `-k ${dir}`,
    "-c listen_addresses=''",
    '-c max_connections=300',
    ...settings.map((s) => `-c ${s}`),
  ].join(' ');
  try {
    run('initdb', ['-D', data, '-U', 'svc', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions']);
    run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    const output = (err as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`PostgreSQL did not start: ${(err as Error).message}\n${output}`);
  }
  const url = (database: string) => `postgres://svc@localhost/${database}?host=${encodeURIComponent(dir)}`;
  const pgCtl = (args: string[]) => runAsync('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', ...args]);
  const stop = () => {
    process.off('exit', stop);
    spawnSync(process.getuid?.() === 0 ? 'runuser' : join(bin, 'pg_ctl'), [
      ...(process.getuid?.() === 0 ? ['-u', 'postgres', '--', join(bin, 'pg_ctl')] : []),
      ...['-D', data, '-m', 'immediate', '-w', 'stop'],
    ]);
    rmSync(dir, { recursive: true, force: true });
  };
  process.on('exit', stop);
  let databases = 0;
  return {
    async createDatabase() {
      const name = `svc_${process.pid}_${++databases}`;
      const admin = new pg.Client({ connectionString: url('postgres') });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${name}`);
      } finally {
        await admin.end();
      }
      return url(name);
    },
    postmaster: () => Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]),
    stop,
    halt: (mode) => pgCtl(['-m', mode, 'stop']),
    start: () => pgCtl(['-o', options, 'start']),
    restart: () => pgCtl(['-m', 'fast', '-o', options, 'restart']),
    async terminateConnections(database) {
      const admin = new pg.Client({ connectionString: url('postgres') });
      await admin.connect();
      try {
        const { rows } = await admin.query(
          'SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [database],
        );
        return rows.filter((row) => row.ended).length;
      } finally {
        await admin.end();
      }
    },
  };
}
