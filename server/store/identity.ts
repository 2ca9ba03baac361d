import { hashSecret, nowIso, randomId } from '../ids.js';
import type { AddedColumn, Db } from './db.js';

/** Workspaces, their owners, keys, agents and members, and every credential that names a user. */
export const identitySchema = `
CREATE TABLE IF NOT EXISTS workspaces (
  id TEXT PRIMARY KEY, slug TEXT NOT NULL UNIQUE, display_name TEXT NOT NULL, status TEXT NOT NULL,
  sms_signup INTEGER NOT NULL DEFAULT 0, owner_user_id TEXT NOT NULL, wallet REAL NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL, sms_daily_limit INTEGER
);
CREATE TABLE IF NOT EXISTS api_keys (
  id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL REFERENCES workspaces(id),
  secret_hash TEXT NOT NULL UNIQUE, revoked INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS owner_logins (
  token_hash TEXT PRIMARY KEY, workspace_id TEXT NOT NULL REFERENCES workspaces(id), user_id TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS personal_keys (
  secret_hash TEXT PRIMARY KEY, user_id TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS agents (
  id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL REFERENCES workspaces(id), name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '', avatar_url TEXT, runtime TEXT NOT NULL, created_at TEXT NOT NULL,
  ord INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS agent_options (
  agent_id TEXT PRIMARY KEY REFERENCES agents(id), options TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS members (
  user_id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL REFERENCES workspaces(id),
  sp_user_ref TEXT NOT NULL, display_name TEXT, billing_account_id TEXT NOT NULL,
  status TEXT NOT NULL, joined_at TEXT NOT NULL, balance REAL NOT NULL DEFAULT 0,
  UNIQUE (workspace_id, sp_user_ref)
);
CREATE TABLE IF NOT EXISTS session_tokens (
  token_hash TEXT PRIMARY KEY, user_id TEXT NOT NULL, workspace_id TEXT NOT NULL, expires_at TEXT NOT NULL
);
`;

/** `sms_daily_limit`: the owner's own cap on SMS codes per 24 hours; null for the service's default. */
export const identityColumns: AddedColumn[] = [
  { table: 'workspaces', column: 'sms_daily_limit', definition: 'INTEGER' },
];

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

export function findCredential(db: Db, token: string): Credential | undefined {
  const hash = hashSecret(token);
  const key = db.prepare('SELECT id, workspace_id, revoked FROM api_keys WHERE secret_hash = ?').get(hash) as
    | { id: string; workspace_id: string; revoked: number }
    | undefined;
  if (key) return { kind: 'workspace_key', keyId: key.id, workspaceId: key.workspace_id, revoked: !!key.revoked };
  const session = db
    .prepare('SELECT user_id, workspace_id, expires_at FROM session_tokens WHERE token_hash = ?')
    .get(hash) as { user_id: string; workspace_id: string; expires_at: string } | undefined;
  if (session) {
    if (Date.parse(session.expires_at) <= Date.now()) return undefined;
    return {
      kind: 'session',
      userId: session.user_id,
      workspaceId: session.workspace_id,
      expiresAt: session.expires_at,
    };
  }
  const owner = db.prepare('SELECT user_id, workspace_id FROM owner_logins WHERE token_hash = ?').get(hash) as
    | { user_id: string; workspace_id: string }
    | undefined;
  if (owner) return { kind: 'owner', userId: owner.user_id, workspaceId: owner.workspace_id };
  const personal = db.prepare('SELECT user_id FROM personal_keys WHERE secret_hash = ?').get(hash) as
    | { user_id: string }
    | undefined;
  if (personal) return { kind: 'personal', userId: personal.user_id };
  return undefined;
}

/** True once any workspace exists (a fresh database is seeded with the demo one). */
export function hasWorkspaces(db: Db): boolean {
  return !!db.prepare('SELECT 1 FROM workspaces LIMIT 1').get();
}

export function workspaceBySlug(db: Db, slug: string): WorkspaceRow | undefined {
  return db.prepare('SELECT * FROM workspaces WHERE slug = ?').get(slug) as WorkspaceRow | undefined;
}

export function workspaceById(db: Db, id: string): WorkspaceRow | undefined {
  return db.prepare('SELECT * FROM workspaces WHERE id = ?').get(id) as WorkspaceRow | undefined;
}

const AGENT_COLUMNS = 'agents.*, agent_options.options FROM agents LEFT JOIN agent_options ON agent_id = agents.id';

export function agentById(db: Db, id: string): AgentRow | undefined {
  return db.prepare(`SELECT ${AGENT_COLUMNS} WHERE id = ?`).get(id) as AgentRow | undefined;
}

export function agentsOfWorkspace(db: Db, workspaceId: string, limit = 500): AgentRow[] {
  return db
    .prepare(`SELECT ${AGENT_COLUMNS} WHERE workspace_id = ? ORDER BY ord, created_at LIMIT ?`)
    .all(workspaceId, limit) as AgentRow[];
}

/**
 * Sets an agent's runtime and its settings (none removes them), and its description when given; false when
 * no such agent exists.
 */
export function setAgentRuntime(
  db: Db,
  agentId: string,
  change: { runtime: string; options?: object; description?: string },
): boolean {
  return db.transaction(() => {
    const updated = db
      .prepare('UPDATE agents SET runtime = ?, description = coalesce(?, description) WHERE id = ?')
      .run(change.runtime, change.description ?? null, agentId);
    if (updated.changes === 0) return false;
    if (change.options) {
      db.prepare(
        'INSERT INTO agent_options (agent_id, options) VALUES (?, ?) ON CONFLICT (agent_id) DO UPDATE SET options = excluded.options',
      ).run(agentId, JSON.stringify(change.options));
    } else db.prepare('DELETE FROM agent_options WHERE agent_id = ?').run(agentId);
    return true;
  })();
}

/** Issues a session token: 256 random bits, only its hash is stored. */
export function issueSessionToken(db: Db, userId: string, workspaceId: string, ttlSeconds: number) {
  const token = randomId('st', 32);
  const expiresAt = new Date(Date.now() + ttlSeconds * 1000).toISOString();
  db.prepare('INSERT INTO session_tokens (token_hash, user_id, workspace_id, expires_at) VALUES (?, ?, ?, ?)').run(
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
export function insertWorkspace(db: Db, ws: WorkspaceSeed): string {
  const id = randomId('ws', 9);
  const at = nowIso();
  db.transaction(() => {
    db.prepare(
      `INSERT INTO workspaces (id, slug, display_name, status, sms_signup, owner_user_id, wallet, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      id,
      ws.slug,
      ws.display_name,
      ws.status ?? 'active',
      ws.sms_signup ? 1 : 0,
      ws.owner.user_id,
      ws.owner.wallet ?? 0,
      at,
    );
    db.prepare('INSERT INTO owner_logins (token_hash, workspace_id, user_id) VALUES (?, ?, ?)').run(
      hashSecret(ws.owner.login_token),
      id,
      ws.owner.user_id,
    );
    for (const key of ws.api_keys) {
      db.prepare(
        'INSERT INTO api_keys (id, workspace_id, secret_hash, revoked, created_at) VALUES (?, ?, ?, ?, ?)',
      ).run(key.id, id, hashSecret(key.secret), key.revoked ? 1 : 0, at);
    }
    ws.agents.forEach((agent, ord) => {
      db.prepare(
        `INSERT INTO agents (id, workspace_id, name, description, avatar_url, runtime, created_at, ord)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(agent.id, id, agent.name, agent.description ?? '', agent.avatar_url ?? null, agent.runtime, at, ord);
      if (agent.options) setAgentRuntime(db, agent.id, { runtime: agent.runtime, options: agent.options });
    });
  })();
  return id;
}

export function insertPersonalKey(db: Db, secret: string, userId: string): void {
  db.prepare('INSERT OR REPLACE INTO personal_keys (secret_hash, user_id) VALUES (?, ?)').run(
    hashSecret(secret),
    userId,
  );
}
