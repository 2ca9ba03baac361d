import type { Db } from './db.js';
import { nowIso } from './ids.js';

/**
 * The calls of the tools a page gave the chat (table `client_tool_calls`, migrations/0008-client-tool-calls.sql):
 * one row per call, stored with the record that makes it; `answered_at` is set once, by the answer.
 */

/** Stores the calls an agent's record of turn `turnId` makes. */
export async function insertClientToolCalls(
  db: Db,
  conversationId: string,
  turnId: string,
  toolUseIds: string[],
): Promise<void> {
  for (const toolUseId of toolUseIds) {
    await db.run(
      'INSERT INTO client_tool_calls (conversation_id, tool_use_id, turn_id) VALUES (?, ?, ?)',
      conversationId,
      toolUseId,
      turnId,
    );
  }
}

/** Marks a call answered; false when there is no such call, or it was answered already. */
export async function markClientToolCallAnswered(db: Db, conversationId: string, toolUseId: string): Promise<boolean> {
  const row = await db.get<{ tool_use_id: string }>(
    `UPDATE client_tool_calls SET answered_at = ?
     WHERE conversation_id = ? AND tool_use_id = ? AND answered_at IS NULL RETURNING tool_use_id`,
    nowIso(),
    conversationId,
    toolUseId,
  );
  return !!row;
}

/** Forgets the calls of turn `turnId` that no answer reached (the turn was asked again in place of). */
export async function deleteUnansweredClientToolCalls(db: Db, conversationId: string, turnId: string): Promise<void> {
  await db.run(
    'DELETE FROM client_tool_calls WHERE conversation_id = ? AND turn_id = ? AND answered_at IS NULL',
    conversationId,
    turnId,
  );
}
