import type {
  AssistantRawEvent,
  ChatRawEvent,
  ChatStreamRecord,
  ContentBlock,
  RecordSender,
} from '../../src/client/types.js';
import type { AppContext } from '../context.js';
import type { Db } from '../db.js';
import { nowIso, randomId } from '../ids.js';

/**
 * Conversations, their records (the stream) and their turns. A record's cursor is its rowid, written
 * `e` + 15 digits: AUTOINCREMENT never reuses a rowid, so cursors only grow, in a conversation and globally.
 * At most one turn per conversation is `running` (a partial unique index holds that even under races).
 */
export const conversationsSchema = `
CREATE TABLE IF NOT EXISTS conversations (
  id TEXT PRIMARY KEY, kind TEXT NOT NULL, owner_id TEXT NOT NULL, workspace_id TEXT NOT NULL,
  agent_ids TEXT NOT NULL, training_agent_id TEXT, last_seq INTEGER NOT NULL DEFAULT 0,
  last_record INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS conversations_by_owner ON conversations (owner_id, kind, last_record);
CREATE UNIQUE INDEX IF NOT EXISTS training_conversation ON conversations (training_agent_id, owner_id)
  WHERE kind = 'training';
CREATE TABLE IF NOT EXISTS records (
  id INTEGER PRIMARY KEY AUTOINCREMENT, conversation_id TEXT NOT NULL REFERENCES conversations(id),
  seq INTEGER NOT NULL, turn_id TEXT, agent_id TEXT, agent_name TEXT, sender TEXT NOT NULL, event TEXT NOT NULL,
  raw TEXT NOT NULL, created_at TEXT NOT NULL, UNIQUE (conversation_id, seq)
);
CREATE INDEX IF NOT EXISTS records_by_conversation ON records (conversation_id, id);
CREATE TABLE IF NOT EXISTS turns (
  id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL REFERENCES conversations(id), status TEXT NOT NULL,
  started_at TEXT NOT NULL, ended_at TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS one_running_turn ON turns (conversation_id) WHERE status = 'running';
`;

export type ConversationKind = 'chat' | 'training';

export interface Conversation {
  id: string;
  kind: ConversationKind;
  /** A user id; for training, the operator (`owner:<user>` or `key:<key id>`). */
  ownerId: string;
  workspaceId: string;
  agentIds: string[];
}

interface ConversationRow {
  id: string;
  kind: ConversationKind;
  owner_id: string;
  workspace_id: string;
  agent_ids: string;
}

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

// ---------------------------------------------------------------- conversations

function toConversation(row: ConversationRow): Conversation {
  return {
    id: row.id,
    kind: row.kind,
    ownerId: row.owner_id,
    workspaceId: row.workspace_id,
    agentIds: JSON.parse(row.agent_ids),
  };
}

export function getConversation(db: Db, id: string): Conversation | undefined {
  const row = db.prepare('SELECT * FROM conversations WHERE id = ?').get(id) as ConversationRow | undefined;
  return row && toConversation(row);
}

export function conversationOwnedBy(ctx: AppContext, conversationId: string, userId: string): boolean {
  return getConversation(ctx.db, conversationId)?.ownerId === userId;
}

/**
 * The owner's most recent chat, optionally limited to a workspace and to one set of agents (a widget
 * bound to one agent must not continue a conversation held with another).
 */
export function latestConversation(
  db: Db,
  ownerId: string,
  filter: { workspaceId?: string; agentIds?: string[] },
): Conversation | undefined {
  const row = db
    .prepare(
      `SELECT * FROM conversations WHERE owner_id = ? AND kind = 'chat'
         AND (@workspace IS NULL OR workspace_id = @workspace) AND (@agents IS NULL OR agent_ids = @agents)
       ORDER BY last_record DESC LIMIT 1`,
    )
    .get(ownerId, {
      workspace: filter.workspaceId ?? null,
      agents: filter.agentIds ? JSON.stringify(filter.agentIds) : null,
    }) as ConversationRow | undefined;
  return row && toConversation(row);
}

export function createConversation(
  db: Db,
  c: { kind: ConversationKind; ownerId: string; workspaceId: string; agentIds: string[] },
): Conversation {
  const id = randomId('c');
  db.prepare(
    `INSERT INTO conversations (id, kind, owner_id, workspace_id, agent_ids, training_agent_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    id,
    c.kind,
    c.ownerId,
    c.workspaceId,
    JSON.stringify(c.agentIds),
    c.kind === 'training' ? c.agentIds[0] : null,
    nowIso(),
  );
  return { id, ...c };
}

/** The one training conversation of an (agent, operator) pair, created on first use. */
export function trainingConversation(db: Db, agent: { id: string; workspace_id: string }, ownerId: string) {
  const row = db
    .prepare("SELECT * FROM conversations WHERE kind = 'training' AND training_agent_id = ? AND owner_id = ?")
    .get(agent.id, ownerId) as ConversationRow | undefined;
  if (row) return toConversation(row);
  return createConversation(db, { kind: 'training', ownerId, workspaceId: agent.workspace_id, agentIds: [agent.id] });
}

// ---------------------------------------------------------------- records

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

/** Stores a record; the caller publishes it once its transaction has committed. */
export function insertRecord(db: Db, conversationId: string, r: NewRecord): ChatStreamRecord {
  const bumped = db
    .prepare('UPDATE conversations SET last_seq = last_seq + 1 WHERE id = ? RETURNING last_seq')
    .get(conversationId) as { last_seq: number } | undefined;
  if (!bumped) throw new Error(`conversation ${conversationId} does not exist`);
  const row: Omit<RecordRow, 'id'> = {
    conversation_id: conversationId,
    seq: bumped.last_seq,
    turn_id: r.turnId ?? null,
    agent_id: r.agentId ?? null,
    agent_name: r.agentName ?? null,
    sender: r.sender,
    event: r.event,
    raw: JSON.stringify(r.raw),
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
  return toRecord({ id, ...row });
}

/** Stores a record and publishes it to the conversation's live readers. */
export function appendRecord(ctx: AppContext, conversationId: string, r: NewRecord): ChatStreamRecord {
  const record = ctx.db.transaction(() => insertRecord(ctx.db, conversationId, r))();
  ctx.hub.publish(record);
  return record;
}

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

// ---------------------------------------------------------------- messages and history

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

/** The whole history of a conversation, oldest first. */
export function messages(db: Db, conversationId: string, includeThinking: boolean): ChatStreamRecord[] {
  const rows = db
    .prepare(`SELECT * FROM records WHERE conversation_id = ? AND ${HISTORY_FILTER} ORDER BY id`)
    .all(conversationId) as RecordRow[];
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

/** Earlier entries handed to a runtime as context: the last `limit`, oldest first, thinking included. */
export function recentEntries(db: Db, conversationId: string, before: number, limit: number): ChatStreamRecord[] {
  const rows = db
    .prepare(
      `SELECT * FROM records WHERE conversation_id = ? AND id < ? AND ${HISTORY_FILTER} ORDER BY id DESC LIMIT ?`,
    )
    .all(conversationId, before, limit) as RecordRow[];
  return rows.reverse().map(toRecord);
}

/** The text of an agent's `assistant` message (used to read a reply aloud). */
export function findAgentMessageText(
  ctx: AppContext,
  conversationId: string,
  agentId: string,
  messageId: string,
): string | undefined {
  const row = ctx.db
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

// ---------------------------------------------------------------- turns

export function isTurnRunning(db: Db, conversationId: string): boolean {
  return !!db.prepare("SELECT 1 FROM turns WHERE conversation_id = ? AND status = 'running'").get(conversationId);
}

export function insertTurn(db: Db, conversationId: string): string {
  const id = randomId('t');
  db.prepare("INSERT INTO turns (id, conversation_id, status, started_at) VALUES (?, ?, 'running', ?)").run(
    id,
    conversationId,
    nowIso(),
  );
  return id;
}

/** Marks a turn ended. False when it had already ended (an interrupt won the race). */
export function markTurnEnded(db: Db, turnId: string, status: string): boolean {
  const { changes } = db
    .prepare("UPDATE turns SET status = ?, ended_at = ? WHERE id = ? AND status = 'running'")
    .run(status, nowIso(), turnId);
  return changes === 1;
}

/** The records of one turn, oldest first. */
export function turnRecords(db: Db, turnId: string): ChatStreamRecord[] {
  return (db.prepare('SELECT * FROM records WHERE turn_id = ? ORDER BY id').all(turnId) as RecordRow[]).map(toRecord);
}

export function runningTurns(db: Db): { id: string; conversation_id: string; started_at: string }[] {
  return db.prepare("SELECT id, conversation_id, started_at FROM turns WHERE status = 'running'").all() as {
    id: string;
    conversation_id: string;
    started_at: string;
  }[];
}
