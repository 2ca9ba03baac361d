import type { Db } from './db.js';
import { nowIso, randomId } from './ids.js';

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
    const row = await tx.get<ConversationRow>(
      "SELECT * FROM conversations WHERE kind = 'training' AND training_agent_id = ? AND owner_id = ?",
      agent.id,
      ownerId,
    );
    if (row) return toConversation(row);
    return createConversation(tx, { kind: 'training', ownerId, workspaceId: agent.workspace_id, agentIds: [agent.id] });
  });
}
