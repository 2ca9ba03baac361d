import pg from 'pg';
import {
  DatabaseUnavailable,
  type Db,
  type Liveness,
  migrate,
  type Notice,
  type PoolUse,
  StatementRejected,
} from './db.js';
import { INSTANCE_LOCKS, InstanceConnection } from './instance-connection.js';

/**
 * Advisory lock keys (numbers the service owns): the class of the keys transactions lock (`Db.lock`, the
 * second number a hash of the key), and migrating at start.
 */
const KEY_LOCKS = 7_190_001;
const MIGRATE_LOCK = 7_190_002;
/** How long a request waits for a new connection to the database before it is answered 503. */
const CONNECT_MS = 5000;

/**
 * A connection that gives up connecting after CONNECT_MS: a database host that does not answer fails a request
 * (503) rather than holding it for the minutes TCP tries. Set on the connection, not the pool, whose same option
 * would also bound the wait for a free connection, and refuse requests that only queue behind a busy pool.
 */
class BoundedClient extends pg.Client {
  constructor(config?: pg.ClientConfig) {
    super({ ...config, connectionTimeoutMillis: CONNECT_MS });
  }
}

/** BIGINT (counts, ids, times in ms) and NUMERIC come back as numbers: every value the store keeps fits in 2^53. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC) return Number;
    return pg.types.getTypeParser(oid, format);
  }) as typeof pg.types.getTypeParser,
};

/**
 * The statements of the store are prepared, a name for each text: PostgreSQL parses and plans one once a
 * connection, not once a call (a fifth of the database's time a record, docs/performance.md §6). The texts are
 * the store's own, a few hundred, but a list of ids makes one for each length: past this many, a text goes unnamed.
 */
const MAX_PREPARED = 500;
const statements = new Map<string, { name?: string; text: string }>();
let named = 0;

/** The statement of `sql`: its `?` placeholders as PostgreSQL's `$1, $2…` (none of the store's is in a string). */
function statement(sql: string): { name?: string; text: string } {
  let found = statements.get(sql);
  if (found === undefined) {
    let n = 0;
    const text = sql.replace(/\?/g, () => `$${++n}`);
    if (statements.size >= MAX_PREPARED) return { text };
    found = { name: `svc_${++named}`, text };
    statements.set(sql, found);
  }
  return found;
}

type Queryable = pg.Pool | pg.PoolClient;

/**
 * PostgreSQL text cannot hold U+0000 (SQLite's can): a string parameter carries U+FFFD in its place, the same
 * way in every statement, so what is stored with one is found with it again (docs/server.md).
 */
const storable = (value: unknown): unknown =>
  typeof value === 'string' && value.includes('\0')
    ? value.replaceAll('\0', '\uFFFD')
    : Array.isArray(value)
      ? value.map(storable)
      : value;

/**
 * SQLSTATEs that say the database went away rather than refused the statement: class 08 (connection), the
 * server shutting down or starting (57P01–57P03), too many connections (53300).
 */
const GONE_CODES = /^(08...|57P0[123]|53300)$/;
/** Errors of the socket under a connection. */
const SOCKET_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOENT',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
]);
/** What pg and its pool say of a connection that ended or could not be made in time. */
const CONNECTION_LOST = /^Connection terminated|not queryable|timeout exceeded when trying to connect/;

/**
 * An error of pg as the store throws it: DatabaseUnavailable when the database went away (the caller may try
 * again), StatementRejected (code and constraint, none of the row's values) when it refused the statement.
 */
export function storeError(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  const code = (err as { code?: unknown }).code;
  if (err instanceof pg.DatabaseError) {
    if (typeof code === 'string' && GONE_CODES.test(code)) {
      return new DatabaseUnavailable(`${err.message} (SQLSTATE ${code})`);
    }
    // A RAISE of the service's own functions (svc_append_records): their words, which hold no row's values.
    if (err.routine === 'exec_stmt_raise') return new Error(err.message);
    return new StatementRejected(err.code ?? 'unknown', err.constraint, err.table, err.column);
  }
  if ((typeof code === 'string' && SOCKET_ERRORS.has(code)) || CONNECTION_LOST.test(err.message)) {
    return new DatabaseUnavailable(err.message);
  }
  return err;
}

/** A query's promise, its failure as the store throws it. */
const mapped = <T>(promise: Promise<T>): Promise<T> =>
  promise.catch((err: unknown) => {
    throw storeError(err);
  });

/**
 * What PostgreSQL answers a prepared statement whose columns changed since it was prepared (`SELECT *` of a
 * table another instance's migration added to): it is prepared again, under a new name on every connection.
 */
const CHANGED_COLUMNS = '0A000';

/** Without parameters a text goes by the simple protocol, which also runs several statements (a migration). */
async function query(on: Queryable, sql: string, params: unknown[]) {
  if (!params.length) return mapped(on.query(sql));
  const values = params.map(storable);
  const prepared = statement(sql);
  try {
    return await on.query({ ...prepared, values });
  } catch (err) {
    if (!prepared.name || (err as { code?: unknown }).code !== CHANGED_COLUMNS) throw storeError(err);
    statements.delete(sql);
    return mapped(on.query({ ...statement(sql), values }));
  }
}

const queries = (on: Queryable) => ({
  get: async <T>(sql: string, ...params: unknown[]) => (await query(on, sql, params)).rows[0] as T | undefined,
  all: async <T>(sql: string, ...params: unknown[]) => (await query(on, sql, params)).rows as T[],
  run: async (sql: string, ...params: unknown[]) => (await query(on, sql, params)).rowCount ?? 0,
});

/**
 * The PostgreSQL store: a pool of connections shared by this instance's requests, and one connection of its
 * own that LISTENs and holds this instance's liveness lock (`InstanceConnection`).
 */
class PostgresDb implements Db {
  readonly engine = 'postgres';
  private readonly queries: ReturnType<typeof queries>;

  constructor(
    private readonly connections: pg.Pool,
    private readonly connection: InstanceConnection,
  ) {
    this.queries = queries(connections);
  }

  get instanceId(): string {
    return this.connection.id;
  }

  get liveness(): Liveness {
    return this.connection;
  }

  get pool(): PoolUse {
    const { totalCount, idleCount, waitingCount } = this.connections;
    return { inUse: totalCount - idleCount, idle: idleCount, waiting: waitingCount };
  }

  /** After close, every call fails as it does on SQLite. */
  private open(): void {
    if (this.closed) throw new Error('The database connection is not open');
  }

  async get<T>(sql: string, ...params: unknown[]) {
    this.open();
    return this.queries.get<T>(sql, ...params);
  }

  async all<T>(sql: string, ...params: unknown[]) {
    this.open();
    return this.queries.all<T>(sql, ...params);
  }

  async run(sql: string, ...params: unknown[]) {
    this.open();
    return this.queries.run(sql, ...params);
  }

  /**
   * Runs `use` on a connection of the pool. A connection lent out has no listener of the pool's (pg's pool
   * listens only to idle ones), and an `error` without a listener ends the process: the database restarting or
   * an administrator's `pg_terminate_backend` did that to every instance. So it gets one while lent, and a
   * connection that failed goes back to be thrown away.
   */
  private async lent<T>(use: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await mapped(this.connections.connect());
    let failed: Error | undefined;
    const onError = (err: Error) => {
      failed = err;
    };
    client.on('error', onError);
    try {
      return await use(client);
    } finally {
      client.off('error', onError);
      client.release(failed);
    }
  }

  async transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    this.open();
    return this.lent((client) => this.transactionOn(client, fn));
  }

  private async transactionOn<T>(client: pg.PoolClient, fn: (tx: Db) => Promise<T>): Promise<T> {
    const told: [string, string][] = [];
    const tx: Db = {
      ...queries(client),
      engine: this.engine,
      instanceId: this.instanceId,
      liveness: this.liveness,
      transaction: (inner) => inner(tx),
      lock: async (key) => {
        await query(client, 'SELECT pg_advisory_xact_lock(?, hashtext(?))', [KEY_LOCKS, key]);
      },
      notify: async (channel, payload) => {
        told.push([channel, payload]);
        await mapped(client.query('SELECT pg_notify($1, $2)', [channel, `${this.instanceId} ${payload}`]));
      },
      notifyBy: (channel, payload, statement) => statement(this.sent(channel, payload)),
      listen: (channel, heard) => this.listen(channel, heard),
      instanceAlive: (id) => this.instanceAlive(id),
      close: () => this.close(),
    };
    try {
      await mapped(client.query('BEGIN'));
      const result = await fn(tx);
      await mapped(client.query('COMMIT'));
      for (const [channel, payload] of told) this.connection.tell(channel, payload);
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    }
  }

  async lock(): Promise<void> {
    throw new Error('lock() holds only inside a transaction');
  }

  /** What a statement sends to notify `channel` (other instances skip their own: `InstanceConnection`). */
  private sent(channel: string, payload: string): Notice {
    return { channel, payload: `${this.instanceId} ${payload}` };
  }

  async notifyBy<T>(channel: string, payload: string, statement: (sent: Notice) => Promise<T>): Promise<T> {
    this.open();
    return statement(this.sent(channel, payload));
  }

  async notify(channel: string, payload: string): Promise<void> {
    await mapped(this.connections.query('SELECT pg_notify($1, $2)', [channel, `${this.instanceId} ${payload}`]));
    this.connection.tell(channel, payload);
  }

  listen(channel: string, heard: (payload: string) => void) {
    return this.connection.listen(channel, heard);
  }

  async instanceAlive(instanceId: string): Promise<boolean> {
    if (instanceId === this.instanceId) return true;
    // Lock and unlock on one connection: a session lock belongs to the connection that took it.
    return this.lent(async (client) => {
      const { rows } = await mapped(
        client.query('SELECT pg_try_advisory_lock($1, hashtext($2)) AS free', [INSTANCE_LOCKS, instanceId]),
      );
      if (!rows[0].free) return true;
      await mapped(client.query('SELECT pg_advisory_unlock($1, hashtext($2))', [INSTANCE_LOCKS, instanceId]));
      return false;
    });
  }

  private closed: Promise<void> | undefined;

  close(): Promise<void> {
    this.closed ??= this.connection.close().then(() => this.connections.end());
    return this.closed;
  }
}

/** Connects to `url` and applies the migrations it has not had (one instance at a time). */
export async function openPostgres(url: string): Promise<Db> {
  const pool = new pg.Pool({ connectionString: url, types, max: 10, Client: BoundedClient });
  // An idle client that loses its connection (the database restarted) is dropped, not thrown in the process.
  pool.on('error', () => {});
  let connection: InstanceConnection;
  try {
    connection = await InstanceConnection.open({ connectionString: url, types });
  } catch (err) {
    await pool.end();
    throw err;
  }
  const db = new PostgresDb(pool, connection);
  try {
    await connection.query('SELECT pg_advisory_lock($1)', [MIGRATE_LOCK]);
    try {
      await migrate(db, async (tx, sql) => {
        await tx.run(sql);
      });
    } finally {
      await connection.query('SELECT pg_advisory_unlock($1)', [MIGRATE_LOCK]);
    }
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}
