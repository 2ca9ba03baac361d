import type { ResultSubtype } from '../../src/client/types.js';
import { nowIso } from '../ids.js';
import type { Db } from './db.js';

/**
 * Turns: one user message and the replies to it. At most one turn per conversation is `running` (a
 * partial unique index holds that even under races); an ended turn keeps its result's subtype as status.
 */
export const turnsSchema = `
CREATE TABLE IF NOT EXISTS turns (
  id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL REFERENCES conversations(id), status TEXT NOT NULL,
  started_at TEXT NOT NULL, ended_at TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS one_running_turn ON turns (conversation_id) WHERE status = 'running';
`;

export interface RunningTurn {
  id: string;
  conversationId: string;
  startedAt: string;
}

interface TurnRow {
  id: string;
  conversation_id: string;
  started_at: string;
}

const toTurn = (row: TurnRow): RunningTurn => ({
  id: row.id,
  conversationId: row.conversation_id,
  startedAt: row.started_at,
});

export function isTurnRunning(db: Db, conversationId: string): boolean {
  return !!db.prepare("SELECT 1 FROM turns WHERE conversation_id = ? AND status = 'running'").get(conversationId);
}

/** Stores a running turn; `id` is made before the transaction so that everything a turn needs exists first. */
export function insertTurn(db: Db, conversationId: string, id: string): RunningTurn {
  const turn = { id, conversationId, startedAt: nowIso() };
  db.prepare("INSERT INTO turns (id, conversation_id, status, started_at) VALUES (?, ?, 'running', ?)").run(
    turn.id,
    turn.conversationId,
    turn.startedAt,
  );
  return turn;
}

/** Marks a running turn ended and returns it; undefined when it had already ended (an interrupt won the race). */
export function markTurnEnded(db: Db, turnId: string, subtype: ResultSubtype): RunningTurn | undefined {
  const row = db
    .prepare(
      `UPDATE turns SET status = ?, ended_at = ? WHERE id = ? AND status = 'running'
       RETURNING id, conversation_id, started_at`,
    )
    .get(subtype, nowIso(), turnId) as TurnRow | undefined;
  return row && toTurn(row);
}

export function runningTurns(db: Db): RunningTurn[] {
  return (
    db.prepare("SELECT id, conversation_id, started_at FROM turns WHERE status = 'running'").all() as TurnRow[]
  ).map(toTurn);
}
