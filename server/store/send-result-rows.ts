import type { Db } from './db.js';

/**
 * The first result of each send that carried an `Idempotency-Key`, per caller and key (docs/protocol.md
 * "Sending exactly once"), in `sent_messages`: a repeat of the key is answered with it instead of storing
 * the message again. `fingerprint` is a hash of the request, so a key reused for another message is told apart.
 */

export interface SendKey {
  /** The caller: a user id, or a training operator. */
  ownerId: string;
  key: string;
  fingerprint: string;
}

/**
 * Holds a send's key (Db.lock) until the transaction `tx` of the send ends: a repeat racing it on any instance
 * waits, then finds its result (priorSend).
 */
export async function holdSendKey(tx: Db, send: SendKey): Promise<void> {
  await tx.lock(`sent_messages ${send.ownerId} ${send.key}`);
}

/**
 * The stored result (JSON) of an earlier send with this key made at or after `since`; `reused` when that
 * send was another request; undefined when there was none. Call it inside the transaction of the send, which
 * holds the key (holdSendKey).
 */
export async function priorSend(
  db: Db,
  send: SendKey,
  since: number,
): Promise<{ result: string } | 'reused' | undefined> {
  const row = await db.get<{ fingerprint: string; result: string }>(
    'SELECT fingerprint, result FROM sent_messages WHERE owner_id = ? AND idempotency_key = ? AND created_at >= ?',
    send.ownerId,
    send.key,
    since,
  );
  if (!row) return undefined;
  return row.fingerprint === send.fingerprint ? { result: row.result } : 'reused';
}

/** Keeps a send's result for repeats of its key (replacing an expired one). */
export async function rememberSend(db: Db, send: SendKey, result: string, at: number): Promise<void> {
  await db.run(
    `INSERT INTO sent_messages (owner_id, idempotency_key, fingerprint, result, created_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (owner_id, idempotency_key) DO UPDATE SET
       fingerprint = excluded.fingerprint, result = excluded.result, created_at = excluded.created_at`,
    send.ownerId,
    send.key,
    send.fingerprint,
    result,
    at,
  );
}

/** Forgets the results kept from before `before`. */
export async function forgetSendsBefore(db: Db, before: number): Promise<void> {
  await db.run('DELETE FROM sent_messages WHERE created_at < ?', before);
}
