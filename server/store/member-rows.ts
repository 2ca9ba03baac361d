import type { Member } from '@svc/agent-sdk/protocol';
import type { Db } from './db.js';
import { nowIso } from './ids.js';

/**
 * A workspace's members and the credits granted to them (`members`, `grants`). The rules (provisioning once
 * per reference, grants once per key and within the wallet) are services/members.ts's.
 */

export interface MemberRow extends Member {
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

export function memberById(db: Db, workspaceId: string, memberId: string): Promise<MemberRow | undefined> {
  return db.get<MemberRow>('SELECT * FROM members WHERE workspace_id = ? AND user_id = ?', workspaceId, memberId);
}

/** A new member (a fresh `member_id`, `billing_account_id`), active, with no balance. */
export async function insertMember(
  db: Db,
  workspaceId: string,
  member: { member_id: string; billing_account_id: string; sp_user_ref: string; display_name?: string },
): Promise<void> {
  await db.run(
    `INSERT INTO members (user_id, workspace_id, sp_user_ref, display_name, billing_account_id, status, joined_at)
     VALUES (?, ?, ?, ?, ?, 'active', ?)`,
    member.member_id,
    workspaceId,
    member.sp_user_ref,
    member.display_name ?? null,
    member.billing_account_id,
    nowIso(),
  );
}

/** The first `limit` members in join order. */
export async function membersOfWorkspace(db: Db, workspaceId: string, limit: number): Promise<Member[]> {
  const rows = await db.all<MemberRow>(
    'SELECT * FROM members WHERE workspace_id = ? ORDER BY rowid LIMIT ?',
    workspaceId,
    limit,
  );
  return rows.map(toMember);
}

/** Suspends an active member; false when there is none of that id (or it is suspended already). */
export async function markSuspended(db: Db, workspaceId: string, memberId: string): Promise<boolean> {
  const changes = await db.run(
    "UPDATE members SET status = 'suspended' WHERE workspace_id = ? AND user_id = ? AND status != 'suspended'",
    workspaceId,
    memberId,
  );
  return changes === 1;
}

export async function setBalance(db: Db, memberId: string, balance: number): Promise<void> {
  await db.run('UPDATE members SET balance = ? WHERE user_id = ?', balance, memberId);
}

/** A grant as it is kept under its idempotency key. */
export interface GrantRow {
  member_id: string;
  amount: number;
  purchase_id: string;
  balance_after: number;
}

export function grantByKey(db: Db, workspaceId: string, idempotencyKey: string): Promise<GrantRow | undefined> {
  return db.get<GrantRow>(
    'SELECT member_id, amount, purchase_id, balance_after FROM grants WHERE workspace_id = ? AND idempotency_key = ?',
    workspaceId,
    idempotencyKey,
  );
}

export async function insertGrant(db: Db, workspaceId: string, idempotencyKey: string, grant: GrantRow): Promise<void> {
  await db.run(
    `INSERT INTO grants (workspace_id, idempotency_key, member_id, amount, purchase_id, balance_after, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
    workspaceId,
    idempotencyKey,
    grant.member_id,
    grant.amount,
    grant.purchase_id,
    grant.balance_after,
    nowIso(),
  );
}
