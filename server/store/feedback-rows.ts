import type { Feedback, FeedbackEntry, FeedbackRating } from '@svc/agent-sdk/protocol';
import type { Db } from './db.js';
import { nowIso } from './ids.js';

/**
 * Visitors' feedback on agents' replies (table `feedback`, migrations/0005-reply-actions.sql): one row per visitor
 * per message, changed in place, so a visitor who changes their mind leaves one verdict. The owner reads them
 * by workspace, newest first, a page at a time (the row id is the cursor).
 */

interface FeedbackRow {
  id: number;
  workspace_id: string;
  conversation_id: string;
  message_id: string;
  agent_id: string;
  user_id: string;
  rating: FeedbackRating;
  reason: string | null;
  text: string;
  created_at: string;
  updated_at: string;
}

export interface NewFeedback {
  conversationId: string;
  messageId: string;
  agentId: string;
  userId: string;
  rating: FeedbackRating;
  reason: string | null;
  text: string;
}

/**
 * Stores the visitor's feedback on a message, or changes the one they gave before; returns it as stored. It
 * belongs to the workspace of the agent that wrote the reply, read here from that agent's row (a conversation
 * may hold agents of several workspaces): undefined when there is no such agent.
 */
export async function saveFeedback(db: Db, f: NewFeedback): Promise<Feedback | undefined> {
  const now = nowIso();
  const row = await db.get<FeedbackRow>(
    `INSERT INTO feedback (workspace_id, conversation_id, message_id, agent_id, user_id, rating, reason, text,
       created_at, updated_at)
     SELECT agents.workspace_id, ?, ?, agents.id, ?, ?, ?, ?, ?, ? FROM agents WHERE agents.id = ?
     ON CONFLICT (user_id, conversation_id, message_id)
       DO UPDATE SET rating = excluded.rating, reason = excluded.reason, updated_at = excluded.updated_at
     RETURNING *`,
    f.conversationId,
    f.messageId,
    f.userId,
    f.rating,
    f.reason,
    f.text,
    now,
    now,
    f.agentId,
  );
  return row && toFeedback(row);
}

/** The caller's feedback in one conversation, oldest first. */
export async function feedbackOfConversation(db: Db, userId: string, conversationId: string): Promise<Feedback[]> {
  const rows = await db.all<FeedbackRow>(
    'SELECT * FROM feedback WHERE user_id = ? AND conversation_id = ? ORDER BY id',
    userId,
    conversationId,
  );
  return rows.map(toFeedback);
}

export interface FeedbackQuery {
  /** Row id: the page holds rows before it. */
  before?: number;
  limit: number;
  agentId?: string;
  rating?: FeedbackRating;
}

/** A page of a workspace's feedback, newest first, and the cursor of the next page (null at the end). */
export async function workspaceFeedback(
  db: Db,
  workspaceId: string,
  q: FeedbackQuery,
): Promise<{ feedback: FeedbackEntry[]; next: number | null }> {
  const rows = await db.all<FeedbackRow>(
    `SELECT * FROM feedback WHERE workspace_id = ? AND id < ?
       AND (CAST(? AS TEXT) IS NULL OR agent_id = ?) AND (CAST(? AS TEXT) IS NULL OR rating = ?)
     ORDER BY id DESC LIMIT ?`,
    workspaceId,
    q.before ?? Number.MAX_SAFE_INTEGER,
    q.agentId ?? null,
    q.agentId ?? null,
    q.rating ?? null,
    q.rating ?? null,
    q.limit + 1,
  );
  const page = rows.slice(0, q.limit);
  return {
    feedback: page.map((row) => ({ ...toFeedback(row), id: String(row.id), user_id: row.user_id, text: row.text })),
    next: rows.length > q.limit ? page.at(-1)!.id : null,
  };
}

function toFeedback(row: FeedbackRow): Feedback {
  return {
    conversationId: row.conversation_id,
    messageId: row.message_id,
    agentId: row.agent_id,
    rating: row.rating,
    reason: row.reason,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
