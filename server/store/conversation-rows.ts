import type { Db } from './db.js';
import { nowIso, randomId } from './ids.js';
import { deleteUploadsOf } from './upload-rows.js';

/**
 * Conversations (`conversations`): who owns one and which agents answer in it. `last_seq`, `last_record`
 * and `bytes` (the size of its records' JSON) are kept by record-rows.ts as records are appended. A training
 * conversation is unique per (agent, operator).
 */

export type ConversationKind = 'chat' | 'training';

/** A conversation as the service keeps it (the client's `Conversation` is a handle on one). */
export interface StoredConversation {
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

const toConversation = (row: ConversationRow): StoredConversation => ({
  id: row.id,
  kind: row.kind,
  ownerId: row.owner_id,
  workspaceId: row.workspace_id,
  agentIds: JSON.parse(row.agent_ids),
});

export async function getConversation(db: Db, id: string): Promise<StoredConversation | undefined> {
  const row = await db.get<ConversationRow>('SELECT * FROM conversations WHERE id = ?', id);
  return row && toConversation(row);
}

/**
 * Inside a transaction: locks the conversation's row until the transaction ends, so its writers (records,
 * turns, settling its orders, deleting it) go one at a time on every instance while other conversations write
 * at once; false when it does not exist. PostgreSQL: `FOR NO KEY UPDATE`, the lock a record write takes
 * before it draws ids (record-rows.ts), which rows referring to the conversation (a record, a feedback) do not
 * wait for. SQLite: one write transaction runs at a time already.
 */
export async function lockConversation(tx: Db, id: string): Promise<boolean> {
  const lock = tx.engine === 'postgres' ? ' FOR NO KEY UPDATE' : '';
  return !!(await tx.get(`SELECT 1 FROM conversations WHERE id = ?${lock}`, id));
}

/**
 * The owner's most recent chat, optionally limited to a workspace and to one set of agents (a widget
 * bound to one agent must not continue a conversation held with another).
 */
export async function latestConversation(
  db: Db,
  ownerId: string,
  filter: { workspaceId?: string; agentIds?: string[] },
): Promise<StoredConversation | undefined> {
  const workspace = filter.workspaceId ?? null;
  const agents = filter.agentIds ? JSON.stringify(filter.agentIds) : null;
  const row = await db.get<ConversationRow>(
    `SELECT * FROM conversations WHERE owner_id = ? AND kind = 'chat'
       AND (CAST(? AS TEXT) IS NULL OR workspace_id = ?) AND (CAST(? AS TEXT) IS NULL OR agent_ids = ?)
     ORDER BY last_record DESC LIMIT 1`,
    ownerId,
    workspace,
    workspace,
    agents,
    agents,
  );
  return row && toConversation(row);
}

export async function createConversation(db: Db, c: Omit<StoredConversation, 'id'>): Promise<StoredConversation> {
  const id = randomId('c');
  await db.run(
    `INSERT INTO conversations (id, kind, owner_id, workspace_id, agent_ids, training_agent_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
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
export function trainingConversation(
  db: Db,
  agent: { id: string; workspace_id: string },
  ownerId: string,
): Promise<StoredConversation> {
  return db.transaction(async (tx) => {
    await tx.lock(`training ${agent.id} ${ownerId}`);
    const row = await tx.get<ConversationRow>(
      "SELECT * FROM conversations WHERE kind = 'training' AND training_agent_id = ? AND owner_id = ?",
      agent.id,
      ownerId,
    );
    if (row) return toConversation(row);
    return createConversation(tx, {
      kind: 'training',
      ownerId,
      workspaceId: agent.workspace_id,
      agentIds: [agent.id],
    });
  });
}

// ---------------------------------------------------------------- the conversation list

/** A conversation as its owner's list shows it (`ConversationSummary` on the wire). */
export interface ListedConversation {
  id: string;
  title: string | null;
  agentIds: string[];
  createdAt: string;
  updatedAt: string;
  lastMessage: {
    role: 'user' | 'agent';
    text: string;
    agentName?: string;
  } | null;
}

interface ListedRow {
  id: string;
  title: string | null;
  agent_ids: string;
  created_at: string;
  last_message: string | null;
  last_record: number;
  updated_at: string | null;
}

/** Where a page of the list ends: the last conversation's newest record, then its id (ties: empty ones). */
export interface ListPosition {
  lastRecord: number;
  id: string;
}

const toListed = (row: ListedRow): ListedConversation => ({
  id: row.id,
  title: row.title,
  agentIds: JSON.parse(row.agent_ids),
  createdAt: row.created_at,
  updatedAt: row.updated_at ?? row.created_at,
  lastMessage: row.last_message ? JSON.parse(row.last_message) : null,
});

/**
 * The owner's chats (in one workspace, for a session token), newest record first, after `from` (a page's last
 * position); `limit + 1` rows are read so the caller knows whether another page follows.
 */
export async function listConversations(
  db: Db,
  ownerId: string,
  workspaceId: string | undefined,
  from: ListPosition | undefined,
  limit: number,
): Promise<{ conversations: ListedConversation[]; next?: ListPosition }> {
  const workspace = workspaceId ?? null;
  const rows = await db.all<ListedRow>(
    `SELECT c.id, c.title, c.agent_ids, c.created_at, c.last_message, c.last_record, r.created_at AS updated_at
     FROM conversations c LEFT JOIN records r ON r.id = c.last_record
     WHERE c.owner_id = ? AND c.kind = 'chat' AND (CAST(? AS TEXT) IS NULL OR c.workspace_id = ?)
       AND (CAST(? AS TEXT) IS NULL OR c.last_record < ? OR (c.last_record = ? AND c.id < ?))
     ORDER BY c.last_record DESC, c.id DESC LIMIT ?`,
    ownerId,
    workspace,
    workspace,
    from?.id ?? null,
    from?.lastRecord ?? 0,
    from?.lastRecord ?? 0,
    from?.id ?? '',
    limit + 1,
  );
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    conversations: page.map(toListed),
    ...(rows.length > limit && last ? { next: { lastRecord: Number(last.last_record), id: last.id } } : {}),
  };
}

/** One conversation as the list shows it. */
export async function listedConversation(db: Db, id: string): Promise<ListedConversation | undefined> {
  const row = await db.get<ListedRow>(
    `SELECT c.id, c.title, c.agent_ids, c.created_at, c.last_message, c.last_record, r.created_at AS updated_at
     FROM conversations c LEFT JOIN records r ON r.id = c.last_record WHERE c.id = ?`,
    id,
  );
  return row && toListed(row);
}

/**
 * Stores what the list shows of a conversation where it has none yet (a title or a preview stored meanwhile,
 * by a rename or an append, is kept).
 */
export async function fillListed(
  db: Db,
  id: string,
  fields: Pick<ListedConversation, 'title' | 'lastMessage'>,
): Promise<void> {
  await db.run(
    'UPDATE conversations SET title = COALESCE(title, ?), last_message = COALESCE(last_message, ?) WHERE id = ?',
    fields.title,
    fields.lastMessage ? JSON.stringify(fields.lastMessage) : null,
    id,
  );
}

export async function renameConversation(db: Db, id: string, title: string): Promise<void> {
  await db.run('UPDATE conversations SET title = ? WHERE id = ?', title, id);
}

/**
 * Deletes a conversation with everything it owns, in the transaction `db` (docs/server.md "What a conversation
 * owns", which test/server/schema-coverage.test.ts holds to the schema): its records, turns (a running one too:
 * the caller stops it), feedback, the calls of page tools, its handoff, its links to uploads and the uploads that go with it (`deleteUploadsOf`), and
 * the pending payment orders it asked for, canceled (orders are kept: they are the money's record). Returns the
 * ids of the uploads removed, whose files the caller deletes once committed; undefined when there was no such
 * conversation.
 */
export async function deleteConversation(db: Db, id: string): Promise<{ uploads: string[] } | undefined> {
  const conversation = await getConversation(db, id);
  if (!conversation) return undefined;
  await db.run(
    "UPDATE payment_orders SET status = 'canceled', resolved_at = ? WHERE conversation_id = ? AND status = 'pending'",
    nowIso(),
    id,
  );
  await db.run('DELETE FROM feedback WHERE conversation_id = ?', id);
  await db.run('DELETE FROM client_tool_calls WHERE conversation_id = ?', id);
  const uploads = await deleteUploadsOf(db, id, conversation.ownerId);
  await db.run('DELETE FROM records WHERE conversation_id = ?', id);
  await db.run('DELETE FROM turns WHERE conversation_id = ?', id);
  await db.run('DELETE FROM handoffs WHERE conversation_id = ?', id);
  await db.run('DELETE FROM conversations WHERE id = ?', id);
  return { uploads };
}

/** Which of `ids` are conversations still (a stream whose conversation was deleted meanwhile ends). */
export async function existingConversations(db: Db, ids: string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await db.all<{ id: string }>(
    `SELECT id FROM conversations WHERE id IN (${ids.map(() => '?').join(', ')})`,
    ...ids,
  );
  return new Set(rows.map((row) => row.id));
}
