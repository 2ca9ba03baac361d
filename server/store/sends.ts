import type { Db } from './db.js';

/**
 * The first result of each send that carried an `Idempotency-Key`, per caller and key (docs/protocol.md
 * "Sending exactly once"): a repeat of the key is answered with it instead of storing the message again.
 * `fingerprint` is a hash of the request, so a key reused for another message is told apart.
 */
export const sendsSchema = `
CREATE TABLE IF NOT EXISTS sent_messages (
  owner_id TEXT NOT NULL, idempotency_key TEXT NOT NULL, fingerprint TEXT NOT NULL, result TEXT NOT NULL,
  created_at INTEGER NOT NULL, PRIMARY KEY (owner_id, idempotency_key)
);
CREATE INDEX IF NOT EXISTS sent_messages_by_age ON sent_messages (created_at);
`;

export interface SendKey {
  /** The caller: a user id, or a training operator. */
  ownerId: string;
  key: string;
  fingerprint: string;
}

/**
 * The stored result (JSON) of an earlier send with this key made at or after `since`; `reused` when that
 * send was another request; undefined when there was none. Call it inside the transaction of the send.
 */
export function priorSend(db: Db, send: SendKey, since: number): { result: string } | 'reused' | undefined {
  const row = db
    .prepare(
      'SELECT fingerprint, result FROM sent_messages WHERE owner_id = ? AND idempotency_key = ? AND created_at >= ?',
    )
    .get(send.ownerId, send.key, since) as { fingerprint: string; result: string } | undefined;
  if (!row) return undefined;
  return row.fingerprint === send.fingerprint ? { result: row.result } : 'reused';
}

/** Keeps a send's result for repeats of its key (replacing an expired one). */
export function rememberSend(db: Db, send: SendKey, result: string, at: number): void {
  db.prepare(
    `INSERT OR REPLACE INTO sent_messages (owner_id, idempotency_key, fingerprint, result, created_at)
     VALUES (?, ?, ?, ?, ?)`,
  ).run(send.ownerId, send.key, send.fingerprint, result, at);
}

/** Forgets the results kept from before `before`. */
export function forgetSendsBefore(db: Db, before: number): void {
  db.prepare('DELETE FROM sent_messages WHERE created_at < ?').run(before);
}
