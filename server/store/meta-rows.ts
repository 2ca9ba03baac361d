import type { Db } from './db.js';

/** Values the service keeps about itself (its secret, the demo workspace's key), in `meta`. */

export async function metaValue(db: Db, key: string): Promise<string | undefined> {
  return (await db.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', key))?.value;
}

/** Keeps `value` unless the key already has one (another instance set it first); returns the value kept. */
export async function setMetaValue(db: Db, key: string, value: string): Promise<string> {
  await db.run('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING', key, value);
  return (await metaValue(db, key)) ?? value;
}
