import {
  deleteUnansweredClientToolCalls,
  insertClientToolCalls,
  markClientToolCallAnswered,
} from '../store/client-tool-call-rows.js';
import type { Db } from '../store/db.js';
import { Refusal } from './refusal.js';

/*
 * The calls of the tools a page gave the chat, each answered exactly once (docs/protocol.md "Tools the page gives
 * the chat"). Each runs inside the write transaction of the record it goes with, under its conversation's lock
 * (lockConversation), which every writer of the conversation takes first on any instance: so of two answers to one
 * call, whichever instance takes them, one is stored.
 */

/** Keeps the calls an agent's record makes as waiting for the page (with that record). */
export function recordClientToolCalls(tx: Db, conversationId: string, turnId: string, toolUseIds: string[]) {
  return insertClientToolCalls(tx, conversationId, turnId, toolUseIds);
}

/** Takes the answer to call `toolUseId` (with its message): refused unless the call waits for one (`client_tool_not_pending`). */
export async function answerClientToolCall(tx: Db, conversationId: string, toolUseId: string): Promise<void> {
  if (!(await markClientToolCallAnswered(tx, conversationId, toolUseId))) throw new Refusal('client_tool_not_pending');
}

/** The calls of a turn asked again in place of (regenerate, edit) wait for nothing any more. */
export function dropClientToolCalls(tx: Db, conversationId: string, replacedTurnId: string) {
  return deleteUnansweredClientToolCalls(tx, conversationId, replacedTurnId);
}
