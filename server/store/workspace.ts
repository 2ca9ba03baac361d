import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import type { GrantResult, Member, ProvisionResult, SessionToken } from '@svc/agent-sdk/protocol';
import { clock } from './clock.js';
import type { Db } from './db.js';
import { issueSessionToken } from './identity.js';
import { nowIso, randomId } from './ids.js';

/**
 * Members live in identity.ts; this module adds what the administration and SMS routes keep (`grants`,
 * `sms_codes`, `sms_sends`).
 */

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

function memberByRef(db: Db, workspaceId: string, spUserRef: string): Promise<MemberRow | undefined> {
  return db.get<MemberRow>('SELECT * FROM members WHERE workspace_id = ? AND sp_user_ref = ?', workspaceId, spUserRef);
}

function memberById(db: Db, workspaceId: string, memberId: string): Promise<MemberRow | undefined> {
  return db.get<MemberRow>('SELECT * FROM members WHERE workspace_id = ? AND user_id = ?', workspaceId, memberId);
}

/** Idempotent by `sp_user_ref`: a known member comes back unchanged (a suspended one stays suspended). */
export function provisionMember(
  db: Db,
  workspaceId: string,
  spUserRef: string,
  displayName?: string,
): Promise<ProvisionResult> {
  return db.transaction(async (tx) => {
    const known = await memberByRef(tx, workspaceId, spUserRef);
    if (known) return { member_id: known.user_id, billing_account_id: known.billing_account_id, created: false };
    const member = { member_id: randomId('u'), billing_account_id: randomId('ba'), created: true };
    await tx.run(
      `INSERT INTO members (user_id, workspace_id, sp_user_ref, display_name, billing_account_id, status, joined_at)
       VALUES (?, ?, ?, ?, ?, 'active', ?)`,
      member.member_id,
      workspaceId,
      spUserRef,
      displayName ?? null,
      member.billing_account_id,
      nowIso(),
    );
    return member;
  });
}

/** The first 500 members in join order; there is no pagination (spec 4.1 rule 6). */
export async function listMembers(db: Db, workspaceId: string): Promise<Member[]> {
  const rows = await db.all<MemberRow>(
    'SELECT * FROM members WHERE workspace_id = ? ORDER BY rowid LIMIT ?',
    workspaceId,
    MEMBER_LIMIT,
  );
  return rows.map(toMember);
}

/** False for an unknown or already suspended member (not idempotent). Issued tokens stay valid (spec 5.7). */
export async function suspendMember(db: Db, workspaceId: string, memberId: string): Promise<boolean> {
  const changes = await db.run(
    "UPDATE members SET status = 'suspended' WHERE workspace_id = ? AND user_id = ? AND status != 'suspended'",
    workspaceId,
    memberId,
  );
  return changes === 1;
}

/** Why a grant was refused; nothing changed. */
export type GrantRefusal = 'key_reused' | 'unknown_member' | 'insufficient_wallet';

/** An amount in whole cents: amounts have at most 2 decimal places (docs/protocol.md "Workspace routes"). */
const cents = (amount: number) => Math.round(amount * 100);

/**
 * Moves `amount` from the owner's wallet to the member, once per `idempotencyKey`. The lookup of the key and
 * the writes share one write transaction (Db.transaction), so concurrent replays can never debit twice; a replay
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
): Promise<GrantResult | { refused: GrantRefusal }> {
  return db.transaction(async (tx) => {
    const prior = await tx.get<{ member_id: string; amount: number; purchase_id: string; balance_after: number }>(
      'SELECT member_id, amount, purchase_id, balance_after FROM grants WHERE workspace_id = ? AND idempotency_key = ?',
      workspaceId,
      idempotencyKey,
    );
    if (prior) {
      if (prior.member_id !== memberId || cents(prior.amount) !== cents(amount)) return { refused: 'key_reused' };
      return { balance: prior.balance_after, purchase_id: prior.purchase_id, idempotent: true };
    }
    const member = await memberById(tx, workspaceId, memberId);
    if (!member) return { refused: 'unknown_member' };
    const { wallet } = (await tx.get<{ wallet: number }>('SELECT wallet FROM workspaces WHERE id = ?', workspaceId))!;
    if (cents(wallet) < cents(amount)) return { refused: 'insufficient_wallet' };
    await tx.run('UPDATE workspaces SET wallet = ? WHERE id = ?', (cents(wallet) - cents(amount)) / 100, workspaceId);
    const balance = (cents(member.balance) + cents(amount)) / 100;
    await tx.run('UPDATE members SET balance = ? WHERE user_id = ?', balance, memberId);
    const purchaseId = randomId('pur');
    await tx.run(
      `INSERT INTO grants (workspace_id, idempotency_key, member_id, amount, purchase_id, balance_after, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
      workspaceId,
      idempotencyKey,
      memberId,
      cents(amount) / 100,
      purchaseId,
      balance,
      nowIso(),
    );
    return { balance, purchase_id: purchaseId, idempotent: false };
  });
}

/** A session token for the member provisioned as `spUserRef`; an unknown or suspended member gets none. */
export async function mintSession(
  db: Db,
  workspaceId: string,
  spUserRef: string,
  ttlSeconds: number,
): Promise<SessionToken | { refused: 'unknown_member' | 'suspended' }> {
  const member = await memberByRef(db, workspaceId, spUserRef);
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
async function waitFor(db: Db, rule: SendRule, now: number): Promise<number> {
  if (rule.count <= 0) return rule.windowMs;
  const row = await db.get<{ sent_at: number }>(
    `SELECT sent_at FROM sms_sends WHERE ${rule.where} AND sent_at > ? ORDER BY sent_at DESC LIMIT 1 OFFSET ?`,
    ...rule.args,
    now - rule.windowMs,
    rule.count - 1,
  );
  return row ? row.sent_at + rule.windowMs - now : 0;
}

/**
 * A new 6-digit code for `phone` in the workspace, replacing any older one, unless a send limit is reached
 * (docs/server.md "SMS sign-in"): then the limit that admits the next send last, and when it will.
 */
export function issueSmsCode(db: Db, secret: Buffer, request: CodeRequest): Promise<CodeIssue> {
  const { workspaceId, phone, address } = request;
  return db.transaction(async (tx) => {
    const now = clock.now();
    await tx.run('DELETE FROM sms_sends WHERE sent_at <= ?', now - DAY_MS);
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
      const wait = await waitFor(tx, rule, now);
      if (wait > (longest?.wait ?? 0)) longest = { refused: rule.refusal, wait };
    }
    if (longest) return { refused: longest.refused, retryAfterSeconds: Math.ceil(longest.wait / 1000) };

    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    await tx.run(
      `INSERT INTO sms_codes (workspace_id, phone, code_hash, expires_at, failures) VALUES (?, ?, ?, ?, 0)
       ON CONFLICT (workspace_id, phone) DO UPDATE SET
         code_hash = excluded.code_hash, expires_at = excluded.expires_at, failures = 0`,
      workspaceId,
      phone,
      codeHash(secret, workspaceId, phone, code).toString('hex'),
      now + CODE_TTL_MS,
    );
    await tx.run(
      'INSERT INTO sms_sends (phone, sent_at, workspace_id, address) VALUES (?, ?, ?, ?)',
      phone,
      now,
      workspaceId,
      address,
    );
    return { code };
  });
}

/** Sets the workspace's own cap on SMS codes per 24 hours; null returns to the service's default. */
export async function setSmsDailyLimit(db: Db, workspaceId: string, limit: number | null): Promise<void> {
  await db.run('UPDATE workspaces SET sms_daily_limit = ? WHERE id = ?', limit, workspaceId);
}

/** Codes a workspace sent in the last 24 hours (what its daily cap counts). */
export async function smsSentToday(db: Db, workspaceId: string): Promise<number> {
  const row = await db.get<{ sent: number }>(
    'SELECT COUNT(*) AS sent FROM sms_sends WHERE workspace_id = ? AND sent_at > ?',
    workspaceId,
    clock.now() - DAY_MS,
  );
  return row!.sent;
}

/**
 * Checks a code and uses it up. A wrong guess is counted (and committed); the fifth kills the code.
 * Returns false for a wrong, expired, used or dead code.
 */
export function consumeSmsCode(
  db: Db,
  secret: Buffer,
  workspaceId: string,
  phone: string,
  code: string,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const row = await tx.get<{ code_hash: string; expires_at: number; failures: number }>(
      'SELECT code_hash, expires_at, failures FROM sms_codes WHERE workspace_id = ? AND phone = ?',
      workspaceId,
      phone,
    );
    if (!row) return false;
    const expired = row.expires_at <= clock.now();
    const match =
      !expired && timingSafeEqual(Buffer.from(row.code_hash, 'hex'), codeHash(secret, workspaceId, phone, code));
    if (expired || match || row.failures + 1 >= MAX_WRONG_GUESSES) {
      await tx.run('DELETE FROM sms_codes WHERE workspace_id = ? AND phone = ?', workspaceId, phone);
    } else {
      await tx.run(
        'UPDATE sms_codes SET failures = failures + 1 WHERE workspace_id = ? AND phone = ?',
        workspaceId,
        phone,
      );
    }
    return match;
  });
}
