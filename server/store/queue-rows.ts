import type { ChatStreamRecord } from '@svc/agent-sdk/protocol';
import type { Db } from './db.js';
import { HANDOFF_COLUMNS, type HandoffRow, type HandoffRowState } from './handoff-rows.js';

/**
 * What an operator's queue shows (services/operator-queue.ts): the handoffs of a workspace with the names of their
 * visitors and operators, and the visitor's messages where a contact card's answer is found.
 */

/** A handoff as the queue lists it: with its visitor's and its operator's names. */
export interface QueueRow extends HandoffRow {
  owner_id: string;
  visitor_name: string | null;
  operator_name: string | null;
  operator_avatar: string | null;
}

/**
 * The workspace's handoffs in `state` (only `operatorId`'s, when given): requests newest first, or for the ended
 * ones the latest change first; at most `limit`.
 */
export function queueRows(
  db: Db,
  workspaceId: string,
  state: HandoffRowState,
  limit: number,
  operatorId?: string,
): Promise<QueueRow[]> {
  const order = state === 'waiting' ? 'h.requested_at' : 'h.changed_at';
  return db.all<QueueRow>(
    `SELECT ${HANDOFF_COLUMNS.split(', ')
      .map((column) => `h.${column}`)
      .join(', ')}, c.owner_id, m.display_name AS visitor_name, o.display_name AS operator_name,
       o.avatar_url AS operator_avatar
     FROM handoffs h JOIN conversations c ON c.id = h.conversation_id
       LEFT JOIN members m ON m.user_id = c.owner_id LEFT JOIN operators o ON o.id = h.operator_id
     WHERE h.workspace_id = ? AND h.state = ? AND (CAST(? AS TEXT) IS NULL OR h.operator_id = ?)
     ORDER BY ${order} DESC, h.conversation_id LIMIT ?`,
    workspaceId,
    state,
    operatorId ?? null,
    operatorId ?? null,
    limit,
  );
}

/** The visitor's messages after the row id `after`, newest first (`limit` at most): where card answers are found. */
export async function userRecordsAfter(
  db: Db,
  conversationId: string,
  after: number,
  limit: number,
): Promise<ChatStreamRecord['raw'][]> {
  const rows = await db.all<{ raw: string }>(
    `SELECT raw FROM records WHERE conversation_id = ? AND id > ? AND sender = 'user' ORDER BY id DESC LIMIT ?`,
    conversationId,
    after,
    limit,
  );
  return rows.map((row) => JSON.parse(row.raw));
}
