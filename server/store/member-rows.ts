import type { GrantResult, Member, ProvisionResult } from '@svc/agent-sdk/protocol';
import type { Db } from './db.js';
import { nowIso, randomId } from './ids.js';

/**
 * A workspace's members and the credits granted to them (`members`, `grants`). A member's session tokens
 * are issued by credential-rows.ts.
 */

const MEMBER_LIMIT = 500;

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

export function memberByRef(db: Db, workspaceId: string, spUserRef: string): Promise<MemberRow | undefined> {
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
    await tx.lock(`members ${workspaceId} ${spUserRef}`);
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
 * the writes share one transaction holding the workspace's wallet (Db.lock), so concurrent grants of a workspace
 * go one at a time on every instance and replays can never debit twice; a replay
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
    await tx.lock(`wallet ${workspaceId}`);
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
