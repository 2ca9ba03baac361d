import type { AssistantRawEvent, ChatRawEvent, ChatStreamRecord, ContentBlock } from '@svc/agent-sdk/protocol';
import type { Db } from './db.js';
import { parseCursor, type RecordRow, toRecord } from './record-rows.js';

/**
 * A conversation's history, read from its records (table `records`, written by record-rows.ts): the pages of
 * `history` and `messages`, the context a runtime is given, and the messages found by their id.
 */

/** Streamed fragments and status changes are live-only; history holds everything else. */
const HISTORY_FILTER = "event NOT IN ('delta', 'agent_status')";

function withoutThinking(record: ChatStreamRecord): ChatStreamRecord {
  if (record.raw.type !== 'assistant') return record;
  const raw = record.raw as AssistantRawEvent;
  const content = raw.message.content.filter((block: ContentBlock) => block.type !== 'thinking');
  return { ...record, raw: { ...raw, message: { ...raw.message, content } } };
}

function presentEntries(rows: RecordRow[], includeThinking: boolean): ChatStreamRecord[] {
  const records = rows.map(toRecord);
  return includeThinking ? records : records.map(withoutThinking);
}

/**
 * One stretch of a conversation's whole history: up to `limit` entries after the rowid `after`, oldest first.
 * `messages` is read stretch by stretch, so answering it never holds a whole conversation.
 */
export async function messagesAfter(
  db: Db,
  conversationId: string,
  after: number,
  limit: number,
  includeThinking: boolean,
): Promise<ChatStreamRecord[]> {
  const rows = await db.all<RecordRow>(
    `SELECT * FROM records WHERE conversation_id = ? AND id > ? AND ${HISTORY_FILTER} ORDER BY id LIMIT ?`,
    conversationId,
    after,
    limit,
  );
  return presentEntries(rows, includeThinking);
}

/** The last `limit` history entries before the rowid `before`, newest first. */
function entriesBefore(db: Db, conversationId: string, before: number, limit: number): Promise<RecordRow[]> {
  return db.all<RecordRow>(
    `SELECT * FROM records WHERE conversation_id = ? AND id < ? AND ${HISTORY_FILTER} ORDER BY id DESC LIMIT ?`,
    conversationId,
    before,
    limit,
  );
}

export interface HistoryPage {
  /** Rowid cursor: the page ends before it; undefined for the end of the conversation. */
  before?: number;
  turns: number;
  maxEntries: number;
  includeThinking: boolean;
}

/**
 * The page of history before a cursor: walking back from it, whole turns until `turns` user records
 * have been taken, and never more than `maxEntries` records. Oldest first.
 */
export async function historyPage(db: Db, conversationId: string, page: HistoryPage) {
  const newestFirst = await entriesBefore(db, conversationId, page.before ?? Number.MAX_SAFE_INTEGER, page.maxEntries);
  const taken: RecordRow[] = [];
  let turns = 0;
  for (const row of newestFirst) {
    taken.push(row);
    if (row.sender === 'user' && ++turns === page.turns) break;
  }
  taken.reverse();
  const oldest = taken[0]?.id ?? page.before ?? Number.MAX_SAFE_INTEGER;
  const older = await db.get(
    `SELECT 1 FROM records WHERE conversation_id = ? AND id < ? AND ${HISTORY_FILTER} LIMIT 1`,
    conversationId,
    oldest,
  );
  return { entries: presentEntries(taken, page.includeThinking), hasMore: !!older };
}

/** Earlier entries handed to a runtime as context: the last `limit` before `before`, oldest first, thinking included. */
export async function recentEntries(
  db: Db,
  conversationId: string,
  before: string,
  limit: number,
): Promise<ChatStreamRecord[]> {
  const rows = await entriesBefore(db, conversationId, parseCursor(before) ?? 0, limit);
  return rows.reverse().map(toRecord);
}

/** The text of an agent's `assistant` message (used to read a reply aloud). */
export async function agentMessageText(
  db: Db,
  conversationId: string,
  agentId: string,
  messageId: string,
): Promise<string | undefined> {
  // The text narrows the rows down (`_` in an id matches any character); the JSON decides.
  const rows = await db.all<{ raw: string }>(
    `SELECT raw FROM records WHERE conversation_id = ? AND agent_id = ? AND event = 'message' AND raw LIKE ?
     ORDER BY id DESC LIMIT 50`,
    conversationId,
    agentId,
    `%"id":${JSON.stringify(messageId)}%`,
  );
  const raw = rows
    .map((row) => JSON.parse(row.raw) as ChatRawEvent)
    .find((r): r is AssistantRawEvent => r.type === 'assistant' && r.message.id === messageId);
  return raw?.message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n\n');
}

/** An agent's `assistant` message by its id, whichever agent wrote it: its agent and its text. */
export async function agentMessage(
  db: Db,
  conversationId: string,
  messageId: string,
): Promise<{ agentId: string; text: string } | undefined> {
  const rows = await db.all<{ raw: string }>(
    `SELECT raw FROM records WHERE conversation_id = ? AND event = 'message' AND sender = 'agent' AND raw LIKE ?
     ORDER BY id DESC LIMIT 50`,
    conversationId,
    `%"id":${JSON.stringify(messageId)}%`,
  );
  const raw = rows
    .map((row) => JSON.parse(row.raw) as ChatRawEvent)
    .find((r): r is AssistantRawEvent => r.type === 'assistant' && r.message.id === messageId);
  if (!raw) return undefined;
  const text = raw.message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n\n');
  return { agentId: raw.agentId, text };
}

/** The newest user record of a conversation: the question of its last turn. */
export async function lastUserRecord(db: Db, conversationId: string): Promise<ChatStreamRecord | undefined> {
  const row = await db.get<RecordRow>(
    "SELECT * FROM records WHERE conversation_id = ? AND sender = 'user' ORDER BY id DESC LIMIT 1",
    conversationId,
  );
  return row && toRecord(row);
}
