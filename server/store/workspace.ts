import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import type { GrantResult, Member, ProvisionResult, SessionToken } from '../../src/client/types.js';
import { nowIso, randomId } from '../ids.js';
import { clock } from './clock.js';
import { type AddedColumn, type Db, immediate } from './db.js';
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
CREATE TABLE IF NOT EXISTS sms_sends (
  phone TEXT NOT NULL, sent_at INTEGER NOT NULL, workspace_id TEXT, address TEXT
);
CREATE INDEX IF NOT EXISTS sms_sends_by_phone ON sms_sends (phone, sent_at);
`;

/** Who asked for a code and for which workspace: added when the limits per address and workspace came. */
export const workspaceColumns: AddedColumn[] = ['workspace_id', 'address'].map((column) => ({
  table: 'sms_sends',
  column,
  definition: 'TEXT',
  after: `CREATE INDEX IF NOT EXISTS sms_sends_by_${column} ON sms_sends (${column}, sent_at)`,
}));

const MEMBER_LIMIT = 500;
export const SMS_SESSION_TTL_SECONDS = 86400;
const CODE_TTL_MS = 5 * 60 * 1000;
const MAX_WRONG_GUESSES = 5;
const MINUTE_MS = 60 * 1000;
const DAY_MS = 24 * 60 * MINUTE_MS;

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

/** An amount in whole cents: amounts have at most 2 decimal places (docs/protocol.md "Workspace routes"). */
const cents = (amount: number) => Math.round(amount * 100);

/**
 * Moves `amount` from the owner's wallet to the member, once per `idempotencyKey`. The lookup of the key and
 * the writes share one `BEGIN IMMEDIATE` transaction, so concurrent replays can never debit twice; a replay
 * gets the stored first result. A refusal changes nothing and does not use up the key. Sums are taken in
 * whole cents and every stored amount is a whole number of cents, so no binary fraction ever accumulates:
 * 0.1 + 0.2 is 0.3.
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
      if (prior.member_id !== memberId || cents(prior.amount) !== cents(amount)) return { refused: 'key_reused' };
      return { balance: prior.balance_after, purchase_id: prior.purchase_id, idempotent: true };
    }
    const member = memberById(db, workspaceId, memberId);
    if (!member) return { refused: 'unknown_member' };
    const { wallet } = db.prepare('SELECT wallet FROM workspaces WHERE id = ?').get(workspaceId) as { wallet: number };
    if (cents(wallet) < cents(amount)) return { refused: 'insufficient_wallet' };
    db.prepare('UPDATE workspaces SET wallet = ? WHERE id = ?').run((cents(wallet) - cents(amount)) / 100, workspaceId);
    const balance = (cents(member.balance) + cents(amount)) / 100;
    db.prepare('UPDATE members SET balance = ? WHERE user_id = ?').run(balance, memberId);
    const purchaseId = randomId('pur');
    db.prepare(
      `INSERT INTO grants (workspace_id, idempotency_key, member_id, amount, purchase_id, balance_after, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ).run(workspaceId, idempotencyKey, memberId, cents(amount) / 100, purchaseId, balance, nowIso());
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

/** Which limit refused a code: the phone's, the requesting address's, or the workspace's daily cap. */
export type SmsRefusal = 'phone' | 'address' | 'workspace';

export type CodeIssue = { code: string } | { refused: SmsRefusal; retryAfterSeconds: number };

export interface CodeRequest {
  workspaceId: string;
  phone: string;
  /** The client address asking (an IPv4 address or an IPv6 /64). */
  address: string;
  addressPerHour: number;
  workspacePerDay: number;
}

/**
 * One send limit: at most `count` codes in any `windowMs` among the sends that match `where`. A stranger's
 * requests count against a phone only for `perPhoneInterval`, so they cannot keep its owner from a fresh
 * code longer than that; the window per phone is counted per requesting address.
 */
interface SendRule {
  refusal: SmsRefusal;
  where: string;
  args: string[];
  count: number;
  windowMs: number;
}

/** How long until `rule` admits one more send (0: now). */
function waitFor(db: Db, rule: SendRule, now: number): number {
  if (rule.count <= 0) return rule.windowMs;
  const row = db
    .prepare(`SELECT sent_at FROM sms_sends WHERE ${rule.where} AND sent_at > ? ORDER BY sent_at DESC LIMIT 1 OFFSET ?`)
    .get(...rule.args, now - rule.windowMs, rule.count - 1) as { sent_at: number } | undefined;
  return row ? row.sent_at + rule.windowMs - now : 0;
}

/**
 * A new 6-digit code for `phone` in the workspace, replacing any older one, unless a send limit is reached
 * (docs/server.md "SMS sign-in"): then the limit that admits the next send last, and when it will.
 */
export function issueSmsCode(db: Db, secret: Buffer, request: CodeRequest): CodeIssue {
  const { workspaceId, phone, address } = request;
  return immediate(db, () => {
    const now = clock.now();
    db.prepare('DELETE FROM sms_sends WHERE sent_at <= ?').run(now - DAY_MS);
    const rules: SendRule[] = [
      { refusal: 'phone', where: 'phone = ?', args: [phone], count: 1, windowMs: 30 * 1000 },
      {
        refusal: 'phone',
        where: 'phone = ? AND address = ?',
        args: [phone, address],
        count: 5,
        windowMs: 10 * MINUTE_MS,
      },
      {
        refusal: 'address',
        where: 'address = ?',
        args: [address],
        count: request.addressPerHour,
        windowMs: 60 * MINUTE_MS,
      },
      {
        refusal: 'workspace',
        where: 'workspace_id = ?',
        args: [workspaceId],
        count: request.workspacePerDay,
        windowMs: DAY_MS,
      },
    ];
    let longest: { refused: SmsRefusal; wait: number } | undefined;
    for (const rule of rules) {
      const wait = waitFor(db, rule, now);
      if (wait > (longest?.wait ?? 0)) longest = { refused: rule.refusal, wait };
    }
    if (longest) return { refused: longest.refused, retryAfterSeconds: Math.ceil(longest.wait / 1000) };

    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    db.prepare(
      'INSERT OR REPLACE INTO sms_codes (workspace_id, phone, code_hash, expires_at, failures) VALUES (?, ?, ?, ?, 0)',
    ).run(workspaceId, phone, codeHash(secret, workspaceId, phone, code).toString('hex'), now + CODE_TTL_MS);
    db.prepare('INSERT INTO sms_sends (phone, sent_at, workspace_id, address) VALUES (?, ?, ?, ?)').run(
      phone,
      now,
      workspaceId,
      address,
    );
    return { code };
  });
}

/** Sets the workspace's own cap on SMS codes per 24 hours; null returns to the service's default. */
export function setSmsDailyLimit(db: Db, workspaceId: string, limit: number | null): void {
  db.prepare('UPDATE workspaces SET sms_daily_limit = ? WHERE id = ?').run(limit, workspaceId);
}

/** Codes a workspace sent in the last 24 hours (what its daily cap counts). */
export function smsSentToday(db: Db, workspaceId: string): number {
  const row = db
    .prepare('SELECT COUNT(*) AS sent FROM sms_sends WHERE workspace_id = ? AND sent_at > ?')
    .get(workspaceId, clock.now() - DAY_MS) as { sent: number };
  return row.sent;
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
