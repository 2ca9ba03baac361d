import type { FastifyRequest } from 'fastify';
import type { Db } from './db.js';
import { forbidden, notFound, unauthorized } from './errors.js';
import { type Credential, findCredential, type WorkspaceRow, workspaceBySlug } from './store/identity.js';

const INVALID = 'invalid Bearer token';

/** The bearer token of a request, if any. Never logged. */
export function bearerToken(req: FastifyRequest): string | undefined {
  const header = req.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/** Resolves the caller's credential, or throws 401 `invalid Bearer token`. */
export function requireCredential(db: Db, req: FastifyRequest): Credential {
  const token = bearerToken(req);
  const credential = token ? findCredential(db, token) : undefined;
  if (!credential) throw unauthorized(INVALID);
  const actAs = req.headers['x-act-as'];
  if (typeof actAs === 'string' && actAs !== '' && actAs !== userOf(credential)) {
    throw forbidden('cannot act as this account');
  }
  return credential;
}

function userOf(credential: Credential): string | undefined {
  return credential.kind === 'workspace_key' ? undefined : credential.userId;
}

/** whoami: only a workspace key, revoked ones refused. */
export function requireAnyWorkspaceKey(db: Db, req: FastifyRequest) {
  const credential = requireCredential(db, req);
  if (credential.kind !== 'workspace_key') throw unauthorized(INVALID);
  if (credential.revoked) throw forbidden('API key revoked');
  return credential;
}

/**
 * A workspace administration route of `slug`. `allowOwner` admits the owner's login state as well as the
 * workspace key (spec 5.3). Unknown slugs behave like another workspace's: a key cannot probe for them.
 */
export function requireWorkspaceAdmin(
  db: Db,
  req: FastifyRequest,
  slug: string,
  allowOwner: boolean,
): { workspace: WorkspaceRow; credential: Credential } {
  const credential = requireCredential(db, req);
  const workspace = workspaceBySlug(db, slug);
  switch (credential.kind) {
    case 'workspace_key':
      if (credential.revoked) throw forbidden('API key revoked');
      if (!workspace || workspace.id !== credential.workspaceId) throw forbidden('API key does not match workspace');
      return { workspace, credential };
    case 'owner':
      if (!allowOwner) throw unauthorized('workspace API key required');
      if (!workspace || workspace.id !== credential.workspaceId) throw forbidden('not the owner of this workspace');
      return { workspace, credential };
    case 'session':
      throw forbidden('not the owner of this workspace');
    case 'personal':
      throw unauthorized('workspace API key required');
  }
}

/**
 * SMS sign-in is for visitors who hold nothing yet (spec 5.3: "no credential" only); a request that sends a
 * credential anyway is refused rather than silently treated as anonymous.
 */
export function requireNoCredential(req: FastifyRequest): void {
  if (req.headers.authorization !== undefined) throw forbidden('SMS sign-in takes no credentials');
}

/** The user behind a conversation-side call: a session token or a personal API key. */
export interface Caller {
  userId: string;
  /** Set for session tokens: the workspace the token was minted in. */
  workspaceId?: string;
}

export function requireUser(db: Db, req: FastifyRequest): Caller {
  const credential = requireCredential(db, req);
  if (credential.kind === 'session') return { userId: credential.userId, workspaceId: credential.workspaceId };
  if (credential.kind === 'personal') return { userId: credential.userId };
  throw unauthorized('session token or personal API key required');
}

/** Training routes: the workspace key or the owner login of the workspace that holds `workspaceId`. */
export function requireWorkspaceOperator(db: Db, req: FastifyRequest, workspaceId: string): Credential {
  const credential = requireCredential(db, req);
  if (credential.kind === 'workspace_key') {
    if (credential.revoked) throw forbidden('API key revoked');
    if (credential.workspaceId !== workspaceId) throw notFound('agent not found');
    return credential;
  }
  if (credential.kind === 'owner') {
    if (credential.workspaceId !== workspaceId) throw notFound('agent not found');
    return credential;
  }
  throw unauthorized('workspace API key required');
}
