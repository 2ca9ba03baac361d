import { type Caller, ownConversation } from '../http/auth.js';
import { Refusal } from '../services/refusal.js';
import { type AgentRow, agentById, agentsOfWorkspace } from '../store/agent-rows.js';
import { createConversation, latestConversation, type StoredConversation } from '../store/conversation-rows.js';
import type { Db } from '../store/db.js';

/**
 * The conversation a send goes to: the named one; else, unless `newConversation`, the caller's most
 * recent one (with the same agents when `targetAgentIds` is given; in the token's workspace for a session
 * token); else a new one with `targetAgentIds` or the first agent of the token's workspace.
 */
export async function resolveConversation(
  tx: Db,
  caller: Caller,
  body: { conversationId?: string; targetAgentIds?: string[]; newConversation?: boolean },
): Promise<StoredConversation> {
  if (body.conversationId) return ownConversation(tx, caller, body.conversationId);
  let agents: AgentRow[] | undefined;
  if (body.targetAgentIds) {
    agents = [];
    for (const id of new Set(body.targetAgentIds)) agents.push(await allowedAgent(tx, caller, id));
  }
  const agentIds = agents?.map((a) => a.id);
  if (!body.newConversation) {
    const latest = await latestConversation(tx, caller.userId, { workspaceId: caller.workspaceId, agentIds });
    if (latest) return latest;
  }
  const first = agents?.[0] ?? (await defaultAgent(tx, caller));
  return createConversation(tx, {
    kind: 'chat',
    ownerId: caller.userId,
    workspaceId: first.workspace_id,
    agentIds: agentIds ?? [first.id],
  });
}

/** A session token reaches the agents of its workspace; a personal key any agent. Others: `agent_not_found`. */
export async function allowedAgent(db: Db, caller: Caller, agentId: string): Promise<AgentRow> {
  const agent = await agentById(db, agentId);
  if (!agent || (caller.workspaceId && agent.workspace_id !== caller.workspaceId)) throw new Refusal('agent_not_found');
  return agent;
}

/** The first agent of a session token's workspace; a personal key must name its agents (`no_agent_named`). */
async function defaultAgent(db: Db, caller: Caller): Promise<AgentRow> {
  if (!caller.workspaceId) throw new Refusal('no_agent_named');
  const [first] = await agentsOfWorkspace(db, caller.workspaceId, 1);
  if (!first) throw new Refusal('agent_not_found');
  return first;
}
