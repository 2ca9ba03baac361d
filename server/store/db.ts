import { readdirSync, readFileSync } from 'node:fs';

/**
 * The database every store module takes: SQLite (a file or `:memory:`, the default) or PostgreSQL (a
 * `postgres://` URL), behind one asynchronous interface. The store modules write one SQL text for both:
 * `?` placeholders, `ON CONFLICT … DO UPDATE`, `RETURNING`, `CAST(? AS TEXT)` where a parameter's type
 * must be known, and no JSON functions (record-rows.ts reads JSON in JavaScript).
 */
export interface Db {
  readonly engine: 'sqlite' | 'postgres';
  /** The first row, or undefined. */
  get<T>(sql: string, ...params: unknown[]): Promise<T | undefined>;
  all<T>(sql: string, ...params: unknown[]): Promise<T[]>;
  /** Runs a statement that returns no rows; resolves to the number of rows it changed. */
  run(sql: string, ...params: unknown[]): Promise<number>;
  /**
   * Runs `fn` in one transaction, whole or not at all. Transactions of different conversations and keys run at
   * once on PostgreSQL (READ COMMITTED, on any number of instances): a check and the write that depends on it
   * hold the lock that covers both, `lock(key)` or the conversation's row (`lockConversation`), or rest on a
   * UNIQUE constraint. SQLite runs one write transaction at a time (`BEGIN IMMEDIATE`), which holds every lock.
   * Every query of the transaction goes through `tx`; a transaction inside it joins it.
   */
  transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
  /**
   * Inside a transaction: waits until no other transaction holds `key`, and holds it until this one ends
   * (PostgreSQL: a transaction-scoped advisory lock on a hash of the key, so two keys may rarely share one;
   * SQLite: held already). Outside a transaction it throws: the lock would end with the statement.
   */
  lock(key: string): Promise<void>;
  /**
   * Tells every listener of `channel` on every instance, once the transaction it is called in has committed
   * (at once outside one). Listeners re-read the database: a lost notification must lose nothing.
   */
  notify(channel: string, payload: string): Promise<void>;
  /**
   * Runs `statement`, which tells the other instances' listeners of `channel` what `notify(channel, payload)`
   * would, by itself: `sent` is what it sends (PostgreSQL: `pg_notify(sent.channel, sent.payload)` in the same
   * statement, so the notification costs no round trip of its own; SQLite has no other instance). This
   * instance's listeners are not told: the caller hands them what it wrote once that has committed.
   */
  notifyBy<T>(channel: string, payload: string, statement: (sent: Notice) => Promise<T>): Promise<T>;
  /** Hears `channel`; resolves once listening, to the function that stops it. */
  listen(channel: string, heard: (payload: string) => void): Promise<() => Promise<void>>;
  /**
   * Whether the instance `instanceId` still runs: SQLite serves one process, so only this one; PostgreSQL
   * asks whether that instance still holds its session lock (a killed instance's connection drops it).
   */
  instanceAlive(instanceId: string): Promise<boolean>;
  /** This process's instance id (see `instanceAlive`). */
  readonly instanceId: string;
  /** Whether the other instances take this one for alive (always, on SQLite). */
  readonly liveness: Liveness;
  /** The connection pool's use (PostgreSQL; SQLite has one connection and no pool). */
  readonly pool?: PoolUse;
  close(): Promise<void>;
}

/** A notification as a statement sends it (`Db.notifyBy`). */
export interface Notice {
  channel: string;
  payload: string;
}

/**
 * The database could not be reached: the connection was refused, dropped or timed out, or the server is
 * starting, stopping or out of connections. Another try may succeed once it is back (HTTP answers 503 with
 * `Retry-After`, server/routes/refusal-answers.ts).
 */
export class DatabaseUnavailable extends Error {
  override name = 'DatabaseUnavailable';
}

/**
 * A statement PostgreSQL rejected (a fault of the service, answered 500, not a refusal of a request), told by
 * what an operator needs: its SQLSTATE `code` and the constraint, table and column concerned. The row's values that pg's error carries (`detail`, `where`, the parameters
 * quoted in a message) are left out, so no log line holds them.
 */
export class StatementRejected extends Error {
  override name = 'StatementRejected';
  constructor(
    readonly code: string,
    readonly constraint?: string,
    readonly table?: string,
    readonly column?: string,
  ) {
    const about = [constraint && `constraint ${constraint}`, table && `table ${table}`, column && `column ${column}`];
    super(
      `PostgreSQL refused a statement: SQLSTATE ${code}${about.some(Boolean) ? ` (${about.filter(Boolean).join(', ')})` : ''}`,
    );
  }
}

/** A connection pool's connections: serving a query or transaction, idle, and queries waiting for one. */
export interface PoolUse {
  inUse: number;
  idle: number;
  waiting: number;
}

/**
 * PostgreSQL: an instance is alive to the others while its own connection holds its lock. That connection
 * can drop while the process goes on; it is then not alive until it connects again, as a new instance.
 */
export interface Liveness {
  readonly alive: boolean;
  watch(watcher: LivenessWatcher): void;
}

export interface LivenessWatcher {
  /** This instance stopped being alive to the others, which now end its running turns. */
  lost?(err: Error): void;
  /** It is alive again as instance `instanceId`; notifications sent while it was not were lost. */
  back?(instanceId: string): void;
}

/** SQLite serves one process, alive as long as it runs. */
export const ALWAYS_ALIVE: Liveness = { alive: true, watch() {} };

/** Whether `location` (`--db`) names a PostgreSQL database. */
export const isPostgresUrl = (location: string) => /^postgres(ql)?:\/\//.test(location);

/**
 * Opens the database `location` names and applies the migrations it has not had yet: `SVC_DATABASE_URL`
 * or `--db` with a `postgres://` URL for PostgreSQL, otherwise a SQLite file or `:memory:`.
 */
export async function openDb(location: string): Promise<Db> {
  if (isPostgresUrl(location)) {
    const { openPostgres } = await import('./postgres.js');
    return openPostgres(location);
  }
  const { openSqlite } = await import('./sqlite.js').catch((err: NodeJS.ErrnoException) => {
    // better-sqlite3 is an optional peer (a native module): a PostgreSQL-only install has none to compile.
    if (err.code !== 'ERR_MODULE_NOT_FOUND' || !err.message.includes("'better-sqlite3'")) throw err;
    throw new Error(
      `--db ${location} is SQLite, which needs better-sqlite3: npm install better-sqlite3 (or give --db postgres://…)`,
    );
  });
  return openSqlite(location);
}

/** A versioned schema change: `migrations/NNNN-name.sql`, applied once, in order. */
export interface Migration {
  version: number;
  name: string;
  /** The SQL for this engine (the placeholders replaced). */
  sql: string;
}

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);

/** What the placeholders of a migration file stand for, per engine. */
const PLACEHOLDERS: Record<Db['engine'], Record<string, string>> = {
  sqlite: { id: 'INTEGER PRIMARY KEY AUTOINCREMENT', blob: 'BLOB', rowid: '', instr: 'instr' },
  postgres: {
    id: 'BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY',
    blob: 'BYTEA',
    rowid: ', rowid BIGINT GENERATED ALWAYS AS IDENTITY',
    // Where a text first holds another, from 1 (0: nowhere).
    instr: 'strpos',
  },
};

/**
 * Every migration file for `engine`, oldest first, written for it: `NNNN-name.sql` serves both engines,
 * `NNNN-name.postgres.sql` (what only PostgreSQL has, a PL/pgSQL function) one of them.
 */
export function migrations(engine: Db['engine']): Migration[] {
  return readdirSync(MIGRATIONS_DIR)
    .flatMap((file) => {
      const match = /^(\d{4})-([a-z0-9-]+)(?:\.(sqlite|postgres))?\.sql$/.exec(file);
      if (!match || (match[3] !== undefined && match[3] !== engine)) return [];
      const text = readFileSync(new URL(file, MIGRATIONS_DIR), 'utf8');
      const sql = text.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
        const value = PLACEHOLDERS[engine][name];
        if (value === undefined) throw new Error(`${file}: unknown placeholder {{${name}}}`);
        return value;
      });
      return [{ version: Number(match[1]), name: match[2], sql }];
    })
    .sort((a, b) => a.version - b.version);
}

/**
 * Whether `db` has had every migration this version of the service knows (an instance started on a database
 * that was replaced or restored from before a migration has not).
 */
export async function schemaCurrent(db: Db): Promise<boolean> {
  const applied = new Set(
    (await db.all<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => r.version),
  );
  return migrations(db.engine).every((m) => applied.has(m.version));
}

/** The table that records which migrations a database has had. */
export const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL
)`;

/**
 * Applies the migrations `db` has not had, each in its transaction with its version. `exec` runs a whole
 * file (several statements). The caller holds whatever keeps two instances from migrating at once.
 */
export async function migrate(db: Db, exec: (tx: Db, sql: string) => Promise<void>): Promise<number[]> {
  await db.run(MIGRATIONS_TABLE);
  const done = new Set(
    (await db.all<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => r.version),
  );
  const applied: number[] = [];
  for (const migration of migrations(db.engine)) {
    if (done.has(migration.version)) continue;
    await db.transaction(async (tx) => {
      await exec(tx, migration.sql);
      await tx.run(
        'INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)',
        migration.version,
        migration.name,
        new Date().toISOString(),
      );
    });
    applied.push(migration.version);
  }
  return applied;
}
