import type {
  AssistantRawEvent,
  ChatRawEvent,
  ChatStreamRecord,
  ContentBlock,
  RecordSender,
} from '@svc/agent-sdk/protocol';
import type { Db } from './db.js';
import { nowIso } from './ids.js';
import { lines, oneLine } from './shown-text.js';
import { markUploadsReferenced } from './upload-rows.js';

/**
 * The records of every conversation, and their order (table `records`, migrations/0001-initial.sql). A
 * record's id (its stream cursor) is its row id, written `e` + 15 digits: ids are never reused, so they only
 * grow, and comparing two ids as strings compares them as numbers. Within a conversation they grow in commit
 * order on any number of instances: an append takes the id after it has updated (so locked) its
 * conversation's row. `seq` counts 1, 2, 3… per conversation. Only server/services/record-log.ts appends.
 */

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

/** A record id: `e` and its row id in 15 digits. */
export const CURSOR = /^e(\d{15})$/;

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
export async function insertRecord(db: Db, conversationId: string, r: NewRecord): Promise<ChatStreamRecord> {
  const raw = JSON.stringify(r.raw);
  const bytes = Buffer.byteLength(raw);
  const bumped = await db.get<{ last_seq: number }>(
    'UPDATE conversations SET last_seq = last_seq + 1, bytes = bytes + ? WHERE id = ? RETURNING last_seq',
    bytes,
    conversationId,
  );
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
  const inserted = await db.get<{ id: number }>(
    `INSERT INTO records (conversation_id, seq, turn_id, agent_id, agent_name, sender, event, raw, created_at, bytes)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    row.conversation_id,
    row.seq,
    row.turn_id,
    row.agent_id,
    row.agent_name,
    row.sender,
    row.event,
    row.raw,
    row.created_at,
    bytes,
  );
  const id = inserted!.id;
  const preview = previewOf(r);
  await db.run(
    `UPDATE conversations SET last_record = ?, last_message = COALESCE(?, last_message), title = COALESCE(title, ?)
     WHERE id = ?`,
    id,
    preview ? JSON.stringify(preview) : null,
    preview?.role === 'user' ? titleOf(preview.text) : null,
    conversationId,
  );
  await markUploadsReferenced(db, conversationId, raw);
  return toRecord({ id, ...row });
}

/** `text` as `shape` makes it (one line: `oneLine` by default), cut to `max` characters with an ellipsis. */
export function shortened(text: string, max: number, shape = oneLine): string {
  const flat = shape(text);
  return flat.length > max ? `${flat.slice(0, max - 1).trimEnd()}…` : flat;
}

/**
 * What the conversation list previews of a record (conversations.last_message), in `lines`: a message the visitor
 * wrote (not a card answer), or the text of an agent's or a person's message; undefined for every other record.
 */
export function previewOf(
  r: Pick<NewRecord, 'raw' | 'agentName'>,
): { role: 'user' | 'agent'; text: string; agentName?: string } | undefined {
  if (r.raw.type === 'user' && !r.raw.toolAction) {
    const written = r.raw.message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join(' ');
    const files = (r.raw.parts ?? []).flatMap((p) => (p.type === 'file' ? [p.file.filename] : []));
    const text = shortened(written || files.join(', '), 200, lines);
    return text ? { role: 'user', text } : undefined;
  }
  if (r.raw.type === 'assistant' || r.raw.type === 'operator_message') {
    // A person of the staff answers on the agents' side: the visitor's list shows them by name.
    const name = r.raw.type === 'operator_message' ? r.raw.operator.name : r.agentName;
    const blocks: ContentBlock[] = r.raw.message.content;
    const text = shortened(blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join(' '), 200, lines);
    return text ? { role: 'agent', text, ...(name ? { agentName: name } : {}) } : undefined;
  }
  return undefined;
}

/** A conversation's title from its first message: at most 80 characters. */
export const titleOf = (text: string) => shortened(text, 80);

/** What a conversation's records take, as JSON (the bound of LIMITS.conversationBytes). */
export async function conversationBytes(db: Db, conversationId: string): Promise<number> {
  const row = await db.get<{ bytes: number }>('SELECT bytes FROM conversations WHERE id = ?', conversationId);
  return row?.bytes ?? 0;
}

// ---------------------------------------------------------------- the stream

/**
 * The rows of the next page after the cursor `after`, sized from the index (conversation, id, bytes) over the
 * page only, so a record left out is never read; `fetched` is how many the page held before sizing.
 */
const PAGE_ROWS = `SELECT id, fetched FROM (
    SELECT id, bytes, SUM(bytes) OVER (ORDER BY id) AS upto, COUNT(*) OVER () AS fetched
    FROM (SELECT id, bytes FROM records WHERE conversation_id = ? AND id > ? ORDER BY id LIMIT ?) page
  ) sized WHERE upto - bytes < ?`;

/**
 * The records after the cursor `after` (a row id), oldest first: at most `page.records`, and only as many as
 * fit in `page.bytes` of JSON (the first always does), so a page holds little however large its records are;
 * `more` says whether records were left for the next page. With `held`, a record it gives (one a reader is still
 * writing) is taken from there, not read again: a record may take 4 MB, and each read of it leaves its row's text
 * and its parsed copy behind; that costs a second query, so without `held` the page is read in one.
 */
export async function recordsAfter(
  db: Db,
  conversationId: string,
  after: number,
  page: { records: number; bytes: number },
  held?: (rowId: number) => ChatStreamRecord | undefined,
): Promise<{ records: ChatStreamRecord[]; more: boolean }> {
  const params = [conversationId, after, page.records, page.bytes];
  const more = (fetched: number | string | undefined, kept: number) =>
    Number(fetched ?? 0) === page.records || kept < Number(fetched ?? 0);
  if (!held) {
    const rows = await db.all<RecordRow & { fetched: number | string }>(
      `SELECT records.*, chosen.fetched FROM (${PAGE_ROWS}) chosen JOIN records ON records.id = chosen.id
       ORDER BY records.id`,
      ...params,
    );
    return { records: rows.map(toRecord), more: more(rows[0]?.fetched, rows.length) };
  }
  const chosen = await db.all<{ id: number; fetched: number | string }>(`${PAGE_ROWS} ORDER BY id`, ...params);
  const heldRecords = new Map(
    chosen.flatMap((row) => {
      const record = held(row.id);
      return record ? [[row.id, record] as const] : [];
    }),
  );
  const missing = chosen.flatMap((row) => (heldRecords.has(row.id) ? [] : [row.id]));
  const read =
    missing.length === 0
      ? []
      : await db.all<RecordRow>(
          `SELECT * FROM records WHERE id IN (${missing.map(() => '?').join(', ')}) ORDER BY id`,
          ...missing,
        );
  const readRecords = new Map(read.map((row) => [row.id, toRecord(row)]));
  // A row deleted between the two reads (its conversation was) is left out.
  const records = chosen.flatMap((row) => heldRecords.get(row.id) ?? readRecords.get(row.id) ?? []);
  return { records, more: more(chosen[0]?.fetched, chosen.length) };
}

/** The oldest or the newest `limit` message records of a conversation (the visitor's and the agents'). */
export async function messageRecords(
  db: Db,
  conversationId: string,
  end: 'oldest' | 'newest',
  limit: number,
): Promise<ChatStreamRecord[]> {
  const rows = await db.all<RecordRow>(
    `SELECT * FROM records WHERE conversation_id = ? AND event = 'message'
     ORDER BY id ${end === 'oldest' ? 'ASC' : 'DESC'} LIMIT ?`,
    conversationId,
    limit,
  );
  return rows.map(toRecord);
}

/** The rowid just before the `turns`-th last turn (a turn starts at a user record); 0 when fewer exist. */
export async function startOfLastTurns(db: Db, conversationId: string, turns: number): Promise<number> {
  const row = await db.get<{ id: number }>(
    `SELECT id FROM records WHERE conversation_id = ? AND sender = 'user' ORDER BY id DESC LIMIT 1 OFFSET ?`,
    conversationId,
    turns - 1,
  );
  return row ? row.id - 1 : 0;
}

/** The newest record's rowid of a conversation (0 when empty). */
export async function lastRecordId(db: Db, conversationId: string): Promise<number> {
  const row = await db.get<{ last_record: number }>(
    'SELECT last_record FROM conversations WHERE id = ?',
    conversationId,
  );
  return row?.last_record ?? 0;
}

/** The records of one turn, oldest first. */
export async function turnRecords(db: Db, turnId: string): Promise<ChatStreamRecord[]> {
  return (await db.all<RecordRow>('SELECT * FROM records WHERE turn_id = ? ORDER BY id', turnId)).map(toRecord);
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
