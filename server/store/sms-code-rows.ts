import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import { clock } from './clock.js';
import type { Db } from './db.js';

/**
 * SMS sign-in codes (`sms_codes`: one live code per workspace and phone, kept as a keyed hash) and the sends
 * that the send limits count (`sms_sends`).
 */

const CODE_TTL_MS = 5 * 60 * 1000;
const MAX_WRONG_GUESSES = 5;
const MINUTE_MS = 60 * 1000;
const DAY_MS = 24 * 60 * MINUTE_MS;

/** Codes are keyed by the server secret: a plain hash of a 6-digit code is reversed by trying all 10^6. */
function codeHash(secret: Buffer, workspaceId: string, phone: string, code: string): Buffer {
  return createHmac('sha256', secret).update(`${workspaceId}\n${phone}\n${code}`).digest();
}

/**
 * Which limit refused a code: the phone's, the requesting address's, the share of numbers like this one, the
 * workspace's daily cap, or a challenge the visitor has not answered.
 */
export type SmsRefusal = 'phone' | 'address' | 'prefix' | 'workspace' | 'challenge';

/**
 * How the daily cap `cap` of a workspace is shared (docs/reliability.md "SMS sign-in against strangers").
 * Until `threshold` codes went to new numbers in 24 hours, only the hourly limits apply. The rest of the cap
 * is shared: a new number's code needs the operator's challenge (when one is configured), and one client
 * address and one number prefix get at most `perAddress` and `perPrefix` of these codes in 24 hours.
 * Numbers that signed in before are outside all of that and may go `reserve` past the cap.
 */
export function smsShares(cap: number) {
  return {
    threshold: Math.ceil(cap / 2),
    perAddress: Math.max(1, Math.ceil(cap / 50)),
    perPrefix: Math.max(1, Math.ceil(cap / 10)),
    reserve: Math.ceil(cap / 5),
  };
}

/** The prefix shares count by: `+` and the first 5 digits (country code and area, e.g. `+14155`). */
const PREFIX_LENGTH = 6;

export type CodeIssue = { code: string } | { refused: SmsRefusal; retryAfterSeconds: number };

export interface CodeRequest {
  workspaceId: string;
  phone: string;
  /** The client address asking (an IPv4 address or an IPv6 /64). */
  address: string;
  addressPerHour: number;
  workspacePerDay: number;
  /** A challenge verifier is configured (past the threshold a new number needs a passed one). */
  challengeConfigured?: boolean;
  /** The visitor's answer to the challenge was accepted by the verifier. */
  challenged?: boolean;
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
    // The limits count sends by phone, address and workspace alike: one key for every send, each a few reads.
    await tx.lock('sms_sends');
    const now = clock.now();
    await tx.run('DELETE FROM sms_sends WHERE sent_at <= ?', now - DAY_MS);
    const known = await tx.get(
      'SELECT user_id FROM members WHERE workspace_id = ? AND sp_user_ref = ?',
      workspaceId,
      `sms:${phone}`,
    );
    const cap = request.workspacePerDay;
    const shares = smsShares(cap);
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
        count: known ? cap + shares.reserve : cap,
        windowMs: DAY_MS,
      },
    ];
    const toNew = known ? 0 : await newNumberSends(tx, workspaceId, now);
    const shared = !known && toNew >= shares.threshold;
    if (shared) {
      const prefix = phone.slice(0, PREFIX_LENGTH);
      rules.push(
        {
          refusal: 'address',
          where: 'workspace_id = ? AND shared = 1 AND address = ?',
          args: [workspaceId, address],
          count: shares.perAddress,
          windowMs: DAY_MS,
        },
        {
          refusal: 'prefix',
          where: `workspace_id = ? AND shared = 1 AND substr(phone, 1, ${PREFIX_LENGTH}) = ?`,
          args: [workspaceId, prefix],
          count: shares.perPrefix,
          windowMs: DAY_MS,
        },
      );
    }
    let longest: { refused: SmsRefusal; wait: number } | undefined;
    for (const rule of rules) {
      const wait = await waitFor(tx, rule, now);
      if (wait > (longest?.wait ?? 0)) longest = { refused: rule.refusal, wait };
    }
    if (longest) return { refused: longest.refused, retryAfterSeconds: Math.ceil(longest.wait / 1000) };
    if (shared && request.challengeConfigured && !request.challenged)
      return { refused: 'challenge', retryAfterSeconds: 0 };

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
      'INSERT INTO sms_sends (phone, sent_at, workspace_id, address, known, shared) VALUES (?, ?, ?, ?, ?, ?)',
      phone,
      now,
      workspaceId,
      address,
      known ? 1 : 0,
      shared ? 1 : 0,
    );
    return { code };
  });
}

/** Codes a workspace sent in the last 24 hours to numbers that had not signed in to it before. */
async function newNumberSends(db: Db, workspaceId: string, now: number): Promise<number> {
  const row = await db.get<{ sent: number }>(
    'SELECT COUNT(*) AS sent FROM sms_sends WHERE workspace_id = ? AND known = 0 AND sent_at > ?',
    workspaceId,
    now - DAY_MS,
  );
  return Number(row!.sent);
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
    await tx.lock(`sms_codes ${workspaceId} ${phone}`);
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
