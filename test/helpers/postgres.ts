import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

/** How to run a server binary: as `postgres` when this process is root. */
function runner(bin: string, dir: string): (tool: string, args: string[]) => void {
  if (process.getuid?.() !== 0) {
    return (tool, args) => execFileSync(join(bin, tool), args, { stdio: 'pipe' });
  }
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  chownSync(dir, uid, gid);
  return (tool, args) => execFileSync('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args], { stdio: 'pipe' });
}

/** Settings of a test cluster: nothing outlives the test process, so nothing is flushed to disk. */
const NOT_DURABLE = ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off'];

let started: Promise<TestPostgres> | undefined;

/** The cluster of this test process, started on first use. */
export function testPostgres(): Promise<TestPostgres> {
  started ??= startPostgres(NOT_DURABLE);
  return started;
}

/** A cluster of its own with `settings` (`name=value`, as `postgres -c` takes them). */
export async function startPostgres(settings: string[]): Promise<TestPostgres> {
  const bin = binaries();
  const dir = mkdtempSync(join(tmpdir(), 'svc-pg-'));
  const run = runner(bin, dir);
  const data = join(dir, 'data');
  try {
    run('initdb', ['-D', data, '-U', 'svc', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions']);
    const options = [
      `-k ${dir}`,
      "-c listen_addresses=''",
      '-c max_connections=300',
      ...settings.map((s) => `-c ${s}`),
    ].join(' ');
    run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    const output = (err as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`PostgreSQL did not start: ${(err as Error).message}\n${output}`);
  }
  const url = (database: string) => `postgres://svc@localhost/${database}?host=${encodeURIComponent(dir)}`;
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
  };
}
