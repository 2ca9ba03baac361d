import type { GrantResult, Member, ProvisionResult, SessionToken } from '@svc/agent-sdk/protocol';
import { issueSessionToken } from '../store/credential-rows.js';
import type { Db } from '../store/db.js';
import { randomId } from '../store/ids.js';
import {
  grantByKey,
  insertGrant,
  insertMember,
  markSuspended,
  memberById,
  memberByRef,
  membersOfWorkspace,
  setBalance,
} from '../store/member-rows.js';
import { setWallet, walletOf } from '../store/workspace-rows.js';
import { Refusal } from './refusal.js';

/*
 * A workspace's members (spec 4.1): provisioned once per reference of the provider, suspended, granted credits
 * from the owner's wallet once per key, given session tokens while active. The tables are store/member-rows.ts's;
 * the rules are here.
 */

/** How many members the list holds: there is no pagination (spec 4.1 rule 6). */
const MEMBER_LIMIT = 500;

/** Idempotent by `sp_user_ref`: a known member comes back unchanged (a suspended one stays suspended). */
export function provisionMember(
  db: Db,
  workspaceId: string,
  spUserRef: string,
  displayName?: string,
): Promise<ProvisionResult> {
  return db.transaction(async (tx) => {
    await tx.lock(`members ${workspaceId} ${spUserRef}`);
    const known = await memberByRef(tx, workspaceId, spUserRef);
    if (known) return { member_id: known.user_id, billing_account_id: known.billing_account_id, created: false };
    const member = { member_id: randomId('u'), billing_account_id: randomId('ba') };
    await insertMember(tx, workspaceId, { ...member, sp_user_ref: spUserRef, display_name: displayName });
    return { ...member, created: true };
  });
}

/** Whether `spUserRef` was provisioned in the workspace (suspended or not). */
export async function isMember(db: Db, workspaceId: string, spUserRef: string): Promise<boolean> {
  return (await memberByRef(db, workspaceId, spUserRef)) !== undefined;
}

/** The first 500 members in join order. */
export function listMembers(db: Db, workspaceId: string): Promise<Member[]> {
  return membersOfWorkspace(db, workspaceId, MEMBER_LIMIT);
}

/** Not idempotent: an unknown or already suspended member is `member_not_found`. Issued tokens stay valid (spec 5.7). */
export async function suspendMember(db: Db, workspaceId: string, memberId: string): Promise<void> {
  if (!(await markSuspended(db, workspaceId, memberId))) throw new Refusal('member_not_found');
}

/** An amount in whole cents: amounts have at most 2 decimal places (docs/protocol.md "Workspace routes"). */
const cents = (amount: number) => Math.round(amount * 100);

/**
 * Moves `amount` from the owner's wallet to the member, once per `idempotencyKey`. The lookup of the key and
 * the writes share one transaction holding the workspace's wallet (Db.lock), so the grants of a workspace go one
 * at a time on every instance and concurrent replays can never debit twice; a replay
 * gets the stored first result, a replay with another member or amount is `grant_key_reused`. An unknown member
 * (`member_not_found`) or a wallet holding less (`wallet_insufficient`) changes nothing and does not use up the
 * key. Sums are taken in whole cents and every stored amount is a whole number of cents, so no binary fraction
 * ever accumulates: 0.1 + 0.2 is 0.3.
 */
export function grantCredits(
  db: Db,
  workspaceId: string,
  memberId: string,
  amount: number,
  idempotencyKey: string,
): Promise<GrantResult> {
  return db.transaction(async (tx) => {
    await tx.lock(`wallet ${workspaceId}`);
    const prior = await grantByKey(tx, workspaceId, idempotencyKey);
    if (prior) {
      if (prior.member_id !== memberId || cents(prior.amount) !== cents(amount)) throw new Refusal('grant_key_reused');
      return { balance: prior.balance_after, purchase_id: prior.purchase_id, idempotent: true };
    }
    const member = await memberById(tx, workspaceId, memberId);
    if (!member) throw new Refusal('member_not_found');
    const wallet = await walletOf(tx, workspaceId);
    if (cents(wallet) < cents(amount)) throw new Refusal('wallet_insufficient');
    await setWallet(tx, workspaceId, (cents(wallet) - cents(amount)) / 100);
    const balance = (cents(member.balance) + cents(amount)) / 100;
    await setBalance(tx, memberId, balance);
    const purchaseId = randomId('pur');
    await insertGrant(tx, workspaceId, idempotencyKey, {
      member_id: memberId,
      amount: cents(amount) / 100,
      purchase_id: purchaseId,
      balance_after: balance,
    });
    return { balance, purchase_id: purchaseId, idempotent: false };
  });
}

/**
 * A session token for the member provisioned as `spUserRef` (mintSession, verifySmsCode), living `ttlSeconds`:
 * none for an unknown member (`member_ref_unknown`) or a suspended one (`member_suspended`).
 */
export async function sessionFor(
  db: Db,
  workspaceId: string,
  spUserRef: string,
  ttlSeconds: number,
): Promise<SessionToken> {
  const member = await memberByRef(db, workspaceId, spUserRef);
  if (!member) throw new Refusal('member_ref_unknown');
  if (member.status === 'suspended') throw new Refusal('member_suspended');
  return issueSessionToken(db, member.user_id, workspaceId, ttlSeconds);
}
