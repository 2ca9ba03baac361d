import type { Db } from './db.js';

/**
 * A workspace's agents (`agents`) and the settings of their runtimes (`agent_options`), in the order the
 * fixture or the demo seed gave them.
 */

export interface AgentRow {
  id: string;
  workspace_id: string;
  name: string;
  description: string;
  avatar_url: string | null;
  runtime: string;
  created_at: string;
  /** The runtime's settings for this agent as JSON (the `model` runtime's endpoint, prompt, tools), or null. */
  options: string | null;
  /** Prompts a chat offers before its first message, as a JSON array of strings, or null. */
  starter_prompts: string | null;
}

/** An agent as a fixture or the demo seed describes it. */
export interface AgentSeed {
  id: string;
  name: string;
  runtime: string;
  description?: string;
  avatar_url?: string;
  options?: object;
  starter_prompts?: string[];
}

const AGENT_COLUMNS = 'agents.*, agent_options.options FROM agents LEFT JOIN agent_options ON agent_id = agents.id';

export function agentById(db: Db, id: string): Promise<AgentRow | undefined> {
  return db.get<AgentRow>(`SELECT ${AGENT_COLUMNS} WHERE id = ?`, id);
}

export function agentsOfWorkspace(db: Db, workspaceId: string, limit = 500): Promise<AgentRow[]> {
  return db.all<AgentRow>(
    `SELECT ${AGENT_COLUMNS} WHERE workspace_id = ? ORDER BY ord, created_at LIMIT ?`,
    workspaceId,
    limit,
  );
}

/** An agent's starter prompts (none: an empty list). */
export const starterPromptsOf = (agent: AgentRow): string[] =>
  agent.starter_prompts ? (JSON.parse(agent.starter_prompts) as string[]) : [];

/** Stores an agent of a new workspace, `ord`-th in its list. */
export async function insertAgent(db: Db, workspaceId: string, agent: AgentSeed, ord: number, at: string) {
  await db.run(
    `INSERT INTO agents (id, workspace_id, name, description, avatar_url, runtime, created_at, ord, starter_prompts)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    agent.id,
    workspaceId,
    agent.name,
    agent.description ?? '',
    agent.avatar_url ?? null,
    agent.runtime,
    at,
    ord,
    agent.starter_prompts?.length ? JSON.stringify(agent.starter_prompts) : null,
  );
  if (agent.options) await setAgentRuntime(db, agent.id, { runtime: agent.runtime, options: agent.options });
}

/**
 * Sets an agent's runtime and its settings (none removes them), and its description when given; false when
 * no such agent exists.
 */
export function setAgentRuntime(
  db: Db,
  agentId: string,
  change: { runtime: string; options?: object; description?: string },
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const updated = await tx.run(
      'UPDATE agents SET runtime = ?, description = coalesce(?, description) WHERE id = ?',
      change.runtime,
      change.description ?? null,
      agentId,
    );
    if (updated === 0) return false;
    if (change.options) {
      await tx.run(
        'INSERT INTO agent_options (agent_id, options) VALUES (?, ?) ON CONFLICT (agent_id) DO UPDATE SET options = excluded.options',
        agentId,
        JSON.stringify(change.options),
      );
    } else await tx.run('DELETE FROM agent_options WHERE agent_id = ?', agentId);
    return true;
  });
}
