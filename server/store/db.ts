import Database from 'better-sqlite3';

export type Db = Database.Database;

/** Opens the SQLite database (a file or `:memory:`) and creates every table that is missing. */
export function openDb(path: string, schemas: readonly string[]): Db {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  for (const sql of schemas) db.exec(sql);
  return db;
}

/**
 * Runs `fn` inside `BEGIN IMMEDIATE`: the write lock is taken at the start, so a check and the write
 * that depends on it can never interleave with another request's (idempotency, money).
 */
export function immediate<T>(db: Db, fn: () => T): T {
  return db.transaction(fn).immediate();
}
