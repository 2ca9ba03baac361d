import type { Db } from './db.js';
import { nowIso } from './ids.js';

/**
 * Who holds a conversation that was handed to a person (`handoffs`, one row per conversation; none: its agents).
 * Each change is one conditional write, right whatever else the transaction locks: of two operators taking one
 * conversation on two instances, the second finds it no longer `waiting` and changes nothing. The rules (who may
 * ask, take, leave; how long a visitor waits) are services/handoffs.ts's.
 */

/** `waiting` and `human` hold the conversation; the others say how the last handoff ended (it is the agents'). */
export type HandoffRowState = 'waiting' | 'human' | 'released' | 'closed' | 'missed';

export interface HandoffRow {
  conversation_id: string;
  workspace_id: string;
  state: HandoffRowState;
  requested_by: 'agent' | 'visitor';
  reason: string | null;
  agent_id: string | null;
  requested_at: string;
  /** Until when a `waiting` conversation waits for a person (ISO 8601). */
  deadline: string;
  operator_id: string | null;
  changed_at: string;
  /** The row id of the record that said the current state. */
  record_id: number;
}

export const HANDOFF_COLUMNS =
  'conversation_id, workspace_id, state, requested_by, reason, agent_id, requested_at, deadline, operator_id, changed_at, record_id';

export function handoffOf(db: Db, conversationId: string): Promise<HandoffRow | undefined> {
  return db.get<HandoffRow>(`SELECT ${HANDOFF_COLUMNS} FROM handoffs WHERE conversation_id = ?`, conversationId);
}

/**
 * Starts waiting for a person, unless one is waited for or holds the conversation already: the new state, or
 * undefined when nothing changed.
 */
export function openHandoff(
  db: Db,
  h: Pick<HandoffRow, 'conversation_id' | 'workspace_id' | 'requested_by' | 'reason' | 'agent_id' | 'deadline'>,
): Promise<HandoffRow | undefined> {
  const now = nowIso();
  return db.get<HandoffRow>(
    `INSERT INTO handoffs (conversation_id, workspace_id, state, requested_by, reason, agent_id, requested_at, deadline,
       changed_at)
     VALUES (?, ?, 'waiting', ?, ?, ?, ?, ?, ?)
     ON CONFLICT (conversation_id) DO UPDATE SET state = 'waiting', requested_by = excluded.requested_by,
       reason = excluded.reason, agent_id = excluded.agent_id, requested_at = excluded.requested_at,
       deadline = excluded.deadline, operator_id = NULL, changed_at = excluded.changed_at
     WHERE handoffs.state NOT IN ('waiting', 'human')
     RETURNING ${HANDOFF_COLUMNS}`,
    h.conversation_id,
    h.workspace_id,
    h.requested_by,
    h.reason,
    h.agent_id,
    now,
    h.deadline,
    now,
  );
}

/** A waiting conversation becomes `operatorId`'s; undefined when it was not waiting (taken, or never asked). */
export function takeHandoff(db: Db, conversationId: string, operatorId: string): Promise<HandoffRow | undefined> {
  return db.get<HandoffRow>(
    `UPDATE handoffs SET state = 'human', operator_id = ?, changed_at = ? WHERE conversation_id = ? AND state = 'waiting'
     RETURNING ${HANDOFF_COLUMNS}`,
    operatorId,
    nowIso(),
    conversationId,
  );
}

/** `operatorId` gives back a conversation it holds; undefined when it holds none of that id. */
export function endHandoff(
  db: Db,
  conversationId: string,
  operatorId: string,
  state: 'released' | 'closed',
): Promise<HandoffRow | undefined> {
  return db.get<HandoffRow>(
    `UPDATE handoffs SET state = ?, changed_at = ? WHERE conversation_id = ? AND state = 'human' AND operator_id = ?
     RETURNING ${HANDOFF_COLUMNS}`,
    state,
    nowIso(),
    conversationId,
    operatorId,
  );
}

/** A conversation still waiting at its deadline (`now`, ISO 8601) goes back to its agents; undefined otherwise. */
export function missHandoff(db: Db, conversationId: string, now: string): Promise<HandoffRow | undefined> {
  return db.get<HandoffRow>(
    `UPDATE handoffs SET state = 'missed', changed_at = ? WHERE conversation_id = ? AND state = 'waiting' AND deadline <= ?
     RETURNING ${HANDOFF_COLUMNS}`,
    nowIso(),
    conversationId,
    now,
  );
}

/** The conversations waiting for a person (those due by `dueBy`, when given), with their deadlines. */
export function waitingHandoffs(db: Db, dueBy?: string): Promise<{ conversation_id: string; deadline: string }[]> {
  return db.all(
    `SELECT conversation_id, deadline FROM handoffs
     WHERE state = 'waiting' AND (CAST(? AS TEXT) IS NULL OR deadline <= ?)`,
    dueBy ?? null,
    dueBy ?? null,
  );
}

/** Notes the record that said the conversation's current state. */
export async function markHandoffRecord(db: Db, conversationId: string, rowId: number): Promise<void> {
  await db.run('UPDATE handoffs SET record_id = ? WHERE conversation_id = ?', rowId, conversationId);
}
