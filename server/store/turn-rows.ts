import type { ResultSubtype } from '@svc/agent-sdk/protocol';
import type { Db } from './db.js';
import { nowIso } from './ids.js';

/**
 * Turns (table `turns`): one user message and the replies to it. At most one turn per conversation is
 * `running` (a partial unique index holds that even under races); an ended turn keeps its result's subtype
 * as status. `instance_id` names the instance of the service that runs a running turn (Db.instanceId).
 */

export interface RunningTurn {
  id: string;
  conversationId: string;
  startedAt: string;
  /** The instance running it; null for a turn stored before instances were named. */
  instanceId: string | null;
}

interface TurnRow {
  id: string;
  conversation_id: string;
  started_at: string;
  instance_id: string | null;
}

const toTurn = (row: TurnRow): RunningTurn => ({
  id: row.id,
  conversationId: row.conversation_id,
  startedAt: row.started_at,
  instanceId: row.instance_id,
});

/** The conversation of the turn `turnId`, if it was stored. */
export async function conversationOfTurn(db: Db, turnId: string): Promise<string | undefined> {
  return (await db.get<{ conversation_id: string }>('SELECT conversation_id FROM turns WHERE id = ?', turnId))
    ?.conversation_id;
}

/** The turn running in a conversation, if any. */
export async function runningTurnOf(db: Db, conversationId: string): Promise<RunningTurn | undefined> {
  const row = await db.get<TurnRow>(
    "SELECT id, conversation_id, started_at, instance_id FROM turns WHERE conversation_id = ? AND status = 'running'",
    conversationId,
  );
  return row && toTurn(row);
}

export async function isTurnRunning(db: Db, conversationId: string): Promise<boolean> {
  return !!(await db.get("SELECT 1 FROM turns WHERE conversation_id = ? AND status = 'running'", conversationId));
}

/**
 * Stores a turn running on this instance unless one is running in the conversation already (also one that
 * another instance stores at the same moment, which makes no error here); whether it was stored.
 */
export async function insertTurnIfIdle(db: Db, conversationId: string, id: string): Promise<boolean> {
  const stored = await db.get<{ id: string }>(
    `INSERT INTO turns (id, conversation_id, status, started_at, instance_id) VALUES (?, ?, 'running', ?, ?)
     ON CONFLICT DO NOTHING RETURNING id`,
    id,
    conversationId,
    nowIso(),
    db.instanceId,
  );
  return !!stored;
}

/**
 * Stores a turn running on this instance; `id` is made before the transaction so that everything a turn
 * needs exists first.
 */
export async function insertTurn(db: Db, conversationId: string, id: string): Promise<RunningTurn> {
  const turn = { id, conversationId, startedAt: nowIso(), instanceId: db.instanceId };
  await db.run(
    "INSERT INTO turns (id, conversation_id, status, started_at, instance_id) VALUES (?, ?, 'running', ?, ?)",
    turn.id,
    turn.conversationId,
    turn.startedAt,
    turn.instanceId,
  );
  return turn;
}

/** Marks a running turn ended and returns it; undefined when it had already ended (an interrupt won the race). */
export async function markTurnEnded(db: Db, turnId: string, subtype: ResultSubtype): Promise<RunningTurn | undefined> {
  const row = await db.get<TurnRow>(
    `UPDATE turns SET status = ?, ended_at = ? WHERE id = ? AND status = 'running'
     RETURNING id, conversation_id, started_at, instance_id`,
    subtype,
    nowIso(),
    turnId,
  );
  return row && toTurn(row);
}

export async function runningTurns(db: Db): Promise<RunningTurn[]> {
  const rows = await db.all<TurnRow>(
    "SELECT id, conversation_id, started_at, instance_id FROM turns WHERE status = 'running'",
  );
  return rows.map(toTurn);
}
