import { type AgentSeed, insertAgent } from './agent-rows.js';
import { insertApiKey, insertOwnerLogin } from './credential-rows.js';
import type { Db } from './db.js';
import { nowIso, randomId } from './ids.js';

/** Workspaces (`workspaces`): each one's slug, owner, wallet, SMS and operator settings. */

export interface WorkspaceRow {
  id: string;
  slug: string;
  display_name: string;
  status: string;
  sms_signup: number;
  owner_user_id: string;
  wallet: number;
  sms_daily_limit: number | null;
  /** 1 when the workspace's staff take conversations over (operators, our extension). */
  operators: number;
  /** How long a visitor waits for a person before an agent asks for contact details; null: the service's default. */
  handoff_wait_seconds: number | null;
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

/** The owner's wallet: the credits the workspace may still grant. */
export async function walletOf(db: Db, workspaceId: string): Promise<number> {
  const row = await db.get<{ wallet: number }>('SELECT wallet FROM workspaces WHERE id = ?', workspaceId);
  return row!.wallet;
}

export async function setWallet(db: Db, workspaceId: string, wallet: number): Promise<void> {
  await db.run('UPDATE workspaces SET wallet = ? WHERE id = ?', wallet, workspaceId);
}

/** Sets the workspace's own cap on SMS codes per 24 hours; null returns to the service's default. */
export async function setSmsDailyLimit(db: Db, workspaceId: string, limit: number | null): Promise<void> {
  await db.run('UPDATE workspaces SET sms_daily_limit = ? WHERE id = ?', limit, workspaceId);
}

/** Sets whether the workspace's staff take conversations over, and how long a visitor waits for one. */
export async function setOperators(
  db: Db,
  workspaceId: string,
  operators: { wait_seconds?: number } | undefined,
): Promise<void> {
  await db.run(
    'UPDATE workspaces SET operators = ?, handoff_wait_seconds = ? WHERE id = ?',
    operators ? 1 : 0,
    operators?.wait_seconds ?? null,
    workspaceId,
  );
}

export interface WorkspaceSeed {
  slug: string;
  display_name: string;
  status?: string;
  sms_signup?: boolean;
  owner: { user_id: string; login_token: string; wallet?: number };
  /** Set when the workspace's staff take conversations over. */
  operators?: { wait_seconds?: number };
  api_keys: { id: string; secret: string; revoked?: boolean }[];
  agents: AgentSeed[];
}

/** Inserts a workspace with its owner login, keys and agents (fixtures and the demo seed). */
export async function insertWorkspace(db: Db, ws: WorkspaceSeed): Promise<string> {
  const id = randomId('ws', 9);
  const at = nowIso();
  await db.transaction(async (tx) => {
    await tx.run(
      `INSERT INTO workspaces (id, slug, display_name, status, sms_signup, owner_user_id, wallet, created_at, operators,
         handoff_wait_seconds)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      id,
      ws.slug,
      ws.display_name,
      ws.status ?? 'active',
      ws.sms_signup ? 1 : 0,
      ws.owner.user_id,
      ws.owner.wallet ?? 0,
      at,
      ws.operators ? 1 : 0,
      ws.operators?.wait_seconds ?? null,
    );
    await insertOwnerLogin(tx, id, ws.owner);
    for (const key of ws.api_keys) await insertApiKey(tx, id, key, at);
    for (const [ord, agent] of ws.agents.entries()) await insertAgent(tx, id, agent, ord, at);
  });
  return id;
}
