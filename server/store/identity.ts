import type { Db } from './db.js';
import { hashSecret, nowIso, randomId } from './ids.js';

/**
 * Workspaces, their owners, keys, agents and members, and every credential that names a user (tables from
 * `workspaces` to `session_tokens` of migrations/0001-initial.sql).
 */

export interface WorkspaceRow {
  id: string;
  slug: string;
  display_name: string;
  status: string;
  sms_signup: number;
  owner_user_id: string;
  wallet: number;
  sms_daily_limit: number | null;
}

export interface AgentRow {
  id: string;
  workspace_id: string;
  name: string;
  description: string;
  avatar_url: string | null;
  runtime: string;
  created_at: string;
  /** The runtime's settings for this agent as JSON (the \`model\` runtime's endpoint, prompt, tools), or null. */
  options: string | null;
}

/** Who is calling, as resolved from the bearer token. */
export type Credential =
  | { kind: 'workspace_key'; keyId: string; workspaceId: string; revoked: boolean }
  | { kind: 'owner'; userId: string; workspaceId: string }
  | { kind: 'session'; userId: string; workspaceId: string; expiresAt: string }
  | { kind: 'personal'; userId: string };

export async function findCredential(db: Db, token: string): Promise<Credential | undefined> {
  const hash = hashSecret(token);
  const key = await db.get<{ id: string; workspace_id: string; revoked: number }>(
    'SELECT id, workspace_id, revoked FROM api_keys WHERE secret_hash = ?',
    hash,
  );
  if (key) return { kind: 'workspace_key', keyId: key.id, workspaceId: key.workspace_id, revoked: !!key.revoked };
  const session = await db.get<{ user_id: string; workspace_id: string; expires_at: string }>(
    'SELECT user_id, workspace_id, expires_at FROM session_tokens WHERE token_hash = ?',
    hash,
  );
  if (session) {
    if (Date.parse(session.expires_at) <= Date.now()) return undefined;
    return {
      kind: 'session',
      userId: session.user_id,
      workspaceId: session.workspace_id,
      expiresAt: session.expires_at,
    };
  }
  const owner = await db.get<{ user_id: string; workspace_id: string }>(
    'SELECT user_id, workspace_id FROM owner_logins WHERE token_hash = ?',
    hash,
  );
  if (owner) return { kind: 'owner', userId: owner.user_id, workspaceId: owner.workspace_id };
  const personal = await db.get<{ user_id: string }>('SELECT user_id FROM personal_keys WHERE secret_hash = ?', hash);
  if (personal) return { kind: 'personal', userId: personal.user_id };
  return undefined;
}

/** True once any workspace exists (a fresh database is seeded with the demo one). */
export async function hasWorkspaces(db: Db): Promise<boolean> {
  return !!(await db.get('SELECT 1 FROM workspaces LIMIT 1'));
}

export function workspaceBySlug(db: Db, slug: string): Promise<WorkspaceRow | undefined> {
  return db.get<WorkspaceRow>('SELECT * FROM workspaces WHERE slug = ?', slug);
}

export function workspaceById(db: Db, id: string): Promise<WorkspaceRow | undefined> {
  return db.get<WorkspaceRow>('SELECT * FROM workspaces WHERE id = ?', id);
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

/** Issues a session token: 256 random bits, only its hash is stored. */
export async function issueSessionToken(db: Db, userId: string, workspaceId: string, ttlSeconds: number) {
  const token = randomId('st', 32);
  const expiresAt = new Date(Date.now() + ttlSeconds * 1000).toISOString();
  await db.run(
    'INSERT INTO session_tokens (token_hash, user_id, workspace_id, expires_at) VALUES (?, ?, ?, ?)',
    hashSecret(token),
    userId,
    workspaceId,
    expiresAt,
  );
  return { token, user_id: userId, expires_at: expiresAt };
}

export interface WorkspaceSeed {
  slug: string;
  display_name: string;
  status?: string;
  sms_signup?: boolean;
  owner: { user_id: string; login_token: string; wallet?: number };
  api_keys: { id: string; secret: string; revoked?: boolean }[];
  agents: { id: string; name: string; runtime: string; description?: string; avatar_url?: string; options?: object }[];
}

/** Inserts a workspace with its owner login, keys and agents (fixtures and the demo seed). */
export async function insertWorkspace(db: Db, ws: WorkspaceSeed): Promise<string> {
  const id = randomId('ws', 9);
  const at = nowIso();
  await db.transaction(async (tx) => {
    await tx.run(
      `INSERT INTO workspaces (id, slug, display_name, status, sms_signup, owner_user_id, wallet, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      id,
      ws.slug,
      ws.display_name,
      ws.status ?? 'active',
      ws.sms_signup ? 1 : 0,
      ws.owner.user_id,
      ws.owner.wallet ?? 0,
      at,
    );
    await tx.run(
      'INSERT INTO owner_logins (token_hash, workspace_id, user_id) VALUES (?, ?, ?)',
      hashSecret(ws.owner.login_token),
      id,
      ws.owner.user_id,
    );
    for (const key of ws.api_keys) {
      await tx.run(
        'INSERT INTO api_keys (id, workspace_id, secret_hash, revoked, created_at) VALUES (?, ?, ?, ?, ?)',
        key.id,
        id,
        hashSecret(key.secret),
        key.revoked ? 1 : 0,
        at,
      );
    }
    for (const [ord, agent] of ws.agents.entries()) {
      await tx.run(
        `INSERT INTO agents (id, workspace_id, name, description, avatar_url, runtime, created_at, ord)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        agent.id,
        id,
        agent.name,
        agent.description ?? '',
        agent.avatar_url ?? null,
        agent.runtime,
        at,
        ord,
      );
      if (agent.options) await setAgentRuntime(tx, agent.id, { runtime: agent.runtime, options: agent.options });
    }
  });
  return id;
}

export async function insertPersonalKey(db: Db, secret: string, userId: string): Promise<void> {
  await db.run(
    'INSERT INTO personal_keys (secret_hash, user_id) VALUES (?, ?) ON CONFLICT (secret_hash) DO UPDATE SET user_id = excluded.user_id',
    hashSecret(secret),
    userId,
  );
}
