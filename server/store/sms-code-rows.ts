import type { Db } from './db.js';

/**
 * SMS sign-in codes (`sms_codes`: one live code per workspace and phone, kept as a keyed hash) and the sends
 * the send limits count (`sms_sends`). Which sends a limit counts, and whether a code matches, is
 * services/sms-codes.ts's to decide.
 */

/** Which sends are counted: each field given must match (`prefix`: the phone begins with it). */
export interface SendFilter {
  workspaceId?: string;
  phone?: string;
  address?: string;
  prefix?: string;
  /** Sent to a number that had signed in to the workspace before. */
  known?: boolean;
  /** Counted against the shares of the daily cap. */
  shared?: boolean;
}

/** A send as it is counted. */
export interface SmsSend {
  workspaceId: string;
  phone: string;
  address: string;
  sentAt: number;
  known: boolean;
  shared: boolean;
}

/** The live code of a phone: its keyed hash, when it expires (ms) and how many wrong guesses it took. */
export interface StoredSmsCode {
  code_hash: string;
  expires_at: number;
  failures: number;
}

function whereOf(filter: SendFilter, since: number): { where: string; args: unknown[] } {
  const clauses = ['sent_at > ?'];
  const args: unknown[] = [since];
  const match = (clause: string, value: unknown) => {
    clauses.push(clause);
    args.push(value);
  };
  if (filter.workspaceId !== undefined) match('workspace_id = ?', filter.workspaceId);
  if (filter.phone !== undefined) match('phone = ?', filter.phone);
  if (filter.address !== undefined) match('address = ?', filter.address);
  // The length is a number of ours, never the caller's text.
  if (filter.prefix !== undefined) match(`substr(phone, 1, ${filter.prefix.length}) = ?`, filter.prefix);
  if (filter.known !== undefined) match('known = ?', filter.known ? 1 : 0);
  if (filter.shared !== undefined) match('shared = ?', filter.shared ? 1 : 0);
  return { where: clauses.join(' AND '), args };
}

/** How many sends that match `filter` were made after `since` (ms). */
export async function countSmsSends(db: Db, filter: SendFilter, since: number): Promise<number> {
  const { where, args } = whereOf(filter, since);
  const row = await db.get<{ sent: number }>(`SELECT COUNT(*) AS sent FROM sms_sends WHERE ${where}`, ...args);
  return Number(row!.sent);
}

/** When the `n`-th newest send that matches `filter` after `since` was made (ms); none when there are fewer. */
export async function nthLatestSmsSend(
  db: Db,
  filter: SendFilter,
  since: number,
  n: number,
): Promise<number | undefined> {
  const { where, args } = whereOf(filter, since);
  const row = await db.get<{ sent_at: number }>(
    `SELECT sent_at FROM sms_sends WHERE ${where} ORDER BY sent_at DESC LIMIT 1 OFFSET ?`,
    ...args,
    n - 1,
  );
  return row?.sent_at;
}

/** Forgets the sends made up to `before` (ms): no limit counts them any more. */
export async function deleteSmsSendsBefore(db: Db, before: number): Promise<void> {
  await db.run('DELETE FROM sms_sends WHERE sent_at <= ?', before);
}

export async function insertSmsSend(db: Db, send: SmsSend): Promise<void> {
  await db.run(
    'INSERT INTO sms_sends (phone, sent_at, workspace_id, address, known, shared) VALUES (?, ?, ?, ?, ?, ?)',
    send.phone,
    send.sentAt,
    send.workspaceId,
    send.address,
    send.known ? 1 : 0,
    send.shared ? 1 : 0,
  );
}

/** Stores the phone's new code in place of any older one, with no wrong guesses. */
export async function saveSmsCode(
  db: Db,
  code: { workspaceId: string; phone: string; codeHash: string; expiresAt: number },
): Promise<void> {
  await db.run(
    `INSERT INTO sms_codes (workspace_id, phone, code_hash, expires_at, failures) VALUES (?, ?, ?, ?, 0)
     ON CONFLICT (workspace_id, phone) DO UPDATE SET
       code_hash = excluded.code_hash, expires_at = excluded.expires_at, failures = 0`,
    code.workspaceId,
    code.phone,
    code.codeHash,
    code.expiresAt,
  );
}

export function smsCodeOf(db: Db, workspaceId: string, phone: string): Promise<StoredSmsCode | undefined> {
  return db.get<StoredSmsCode>(
    'SELECT code_hash, expires_at, failures FROM sms_codes WHERE workspace_id = ? AND phone = ?',
    workspaceId,
    phone,
  );
}

export async function deleteSmsCode(db: Db, workspaceId: string, phone: string): Promise<void> {
  await db.run('DELETE FROM sms_codes WHERE workspace_id = ? AND phone = ?', workspaceId, phone);
}

export async function countWrongGuess(db: Db, workspaceId: string, phone: string): Promise<void> {
  await db.run('UPDATE sms_codes SET failures = failures + 1 WHERE workspace_id = ? AND phone = ?', workspaceId, phone);
}
