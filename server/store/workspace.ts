import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import type { GrantResult, Member, ProvisionResult, SessionToken } from '../../src/client/types.js';
import { nowIso, randomId } from '../ids.js';
import { type Db, immediate } from './db.js';
import { issueSessionToken } from './identity.js';

/** Members live in identity.ts; this module adds what the administration and SMS routes keep. */
export const workspaceSchema = `
CREATE TABLE IF NOT EXISTS grants (
  workspace_id TEXT NOT NULL REFERENCES workspaces(id), idempotency_key TEXT NOT NULL,
  member_id TEXT NOT NULL REFERENCES members(user_id), amount REAL NOT NULL,
  purchase_id TEXT NOT NULL UNIQUE, balance_after REAL NOT NULL, created_at TEXT NOT NULL,
  PRIMARY KEY (workspace_id, idempotency_key)
);
CREATE TABLE IF NOT EXISTS sms_codes (
  workspace_id TEXT NOT NULL REFERENCES workspaces(id), phone TEXT NOT NULL, code_hash TEXT NOT NULL,
  expires_at INTEGER NOT NULL, failures INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (workspace_id, phone)
);
CREATE TABLE IF NOT EXISTS sms_sends (phone TEXT NOT NULL, sent_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS sms_sends_by_phone ON sms_sends (phone, sent_at);
`;

/** Time of the SMS rules (expiry, rate limit), in ms; tests move it instead of sleeping. */
export const clock = { now: (): number => Date.now() };

const MEMBER_LIMIT = 500;
export const SMS_SESSION_TTL_SECONDS = 86400;
const CODE_TTL_MS = 5 * 60 * 1000;
const MAX_WRONG_GUESSES = 5;
const SEND_WINDOW_MS = 10 * 60 * 1000;
const SENDS_PER_WINDOW = 5;
const SEND_INTERVAL_MS = 30 * 1000;

interface MemberRow extends Member {
  workspace_id: string;
}

const toMember = ({ user_id, billing_account_id, sp_user_ref, status, joined_at, balance }: MemberRow): Member => ({
  user_id,
  billing_account_id,
  sp_user_ref,
  status,
  joined_at,
  balance,
});

function memberByRef(db: Db, workspaceId: string, spUserRef: string): MemberRow | undefined {
  return db.prepare('SELECT * FROM members WHERE workspace_id = ? AND sp_user_ref = ?').get(workspaceId, spUserRef) as
    | MemberRow
    | undefined;
}

function memberById(db: Db, workspaceId: string, memberId: string): MemberRow | undefined {
  return db.prepare('SELECT * FROM members WHERE workspace_id = ? AND user_id = ?').get(workspaceId, memberId) as
    | MemberRow
    | undefined;
}

/** Idempotent by `sp_user_ref`: a known member comes back unchanged (a suspended one stays suspended). */
export function provisionMember(db: Db, workspaceId: string, spUserRef: string, displayName?: string): ProvisionResult {
  return immediate(db, () => {
    const known = memberByRef(db, workspaceId, spUserRef);
    if (known) return { member_id: known.user_id, billing_account_id: known.billing_account_id, created: false };
    const member = { member_id: randomId('u'), billing_account_id: randomId('ba'), created: true };
    db.prepare(
      `INSERT INTO members (user_id, workspace_id, sp_user_ref, display_name, billing_account_id, status, joined_at)
       VALUES (?, ?, ?, ?, ?, 'active', ?)`,
    ).run(member.member_id, workspaceId, spUserRef, displayName ?? null, member.billing_account_id, nowIso());
    return member;
  });
}

/** The first 500 members in join order; there is no pagination (spec 4.1 rule 6). */
export function listMembers(db: Db, workspaceId: string): Member[] {
  const rows = db
    .prepare('SELECT * FROM members WHERE workspace_id = ? ORDER BY rowid LIMIT ?')
    .all(workspaceId, MEMBER_LIMIT) as MemberRow[];
  return rows.map(toMember);
}

/** False for an unknown or already suspended member (not idempotent). Issued tokens stay valid (spec 5.7). */
export function suspendMember(db: Db, workspaceId: string, memberId: string): boolean {
  const { changes } = db
    .prepare("UPDATE members SET status = 'suspended' WHERE workspace_id = ? AND user_id = ? AND status != 'suspended'")
    .run(workspaceId, memberId);
  return changes === 1;
}

/** Why a grant was refused; nothing changed. */
export type GrantRefusal = 'key_reused' | 'unknown_member' | 'insufficient_wallet';

/**
 * Moves `amount` from the owner's wallet to the member, once per `idempotencyKey`. The lookup of the key and
 * the writes share one `BEGIN IMMEDIATE` transaction, so concurrent replays can never debit twice; a replay
 * gets the stored first result. A refusal changes nothing and does not use up the key.
 */
export function grantCredits(
  db: Db,
  workspaceId: string,
  memberId: string,
  amount: number,
  idempotencyKey: string,
): GrantResult | { refused: GrantRefusal } {
  return immediate(db, () => {
    const prior = db
      .prepare(
        'SELECT member_id, amount, purchase_id, balance_after FROM grants WHERE workspace_id = ? AND idempotency_key = ?',
      )
      .get(workspaceId, idempotencyKey) as
      | { member_id: string; amount: number; purchase_id: string; balance_after: number }
      | undefined;
    if (prior) {
      if (prior.member_id !== memberId || prior.amount !== amount) return { refused: 'key_reused' };
      return { balance: prior.balance_after, purchase_id: prior.purchase_id, idempotent: true };
    }
    if (!memberById(db, workspaceId, memberId)) return { refused: 'unknown_member' };
    const { wallet } = db.prepare('SELECT wallet FROM workspaces WHERE id = ?').get(workspaceId) as { wallet: number };
    if (wallet < amount) return { refused: 'insufficient_wallet' };
    db.prepare('UPDATE workspaces SET wallet = wallet - ? WHERE id = ?').run(amount, workspaceId);
    const { balance } = db
      .prepare('UPDATE members SET balance = balance + ? WHERE user_id = ? RETURNING balance')
      .get(amount, memberId) as { balance: number };
    const purchaseId = randomId('pur');
    db.prepare(
      `INSERT INTO grants (workspace_id, idempotency_key, member_id, amount, purchase_id, balance_after, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ).run(workspaceId, idempotencyKey, memberId, amount, purchaseId, balance, nowIso());
    return { balance, purchase_id: purchaseId, idempotent: false };
  });
}

/** A session token for the member provisioned as `spUserRef`; an unknown or suspended member gets none. */
export function mintSession(
  db: Db,
  workspaceId: string,
  spUserRef: string,
  ttlSeconds: number,
): SessionToken | { refused: 'unknown_member' | 'suspended' } {
  const member = memberByRef(db, workspaceId, spUserRef);
  if (!member) return { refused: 'unknown_member' };
  if (member.status === 'suspended') return { refused: 'suspended' };
  return issueSessionToken(db, member.user_id, workspaceId, ttlSeconds);
}

// ---------------------------------------------------------------- SMS sign-in codes

/** Codes are keyed by the server secret: a plain hash of a 6-digit code is reversed by trying all 10^6. */
function codeHash(secret: Buffer, workspaceId: string, phone: string, code: string): Buffer {
  return createHmac('sha256', secret).update(`${workspaceId}\n${phone}\n${code}`).digest();
}

export type CodeIssue = { code: string } | { retryAfterSeconds: number };

/**
 * A new 6-digit code for `phone` in the workspace, replacing any older one, unless the phone's send limit
 * (5 per 10 minutes, 30 seconds apart; counted over every workspace) is reached.
 */
export function issueSmsCode(db: Db, secret: Buffer, workspaceId: string, phone: string): CodeIssue {
  return immediate(db, () => {
    const now = clock.now();
    db.prepare('DELETE FROM sms_sends WHERE phone = ? AND sent_at <= ?').run(phone, now - SEND_WINDOW_MS);
    const sends = db.prepare('SELECT sent_at FROM sms_sends WHERE phone = ? ORDER BY sent_at').all(phone) as {
      sent_at: number;
    }[];
    const waits: number[] = [];
    const last = sends.at(-1);
    if (last && now - last.sent_at < SEND_INTERVAL_MS) waits.push(last.sent_at + SEND_INTERVAL_MS - now);
    // The window has room again once the oldest of the last five sends leaves it.
    const fifthLast = sends.at(-SENDS_PER_WINDOW);
    if (fifthLast) waits.push(fifthLast.sent_at + SEND_WINDOW_MS - now);
    if (waits.length > 0) return { retryAfterSeconds: Math.ceil(Math.max(...waits) / 1000) };

    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    db.prepare(
      'INSERT OR REPLACE INTO sms_codes (workspace_id, phone, code_hash, expires_at, failures) VALUES (?, ?, ?, ?, 0)',
    ).run(workspaceId, phone, codeHash(secret, workspaceId, phone, code).toString('hex'), now + CODE_TTL_MS);
    db.prepare('INSERT INTO sms_sends (phone, sent_at) VALUES (?, ?)').run(phone, now);
    return { code };
  });
}

/**
 * Checks a code and uses it up. A wrong guess is counted (and committed); the fifth kills the code.
 * Returns false for a wrong, expired, used or dead code.
 */
export function consumeSmsCode(db: Db, secret: Buffer, workspaceId: string, phone: string, code: string): boolean {
  return immediate(db, () => {
    const row = db
      .prepare('SELECT code_hash, expires_at, failures FROM sms_codes WHERE workspace_id = ? AND phone = ?')
      .get(workspaceId, phone) as { code_hash: string; expires_at: number; failures: number } | undefined;
    if (!row) return false;
    const expired = row.expires_at <= clock.now();
    const match =
      !expired && timingSafeEqual(Buffer.from(row.code_hash, 'hex'), codeHash(secret, workspaceId, phone, code));
    if (expired || match || row.failures + 1 >= MAX_WRONG_GUESSES) {
      db.prepare('DELETE FROM sms_codes WHERE workspace_id = ? AND phone = ?').run(workspaceId, phone);
    } else {
      db.prepare('UPDATE sms_codes SET failures = failures + 1 WHERE workspace_id = ? AND phone = ?').run(
        workspaceId,
        phone,
      );
    }
    return match;
  });
}
