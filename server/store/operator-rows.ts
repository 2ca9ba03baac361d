import type { OperatorIdentity } from '@svc/agent-sdk/protocol';
import type { Db } from './db.js';
import { nowIso, randomId } from './ids.js';

/**
 * A workspace's staff (`operators`), each by the site's own reference (`operator_ref`), with the name and picture
 * that records show visitors. The rules (who may sign one in, for how long) are services/operators.ts's.
 */

export interface OperatorRow {
  id: string;
  workspace_id: string;
  operator_ref: string;
  display_name: string;
  avatar_url: string | null;
}

/** An operator as records and the queue name them. */
export const identityOf = (row: Pick<OperatorRow, 'id' | 'display_name' | 'avatar_url'>): OperatorIdentity => ({
  id: row.id,
  name: row.display_name,
  ...(row.avatar_url ? { avatarUrl: row.avatar_url } : {}),
});

/**
 * The operator of `operatorRef` with this name and picture: made on its first session, brought up to date on each
 * later one (a site renames its staff in its own records). One write, so parallel sign-ins make one operator.
 */
export async function upsertOperator(
  db: Db,
  workspaceId: string,
  o: { operator_ref: string; display_name: string; avatar_url?: string },
): Promise<OperatorRow> {
  const row = await db.get<OperatorRow>(
    `INSERT INTO operators (id, workspace_id, operator_ref, display_name, avatar_url, created_at)
     VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (workspace_id, operator_ref) DO UPDATE SET display_name = excluded.display_name,
       avatar_url = excluded.avatar_url
     RETURNING id, workspace_id, operator_ref, display_name, avatar_url`,
    randomId('op'),
    workspaceId,
    o.operator_ref,
    o.display_name,
    o.avatar_url ?? null,
    nowIso(),
  );
  return row!;
}

export function operatorById(db: Db, id: string): Promise<OperatorRow | undefined> {
  return db.get<OperatorRow>(
    'SELECT id, workspace_id, operator_ref, display_name, avatar_url FROM operators WHERE id = ?',
    id,
  );
}
