import type {
  AssistantRawEvent,
  ChatRawEvent,
  ChatStreamRecord,
  ContentBlock,
  RecordSender,
} from '../../src/client/types.js';
import { nowIso } from '../ids.js';
import type { Db } from './db.js';
import { markUploadsReferenced } from './files.js';

/**
 * The records of every conversation, and their order. A record's id (its stream cursor) is its rowid,
 * written `e` + 15 digits: AUTOINCREMENT never reuses a rowid, so ids only grow, within a conversation
 * and globally, and comparing two ids as strings compares them as numbers. `seq` counts 1, 2, 3… per
 * conversation. Only server/records.ts appends (it publishes what it stores).
 */
export const recordsSchema = `
CREATE TABLE IF NOT EXISTS records (
  id INTEGER PRIMARY KEY AUTOINCREMENT, conversation_id TEXT NOT NULL REFERENCES conversations(id),
  seq INTEGER NOT NULL, turn_id TEXT, agent_id TEXT, agent_name TEXT, sender TEXT NOT NULL, event TEXT NOT NULL,
  raw TEXT NOT NULL, created_at TEXT NOT NULL, UNIQUE (conversation_id, seq)
);
CREATE INDEX IF NOT EXISTS records_by_conversation ON records (conversation_id, id);
`;

interface RecordRow {
  id: number;
  conversation_id: string;
  seq: number;
  turn_id: string | null;
  agent_id: string | null;
  agent_name: string | null;
  sender: RecordSender;
  event: string;
  raw: string;
  created_at: string;
}

/** A record before it is stored: the store gives it its id, `seq` and timestamp. */
export interface NewRecord {
  sender: RecordSender;
  event: ChatStreamRecord['event'];
  raw: ChatRawEvent;
  agentId?: string;
  /** Shown by chat UIs; session tokens cannot list a workspace's agents. */
  agentName?: string;
  turnId?: string;
}

// ---------------------------------------------------------------- cursors

const CURSOR = /^e(\d{15})$/;

export const cursorOf = (rowid: number) => `e${String(rowid).padStart(15, '0')}`;

/** The rowid behind a cursor, or undefined when it is not one of ours. */
export function parseCursor(cursor: string): number | undefined {
  const match = CURSOR.exec(cursor);
  return match ? Number(match[1]) : undefined;
}

function toRecord(row: RecordRow): ChatStreamRecord {
  const record: ChatStreamRecord = {
    id: cursorOf(row.id),
    seq: row.seq,
    timestamp: row.created_at,
    sessionId: row.conversation_id,
    conversationId: row.conversation_id,
    sender: row.sender,
    event: row.event,
    raw: JSON.parse(row.raw),
  };
  if (row.turn_id) record.turnId = row.turn_id;
  if (row.agent_id) record.agentId = row.agent_id;
  if (row.agent_name) record.agentName = row.agent_name;
  return record;
}

// ---------------------------------------------------------------- writing

/**
 * Stores a record. Call it inside a transaction; the caller publishes the record once that has committed.
 * The conversation's size grows by the record's JSON, and uploads the record links to are marked used.
 */
export function insertRecord(db: Db, conversationId: string, r: NewRecord): ChatStreamRecord {
  const raw = JSON.stringify(r.raw);
  const bumped = db
    .prepare('UPDATE conversations SET last_seq = last_seq + 1, bytes = bytes + ? WHERE id = ? RETURNING last_seq')
    .get(Buffer.byteLength(raw), conversationId) as { last_seq: number } | undefined;
  if (!bumped) throw new Error(`conversation ${conversationId} does not exist`);
  const row: Omit<RecordRow, 'id'> = {
    conversation_id: conversationId,
    seq: bumped.last_seq,
    turn_id: r.turnId ?? null,
    agent_id: r.agentId ?? null,
    agent_name: r.agentName ?? null,
    sender: r.sender,
    event: r.event,
    raw,
    created_at: nowIso(),
  };
  const { lastInsertRowid } = db
    .prepare(
      `INSERT INTO records (conversation_id, seq, turn_id, agent_id, agent_name, sender, event, raw, created_at)
       VALUES (@conversation_id, @seq, @turn_id, @agent_id, @agent_name, @sender, @event, @raw, @created_at)`,
    )
    .run(row);
  const id = Number(lastInsertRowid);
  db.prepare('UPDATE conversations SET last_record = ? WHERE id = ?').run(id, conversationId);
  markUploadsReferenced(db, raw);
  return toRecord({ id, ...row });
}

/** What a conversation's records take, as JSON (the bound of LIMITS.conversationBytes). */
export function conversationBytes(db: Db, conversationId: string): number {
  const row = db.prepare('SELECT bytes FROM conversations WHERE id = ?').get(conversationId) as
    | { bytes: number }
    | undefined;
  return row?.bytes ?? 0;
}

// ---------------------------------------------------------------- the stream

/** Every record after the cursor `after` (a rowid), oldest first. */
export function recordsAfter(db: Db, conversationId: string, after: number): ChatStreamRecord[] {
  const rows = db
    .prepare('SELECT * FROM records WHERE conversation_id = ? AND id > ? ORDER BY id')
    .all(conversationId, after) as RecordRow[];
  return rows.map(toRecord);
}

/** The rowid just before the `turns`-th last turn (a turn starts at a user record); 0 when fewer exist. */
export function startOfLastTurns(db: Db, conversationId: string, turns: number): number {
  const row = db
    .prepare(`SELECT id FROM records WHERE conversation_id = ? AND sender = 'user' ORDER BY id DESC LIMIT 1 OFFSET ?`)
    .get(conversationId, turns - 1) as { id: number } | undefined;
  return row ? row.id - 1 : 0;
}

/** The newest record's rowid of a conversation (0 when empty). */
export function lastRecordId(db: Db, conversationId: string): number {
  const row = db.prepare('SELECT last_record FROM conversations WHERE id = ?').get(conversationId) as
    | { last_record: number }
    | undefined;
  return row?.last_record ?? 0;
}

/** The records of one turn, oldest first. */
export function turnRecords(db: Db, turnId: string): ChatStreamRecord[] {
  return (db.prepare('SELECT * FROM records WHERE turn_id = ? ORDER BY id').all(turnId) as RecordRow[]).map(toRecord);
}

// ---------------------------------------------------------------- history

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
export function messagesAfter(
  db: Db,
  conversationId: string,
  after: number,
  limit: number,
  includeThinking: boolean,
): ChatStreamRecord[] {
  const rows = db
    .prepare(`SELECT * FROM records WHERE conversation_id = ? AND id > ? AND ${HISTORY_FILTER} ORDER BY id LIMIT ?`)
    .all(conversationId, after, limit) as RecordRow[];
  return presentEntries(rows, includeThinking);
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
export function historyPage(db: Db, conversationId: string, page: HistoryPage) {
  const newestFirst = db
    .prepare(
      `SELECT * FROM records WHERE conversation_id = ? AND id < ? AND ${HISTORY_FILTER} ORDER BY id DESC LIMIT ?`,
    )
    .iterate(conversationId, page.before ?? Number.MAX_SAFE_INTEGER, page.maxEntries) as IterableIterator<RecordRow>;
  const taken: RecordRow[] = [];
  let turns = 0;
  for (const row of newestFirst) {
    taken.push(row);
    if (row.sender === 'user' && ++turns === page.turns) break;
  }
  taken.reverse();
  const oldest = taken[0]?.id ?? page.before ?? Number.MAX_SAFE_INTEGER;
  const older = db
    .prepare(`SELECT 1 FROM records WHERE conversation_id = ? AND id < ? AND ${HISTORY_FILTER} LIMIT 1`)
    .get(conversationId, oldest);
  return { entries: presentEntries(taken, page.includeThinking), hasMore: !!older };
}

/** Earlier entries handed to a runtime as context: the last `limit` before `before`, oldest first, thinking included. */
export function recentEntries(db: Db, conversationId: string, before: string, limit: number): ChatStreamRecord[] {
  const rows = db
    .prepare(
      `SELECT * FROM records WHERE conversation_id = ? AND id < ? AND ${HISTORY_FILTER} ORDER BY id DESC LIMIT ?`,
    )
    .all(conversationId, parseCursor(before) ?? 0, limit) as RecordRow[];
  return rows.reverse().map(toRecord);
}

/** The text of an agent's `assistant` message (used to read a reply aloud). */
export function agentMessageText(
  db: Db,
  conversationId: string,
  agentId: string,
  messageId: string,
): string | undefined {
  const row = db
    .prepare(
      `SELECT raw FROM records WHERE conversation_id = ? AND agent_id = ? AND event = 'message'
         AND json_extract(raw, '$.type') = 'assistant' AND json_extract(raw, '$.message.id') = ?
       ORDER BY id DESC LIMIT 1`,
    )
    .get(conversationId, agentId, messageId) as { raw: string } | undefined;
  if (!row) return undefined;
  const raw = JSON.parse(row.raw) as AssistantRawEvent;
  return raw.message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n\n');
}
