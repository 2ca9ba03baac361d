import type { OperatorIdentity, OperatorSession, SessionToken } from '@svc/agent-sdk/protocol';
import type { Db } from './db.js';
import { hashSecret, randomId } from './ids.js';
import { identityOf } from './operator-rows.js';

/**
 * Every credential that names a caller (spec section 5): workspace API keys (`api_keys`), owner logins
 * (`owner_logins`), personal API keys (`personal_keys`), session tokens (`session_tokens`) and, our extension,
 * operators' session tokens (`operator_sessions`), each stored only as its SHA-256. The one place session tokens
 * are issued (to whom: services/members.ts and services/operators.ts decide).
 */

/** Who is calling, as resolved from the bearer token. */
export type Credential =
  | { kind: 'workspace_key'; keyId: string; workspaceId: string; revoked: boolean }
  | { kind: 'owner'; userId: string; workspaceId: string }
  | { kind: 'session'; userId: string; workspaceId: string; expiresAt: string }
  | { kind: 'personal'; userId: string }
  | { kind: 'operator'; operator: OperatorIdentity; workspaceId: string; expiresAt: string };

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
  const operator = await db.get<{
    id: string;
    workspace_id: string;
    display_name: string;
    avatar_url: string | null;
    expires_at: string;
  }>(
    `SELECT o.id, o.workspace_id, o.display_name, o.avatar_url, s.expires_at
     FROM operator_sessions s JOIN operators o ON o.id = s.operator_id WHERE s.token_hash = ?`,
    hash,
  );
  if (operator) {
    if (Date.parse(operator.expires_at) <= Date.now()) return undefined;
    return {
      kind: 'operator',
      operator: identityOf(operator),
      workspaceId: operator.workspace_id,
      expiresAt: operator.expires_at,
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

/** A new workspace's owner login. */
export async function insertOwnerLogin(db: Db, workspaceId: string, owner: { user_id: string; login_token: string }) {
  await db.run(
    'INSERT INTO owner_logins (token_hash, workspace_id, user_id) VALUES (?, ?, ?)',
    hashSecret(owner.login_token),
    workspaceId,
    owner.user_id,
  );
}

/** A workspace API key (revoked ones too: a fixture may list them). */
export async function insertApiKey(
  db: Db,
  workspaceId: string,
  key: { id: string; secret: string; revoked?: boolean },
  at: string,
) {
  await db.run(
    'INSERT INTO api_keys (id, workspace_id, secret_hash, revoked, created_at) VALUES (?, ?, ?, ?, ?)',
    key.id,
    workspaceId,
    hashSecret(key.secret),
    key.revoked ? 1 : 0,
    at,
  );
}

export async function insertPersonalKey(db: Db, secret: string, userId: string): Promise<void> {
  await db.run(
    'INSERT INTO personal_keys (secret_hash, user_id) VALUES (?, ?) ON CONFLICT (secret_hash) DO UPDATE SET user_id = excluded.user_id',
    hashSecret(secret),
    userId,
  );
}

/** Issues a session token: 256 random bits, only its hash is stored. */
export async function issueSessionToken(
  db: Db,
  userId: string,
  workspaceId: string,
  ttlSeconds: number,
): Promise<SessionToken> {
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

/** Issues an operator's session token (`ot_` and 256 random bits; only its hash is stored). */
export async function issueOperatorToken(db: Db, operatorId: string, ttlSeconds: number): Promise<OperatorSession> {
  const token = randomId('ot', 32);
  const expiresAt = new Date(Date.now() + ttlSeconds * 1000).toISOString();
  await db.run(
    'INSERT INTO operator_sessions (token_hash, operator_id, expires_at) VALUES (?, ?, ?)',
    hashSecret(token),
    operatorId,
    expiresAt,
  );
  return { token, operator_id: operatorId, expires_at: expiresAt };
}
