import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import type { SessionToken, SmsLimit } from '@svc/agent-sdk/protocol';
import { clock } from '../store/clock.js';
import type { Db } from '../store/db.js';
import { nowIso } from '../store/ids.js';
import {
  countSmsSends,
  countWrongGuess,
  deleteSmsCode,
  deleteSmsSendsBefore,
  insertSmsSend,
  nthLatestSmsSend,
  type SendFilter,
  saveSmsCode,
  smsCodeOf,
} from '../store/sms-code-rows.js';
import { setSmsDailyLimit, type WorkspaceRow } from '../store/workspace-rows.js';
import type { AppContext } from './context.js';
import type { Quotas } from './limits.js';
import { isMember, provisionMember, sessionFor } from './members.js';
import { Refusal, type RefusalReason } from './refusal.js';

/*
 * SMS sign-in (spec 4.1 rule 7) and what keeps it from strangers (docs/server.md "SMS sign-in",
 * docs/reliability.md "SMS sign-in against strangers"): the send limits, the shares of a workspace's daily
 * cap, the challenge near it, the wrong guesses a code takes. store/sms-code-rows.ts keeps the codes and sends.
 */

const CODE_TTL_MS = 5 * 60 * 1000;
const MAX_WRONG_GUESSES = 5;
const MINUTE_MS = 60 * 1000;
const DAY_MS = 24 * 60 * MINUTE_MS;
/** A visitor signed in by SMS stays signed in for a day. */
const SMS_SESSION_TTL_SECONDS = 86400;
/** The prefix shares count by: `+` and the first 5 digits (country code and area, e.g. `+14155`). */
const PREFIX_LENGTH = 6;

/** The member an SMS sign-in makes of a phone. */
const smsMemberRef = (phone: string) => `sms:${phone}`;

/** Codes are keyed by the server secret: a plain hash of a 6-digit code is reversed by trying all 10^6. */
function codeHash(secret: Buffer, workspaceId: string, phone: string, code: string): Buffer {
  return createHmac('sha256', secret).update(`${workspaceId}\n${phone}\n${code}`).digest();
}

/**
 * Which limit refused a code: the phone's, the requesting address's, the share of numbers like this one, the
 * workspace's daily cap, or a challenge the visitor has not answered.
 */
export type SmsRefusal = 'phone' | 'address' | 'prefix' | 'workspace' | 'challenge';

const REFUSAL_OF: Record<SmsRefusal, RefusalReason> = {
  phone: 'sms_phone',
  address: 'sms_address',
  prefix: 'sms_prefix',
  workspace: 'sms_workspace',
  challenge: 'sms_challenge',
};

/**
 * How the daily cap `cap` of a workspace is shared. Until `threshold` codes went to new numbers in 24 hours,
 * only the hourly limits apply. The rest of the cap is shared: a new number's code needs the operator's
 * challenge (when one is configured), and one client address and one number prefix get at most `perAddress`
 * and `perPrefix` of these codes in 24 hours. Numbers that signed in before are outside all of that and may go
 * `reserve` past the cap.
 */
export function smsShares(cap: number) {
  return {
    threshold: Math.ceil(cap / 2),
    perAddress: Math.max(1, Math.ceil(cap / 50)),
    perPrefix: Math.max(1, Math.ceil(cap / 10)),
    reserve: Math.ceil(cap / 5),
  };
}

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
 * One send limit: at most `count` codes in any `windowMs` among the sends that match `filter`. A stranger's
 * requests count against a phone only for 30 seconds, so they cannot keep its owner from a fresh code longer
 * than that; the longer window per phone is counted per requesting address.
 */
interface SendRule {
  refusal: SmsRefusal;
  filter: SendFilter;
  count: number;
  windowMs: number;
}

/** How long until `rule` admits one more send (0: now). */
async function waitFor(db: Db, rule: SendRule, now: number): Promise<number> {
  if (rule.count <= 0) return rule.windowMs;
  const nth = await nthLatestSmsSend(db, rule.filter, now - rule.windowMs, rule.count);
  return nth === undefined ? 0 : nth + rule.windowMs - now;
}

/**
 * A new 6-digit code for `phone` in the workspace, replacing any older one, unless a send limit is reached
 * (docs/server.md "SMS sign-in"): then the limit that admits the next send last, and when it will. The limits
 * are read and the send counted in one transaction holding the key of every SMS send (Db.lock: the limits count
 * by phone, address and workspace alike), so racing requests on any instance cannot pass a limit together.
 */
export function issueSmsCode(db: Db, secret: Buffer, request: CodeRequest): Promise<CodeIssue> {
  const { workspaceId, phone, address } = request;
  return db.transaction(async (tx) => {
    await tx.lock('sms_sends');
    const now = clock.now();
    await deleteSmsSendsBefore(tx, now - DAY_MS);
    const known = await isMember(tx, workspaceId, smsMemberRef(phone));
    const cap = request.workspacePerDay;
    const shares = smsShares(cap);
    const rules: SendRule[] = [
      { refusal: 'phone', filter: { phone }, count: 1, windowMs: 30 * 1000 },
      { refusal: 'phone', filter: { phone, address }, count: 5, windowMs: 10 * MINUTE_MS },
      { refusal: 'address', filter: { address }, count: request.addressPerHour, windowMs: 60 * MINUTE_MS },
      { refusal: 'workspace', filter: { workspaceId }, count: known ? cap + shares.reserve : cap, windowMs: DAY_MS },
    ];
    const toNew = known ? 0 : await countSmsSends(tx, { workspaceId, known: false }, now - DAY_MS);
    const shared = !known && toNew >= shares.threshold;
    if (shared) {
      const prefix = phone.slice(0, PREFIX_LENGTH);
      rules.push(
        {
          refusal: 'address',
          filter: { workspaceId, shared: true, address },
          count: shares.perAddress,
          windowMs: DAY_MS,
        },
        { refusal: 'prefix', filter: { workspaceId, shared: true, prefix }, count: shares.perPrefix, windowMs: DAY_MS },
      );
    }
    let longest: { refused: SmsRefusal; wait: number } | undefined;
    for (const rule of rules) {
      const wait = await waitFor(tx, rule, now);
      if (wait > (longest?.wait ?? 0)) longest = { refused: rule.refusal, wait };
    }
    if (longest) return { refused: longest.refused, retryAfterSeconds: Math.ceil(longest.wait / 1000) };
    if (shared && request.challengeConfigured && !request.challenged) {
      return { refused: 'challenge', retryAfterSeconds: 0 };
    }

    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const hash = codeHash(secret, workspaceId, phone, code).toString('hex');
    await saveSmsCode(tx, { workspaceId, phone, codeHash: hash, expiresAt: now + CODE_TTL_MS });
    await insertSmsSend(tx, { workspaceId, phone, address, sentAt: now, known, shared });
    return { code };
  });
}

/**
 * Checks a code and uses it up. A wrong guess is counted (and committed); the fifth kills the code. The phone's
 * code is held (Db.lock) from the read to the write: two guesses at once count twice, and a code serves once.
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
    const stored = await smsCodeOf(tx, workspaceId, phone);
    if (!stored) return false;
    const expired = stored.expires_at <= clock.now();
    const match =
      !expired && timingSafeEqual(Buffer.from(stored.code_hash, 'hex'), codeHash(secret, workspaceId, phone, code));
    if (expired || match || stored.failures + 1 >= MAX_WRONG_GUESSES) await deleteSmsCode(tx, workspaceId, phone);
    else await countWrongGuess(tx, workspaceId, phone);
    return match;
  });
}

/** The workspace's cap on SMS codes in any 24 hours: its owner's, else the deployment's. */
const dailyCap = (workspace: Pick<WorkspaceRow, 'sms_daily_limit'>, quotas: Quotas) =>
  workspace.sms_daily_limit ?? quotas.smsPerWorkspacePerDay;

/**
 * Sends a sign-in code to `phone` for a visitor at client `address` (with their answer to the operator's
 * challenge, if any), or refuses by the limit that frees last (`sms_phone`, `sms_address`, `sms_prefix`,
 * `sms_workspace`, with when to ask again) or for the challenge (`sms_challenge`).
 */
export async function sendSmsCode(
  ctx: AppContext,
  workspace: WorkspaceRow,
  phone: string,
  address: string,
  challenge?: string,
): Promise<void> {
  const { smsChallenge, metrics } = ctx;
  const challenged =
    !!smsChallenge && !!challenge && (await smsChallenge.verify(challenge, { phone, address, slug: workspace.slug }));
  const issued = await issueSmsCode(ctx.db, ctx.secret, {
    workspaceId: workspace.id,
    phone,
    address,
    addressPerHour: ctx.quotas.smsPerAddressPerHour,
    workspacePerDay: dailyCap(workspace, ctx.quotas),
    challengeConfigured: !!smsChallenge,
    challenged,
  });
  if ('refused' in issued) {
    metrics.smsRefused.inc({ limit: issued.refused });
    const retryAfterMs = issued.refused === 'challenge' ? undefined : issued.retryAfterSeconds * 1000;
    throw new Refusal(REFUSAL_OF[issued.refused], { retryAfterMs });
  }
  ctx.sms.send({ phone, code: issued.code, slug: workspace.slug, at: nowIso() });
  metrics.smsSent.inc();
}

/**
 * Signs in the visitor who received `code` at `phone`: the member `sms:<phone>` (made on first sign-in) gets a
 * session token valid a day. A wrong, expired, used or dead code is `sms_code_invalid`.
 */
export async function signInBySms(
  ctx: AppContext,
  workspace: WorkspaceRow,
  phone: string,
  code: string,
): Promise<SessionToken> {
  if (!(await consumeSmsCode(ctx.db, ctx.secret, workspace.id, phone, code))) throw new Refusal('sms_code_invalid');
  await provisionMember(ctx.db, workspace.id, smsMemberRef(phone));
  return sessionFor(ctx.db, workspace.id, smsMemberRef(phone), SMS_SESSION_TTL_SECONDS);
}

/** The workspace's cap on SMS codes (our extension: spec section 8 leaves quotas open), and what it sent of it. */
export async function smsLimitOf(
  db: Db,
  quotas: Quotas,
  workspace: Pick<WorkspaceRow, 'id' | 'sms_daily_limit'>,
): Promise<SmsLimit> {
  return {
    daily_limit: dailyCap(workspace, quotas),
    custom: workspace.sms_daily_limit !== null,
    sent_last_24h: await countSmsSends(db, { workspaceId: workspace.id }, clock.now() - DAY_MS),
  };
}

/** Sets the workspace's own cap (0 sends none); null returns to the deployment's. */
export async function setSmsLimit(db: Db, quotas: Quotas, workspaceId: string, cap: number | null): Promise<SmsLimit> {
  await setSmsDailyLimit(db, workspaceId, cap);
  return smsLimitOf(db, quotas, { id: workspaceId, sms_daily_limit: cap });
}
