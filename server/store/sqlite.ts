import { AsyncLocalStorage } from 'node:async_hooks';
import { EventEmitter } from 'node:events';
import Database from 'better-sqlite3';
import { ALWAYS_ALIVE, type Db, migrate, type Notice } from './db.js';
import { randomId } from './ids.js';

/**
 * The SQLite store: one better-sqlite3 connection in this process. Its calls are synchronous; the interface
 * is not, so a transaction holds a lock while its callback runs: a query from outside the transaction waits
 * until it ends (it never sees uncommitted rows) and transactions run one after another.
 */
class SqliteDb implements Db {
  readonly engine = 'sqlite';
  readonly instanceId = randomId('i');
  readonly liveness = ALWAYS_ALIVE;
  private readonly statements = new Map<string, Database.Statement>();
  private readonly channels = new EventEmitter();
  /** The transaction running now, and the ones waiting for it. */
  private current: Promise<void> | undefined;
  private queue: Promise<void> = Promise.resolve();
  /**
   * The transaction whose callback (or what it started: a timer) is running: a query there that bypasses
   * `tx` would wait for itself forever while that transaction lasts.
   */
  private readonly inside = new AsyncLocalStorage<Promise<void>>();
  /** Notifications sent inside the transaction running now, told once it commits. */
  private pending: [string, string][] = [];
  private readonly tx: Db;

  constructor(readonly raw: Database.Database) {
    this.channels.setMaxListeners(0);
    const direct = {
      get: async <T>(sql: string, ...params: unknown[]) => this.statement(sql).get(...params) as T | undefined,
      all: async <T>(sql: string, ...params: unknown[]) => this.statement(sql).all(...params) as T[],
      run: async (sql: string, ...params: unknown[]) => this.statement(sql).run(...params).changes,
    };
    this.tx = {
      ...direct,
      engine: this.engine,
      instanceId: this.instanceId,
      liveness: this.liveness,
      transaction: (fn) => fn(this.tx),
      // BEGIN IMMEDIATE holds every key: no other write transaction runs.
      lock: async () => {},
      notify: async (channel, payload) => {
        this.pending.push([channel, payload]);
      },
      notifyBy: (channel, payload, statement) => statement({ channel, payload }),
      listen: (channel, heard) => this.listen(channel, heard),
      instanceAlive: (id) => this.instanceAlive(id),
      close: () => this.close(),
    };
  }

  private statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.raw.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** Whether the caller runs inside the transaction running now. */
  private get inTransaction(): boolean {
    return this.current !== undefined && this.inside.getStore() === this.current;
  }

  private async outside(): Promise<void> {
    if (this.inTransaction) throw new Error('a query inside a transaction must use its handle');
    while (this.current) await this.current;
  }

  async get<T>(sql: string, ...params: unknown[]): Promise<T | undefined> {
    await this.outside();
    return this.statement(sql).get(...params) as T | undefined;
  }

  async all<T>(sql: string, ...params: unknown[]): Promise<T[]> {
    await this.outside();
    return this.statement(sql).all(...params) as T[];
  }

  async run(sql: string, ...params: unknown[]): Promise<number> {
    await this.outside();
    return this.statement(sql).run(...params).changes;
  }

  async transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    if (this.inTransaction) return fn(this.tx);
    const before = this.queue;
    let release!: () => void;
    const done = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.queue = before.then(() => done);
    await before;
    this.current = done;
    this.raw.exec('BEGIN IMMEDIATE');
    try {
      const result = await this.inside.run(done, () => fn(this.tx));
      this.raw.exec('COMMIT');
      for (const [channel, payload] of this.pending) this.channels.emit(channel, payload);
      return result;
    } catch (err) {
      if (this.raw.inTransaction) this.raw.exec('ROLLBACK');
      throw err;
    } finally {
      this.pending = [];
      this.current = undefined;
      release();
    }
  }

  async lock(): Promise<void> {
    throw new Error('lock() holds only inside a transaction');
  }

  /** One process, no other instance to tell: `statement` sends nothing. */
  notifyBy<T>(channel: string, payload: string, statement: (sent: Notice) => Promise<T>): Promise<T> {
    return statement({ channel, payload });
  }

  async notify(channel: string, payload: string): Promise<void> {
    await this.outside();
    this.channels.emit(channel, payload);
  }

  async listen(channel: string, heard: (payload: string) => void) {
    this.channels.on(channel, heard);
    return async () => {
      this.channels.off(channel, heard);
    };
  }

  async instanceAlive(instanceId: string): Promise<boolean> {
    return instanceId === this.instanceId;
  }

  async close(): Promise<void> {
    while (this.current) await this.current;
    this.raw.close();
  }
}

/** Opens a SQLite file (its folder must exist) or `:memory:` and brings its schema up to date. */
export async function openSqlite(path: string): Promise<Db> {
  const raw = new Database(path);
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = NORMAL');
  raw.pragma('foreign_keys = ON');
  raw.pragma('busy_timeout = 5000');
  const db = new SqliteDb(raw);
  upgradeUnversioned(raw);
  await migrate(db, async (_tx, sql) => {
    raw.exec(sql);
  });
  return db;
}

/**
 * A column that versions before versioned migrations added to a table after it first shipped; `fill` sets
 * it on the rows already there.
 */
interface AddedColumn {
  table: string;
  column: string;
  definition: string;
  fill?: string;
}

const UNVERSIONED_COLUMNS: AddedColumn[] = [
  { table: 'workspaces', column: 'sms_daily_limit', definition: 'INTEGER' },
  { table: 'sms_sends', column: 'workspace_id', definition: 'TEXT' },
  { table: 'sms_sends', column: 'address', definition: 'TEXT' },
  {
    table: 'conversations',
    column: 'bytes',
    definition: 'INTEGER NOT NULL DEFAULT 0',
    fill: `UPDATE conversations SET bytes =
      (SELECT COALESCE(SUM(length(CAST(raw AS BLOB))), 0) FROM records WHERE conversation_id = conversations.id)`,
  },
  {
    table: 'uploaded_files',
    column: 'referenced',
    definition: 'INTEGER NOT NULL DEFAULT 0',
    fill: `UPDATE uploaded_files SET referenced =
      EXISTS (SELECT 1 FROM records WHERE instr(raw, '/files/' || uploaded_files.id || '/') > 0)`,
  },
];

/**
 * A database made before migrations were versioned has the tables of migration 1 but perhaps not every
 * column that version added since: it gains them here, then migration 1 (all `IF NOT EXISTS`) finds it complete.
 */
function upgradeUnversioned(raw: Database.Database): void {
  const has = (table: string) =>
    !!raw.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table);
  if (has('schema_migrations') || !has('workspaces')) return;
  for (const { table, column, definition, fill } of UNVERSIONED_COLUMNS) {
    const columns = raw.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[];
    if (!has(table) || columns.some((c) => c.name === column)) continue;
    raw.transaction(() => {
      raw.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${definition}`);
      if (fill) raw.exec(fill);
    })();
  }
}
