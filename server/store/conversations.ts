import { nowIso, randomId } from '../ids.js';
import type { AddedColumn, Db } from './db.js';

/**
 * Conversations: who owns one and which agents answer in it. `last_seq`, `last_record` and `bytes` (the
 * size of its records' JSON) are kept by records.ts as records are appended. A training conversation is
 * unique per (agent, operator).
 */
export const conversationsSchema = `
CREATE TABLE IF NOT EXISTS conversations (
  id TEXT PRIMARY KEY, kind TEXT NOT NULL, owner_id TEXT NOT NULL, workspace_id TEXT NOT NULL,
  agent_ids TEXT NOT NULL, training_agent_id TEXT, last_seq INTEGER NOT NULL DEFAULT 0,
  last_record INTEGER NOT NULL DEFAULT 0, bytes INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS conversations_by_owner ON conversations (owner_id, kind, last_record);
CREATE UNIQUE INDEX IF NOT EXISTS training_conversation ON conversations (training_agent_id, owner_id)
  WHERE kind = 'training';
`;

export const conversationsColumns: AddedColumn[] = [
  {
    table: 'conversations',
    column: 'bytes',
    definition: 'INTEGER NOT NULL DEFAULT 0',
    fill: `UPDATE conversations SET bytes =
      (SELECT COALESCE(SUM(length(CAST(raw AS BLOB))), 0) FROM records WHERE conversation_id = conversations.id)`,
  },
];

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

export function getConversation(db: Db, id: string): StoredConversation | undefined {
  const row = db.prepare('SELECT * FROM conversations WHERE id = ?').get(id) as ConversationRow | undefined;
  return row && toConversation(row);
}

/**
 * The owner's most recent chat, optionally limited to a workspace and to one set of agents (a widget
 * bound to one agent must not continue a conversation held with another).
 */
export function latestConversation(
  db: Db,
  ownerId: string,
  filter: { workspaceId?: string; agentIds?: string[] },
): StoredConversation | undefined {
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

export function createConversation(db: Db, c: Omit<StoredConversation, 'id'>): StoredConversation {
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
export function trainingConversation(
  db: Db,
  agent: { id: string; workspace_id: string },
  ownerId: string,
): StoredConversation {
  const row = db
    .prepare("SELECT * FROM conversations WHERE kind = 'training' AND training_agent_id = ? AND owner_id = ?")
    .get(agent.id, ownerId) as ConversationRow | undefined;
  if (row) return toConversation(row);
  return createConversation(db, { kind: 'training', ownerId, workspaceId: agent.workspace_id, agentIds: [agent.id] });
}
