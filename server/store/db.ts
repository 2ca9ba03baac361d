import Database from 'better-sqlite3';

export type Db = Database.Database;

/**
 * A column added to a table after the table first shipped. A database an earlier version made gains it at
 * start-up (`fill` sets it on the rows already there); `after` runs either way (an index over the column).
 */
export interface AddedColumn {
  table: string;
  column: string;
  definition: string;
  fill?: string;
  after?: string;
}

/** Opens the SQLite database (a file or `:memory:`) and creates every table and column that is missing. */
export function openDb(path: string, schemas: readonly string[], added: readonly AddedColumn[] = []): Db {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  for (const sql of schemas) db.exec(sql);
  for (const column of added) addColumn(db, column);
  return db;
}

function addColumn(db: Db, { table, column, definition, fill, after }: AddedColumn): void {
  const columns = db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[];
  if (!columns.some((c) => c.name === column)) {
    db.transaction(() => {
      db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${definition}`);
      if (fill) db.exec(fill);
    })();
  }
  if (after) db.exec(after);
}

/**
 * Runs `fn` inside `BEGIN IMMEDIATE`: the write lock is taken at the start, so a check and the write
 * that depends on it can never interleave with another request's (idempotency, money).
 */
export function immediate<T>(db: Db, fn: () => T): T {
  return db.transaction(fn).immediate();
}
