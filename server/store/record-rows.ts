import type { ChatRawEvent, ChatStreamRecord, ContentBlock, RecordSender } from '@svc/agent-sdk/protocol';
import type { Db, Notice } from './db.js';
import { nowIso } from './ids.js';
import { lines, oneLine } from './shown-text.js';
import { linkedUploads, markUploadsReferenced } from './upload-rows.js';

/**
 * The records of every conversation, and their order (table `records`, migrations/0001-initial.sql). A
 * record's id (its stream cursor) is its row id, written `e` + 15 digits: ids are never reused, so they only
 * grow, and comparing two ids as strings compares them as numbers. Ids of different conversations commit in
 * any order; within a conversation they grow in commit order on any number of instances: a write locks its
 * conversation's row before it draws its ids and holds it until it commits (insertRecords), so a reader after
 * an id never misses a record of that conversation committed later. `seq` counts 1, 2, 3… per conversation.
 * Only server/services/record-log.ts appends.
 */

/** A row of `records` as read. */
export interface RecordRow {
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

export function toRecord(row: RecordRow): ChatStreamRecord {
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

/** Records as one write stored them, and the conversation's newest record before it (a row id, 0: none). */
export interface StoredRecords {
  records: ChatStreamRecord[];
  previous: number;
}

/**
 * Stores records of one conversation, in order, as one write, and returns them as stored; `sent` is the
 * notification the write sends (Db.notifyBy). The conversation's size grows by the records' JSON, its
 * newest record, preview and title follow them, and uploads they link to are marked used. On PostgreSQL it
 * is one call of `svc_append_records` (migrations/0012-append-records.postgres.sql: one round trip, a
 * transaction of its own outside one), which locks the conversation's row before it draws the ids; SQLite
 * runs the same steps in-process, in a transaction (one writer at a time).
 */
export async function insertRecords(
  db: Db,
  conversationId: string,
  records: NewRecord[],
  sent?: Notice,
): Promise<StoredRecords> {
  const createdAt = nowIso();
  const rows = records.map((r) => {
    const raw = JSON.stringify(r.raw);
    const row: Omit<RecordRow, 'id' | 'seq'> = {
      conversation_id: conversationId,
      turn_id: r.turnId ?? null,
      agent_id: r.agentId ?? null,
      agent_name: r.agentName ?? null,
      sender: r.sender,
      event: r.event,
      raw,
      created_at: createdAt,
    };
    return { row, bytes: Buffer.byteLength(raw), preview: previewOf(r) };
  });
  const stored =
    db.engine === 'postgres'
      ? await appendCall(db, conversationId, rows, sent)
      : await db.transaction(async (tx) => {
          const ids: StoredId[] = [];
          for (const { row, bytes, preview } of rows) ids.push(await appendOne(tx, row, bytes, preview));
          return ids;
        });
  return {
    records: rows.map(({ row }, i) => toRecord({ ...row, id: stored[i]!.id, seq: stored[i]!.seq })),
    previous: stored[0]?.previous ?? 0,
  };
}

type StoredId = Pick<RecordRow, 'id' | 'seq'> & { previous: number };
type Preview = ReturnType<typeof previewOf>;
interface RowToStore {
  row: Omit<RecordRow, 'id' | 'seq'>;
  bytes: number;
  preview: Preview;
}

/** PostgreSQL: the whole write in one call (see insertRecords). */
async function appendCall(db: Db, conversationId: string, rows: RowToStore[], sent?: Notice): Promise<StoredId[]> {
  const column = <K extends keyof RowToStore['row']>(key: K) => rows.map(({ row }) => row[key]);
  const newest = rows.findLast(({ preview }) => preview)?.preview;
  const firstAsked = rows.find(({ preview }) => preview?.role === 'user')?.preview;
  const stored = await db.all<{ record_id: number; record_seq: number; previous_record: number }>(
    'SELECT record_id, record_seq, previous_record FROM svc_append_records(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    conversationId,
    column('turn_id'),
    column('agent_id'),
    column('agent_name'),
    column('sender'),
    column('event'),
    column('raw'),
    rows.map(({ bytes }) => bytes),
    rows[0]?.row.created_at ?? nowIso(),
    newest ? JSON.stringify(newest) : null,
    firstAsked ? titleOf(firstAsked.text) : null,
    rows.flatMap(({ row }) => linkedUploads(row.raw)),
    sent?.channel ?? null,
    sent?.payload ?? null,
  );
  return stored.map((s) => ({ id: s.record_id, seq: s.record_seq, previous: s.previous_record }));
}

/** SQLite: one record's statements, inside the write's transaction. */
async function appendOne(db: Db, row: RowToStore['row'], bytes: number, preview: Preview): Promise<StoredId> {
  const conversationId = row.conversation_id;
  // RETURNING gives last_record as it was: this statement does not change it.
  const bumped = await db.get<{ last_seq: number; last_record: number }>(
    'UPDATE conversations SET last_seq = last_seq + 1, bytes = bytes + ? WHERE id = ? RETURNING last_seq, last_record',
    bytes,
    conversationId,
  );
  if (!bumped) throw new Error(`conversation ${conversationId} does not exist`);
  const inserted = await db.get<{ id: number }>(
    `INSERT INTO records (conversation_id, seq, turn_id, agent_id, agent_name, sender, event, raw, created_at, bytes)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    conversationId,
    bumped.last_seq,
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
  await db.run(
    `UPDATE conversations SET last_record = ?, last_message = COALESCE(?, last_message), title = COALESCE(title, ?)
     WHERE id = ?`,
    id,
    preview ? JSON.stringify(preview) : null,
    preview?.role === 'user' ? titleOf(preview.text) : null,
    conversationId,
  );
  await markUploadsReferenced(db, conversationId, row.raw);
  return { id, seq: bumped.last_seq, previous: bumped.last_record };
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
