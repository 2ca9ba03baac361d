import type { OperatorIdentity } from '@svc/agent-sdk/protocol';
import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { z } from 'zod';
import { type AgentRow, agentById } from '../store/agent-rows.js';
import { getConversation, type StoredConversation, trainingConversation } from '../store/conversation-rows.js';
import { type Credential, findCredential } from '../store/credential-rows.js';
import type { Db } from '../store/db.js';
import { type WorkspaceRow, workspaceBySlug } from '../store/workspace-rows.js';
import { forbidden, notFound, type Refusals, unauthorized } from './errors.js';

/*
 * Who may call what (spec section 5, docs/protocol.md "Credentials"). Each route plugin checks the
 * credential in one `onRequest` hook, so a bad credential is refused before the body is even read, let
 * alone validated; the route's `security` (its OpenAPI security requirement) says what it takes.
 */

/** The credentials of spec section 5: each a bearer token, told apart by what the token is. */
export const securitySchemes = {
  workspaceKey: { type: 'http', scheme: 'bearer', description: 'A workspace API key (`sk_…`).' },
  ownerLogin: {
    type: 'http',
    scheme: 'bearer',
    description: "The workspace owner's login state; the header `X-Login-Type` may accompany it.",
  },
  sessionToken: {
    type: 'http',
    scheme: 'bearer',
    description: "A visitor's session token (`st_…`) from mintSession or verifySmsCode; it expires.",
  },
  personalKey: { type: 'http', scheme: 'bearer', description: 'A personal API key (`pk_…`).' },
  operatorToken: {
    type: 'http',
    scheme: 'bearer',
    description:
      "A person of the workspace's staff: an operator's session token (`ot_…`) from `POST /workspaces/{slug}/operators/sessions`; it expires.",
  },
} as const;

type Scheme = keyof typeof securitySchemes;
const anyOf = (...schemes: Scheme[]) => schemes.map((scheme) => ({ [scheme]: [] as string[] }));

/** The security requirement of each kind of route. */
export const security = {
  workspaceKey: anyOf('workspaceKey'),
  workspaceKeyOrOwner: anyOf('workspaceKey', 'ownerLogin'),
  user: anyOf('sessionToken', 'personalKey'),
  userOrOperator: anyOf('sessionToken', 'personalKey', 'operatorToken'),
  operator: anyOf('operatorToken'),
  none: [],
};

/** The headers that may come with any credential (spec 4.4), for the description of the routes that take one. */
export const credentialHeaders = {
  'x-act-as': z
    .string()
    .optional()
    .describe(
      'Call as this user id, one the caller owns. This service has no service accounts: only the caller itself ' +
        'is accepted; anyone else is 403 `cannot act as this account`.',
    ),
};

/** The header that may come with the owner's login state (spec 4.4): accepted, and not needed. */
export const ownerLoginHeaders = {
  'x-login-type': z
    .string()
    .optional()
    .describe("The kind of login state, with the owner's; this service does not read it."),
};

declare module 'fastify' {
  interface FastifyRequest {
    /** The credential of a workspace administration call (workspaceAdminHook). */
    credential: Credential;
    /** The user behind a conversation-side call (userHook). */
    caller: Caller;
    /** The workspace an administration call acts on (workspaceAdminHook). */
    workspace: WorkspaceRow;
    /** The agent of a training call and the caller's training conversation with it (trainingHook). */
    training: { agent: AgentRow; conversation: StoredConversation };
    /** The person of the staff behind an operators' call (operatorHook). */
    operator: OperatorCaller;
    /** The bearer token named a credential (the rate limit then counts the request as that credential's). */
    credentialChecked: boolean;
  }
}

const INVALID = 'invalid Bearer token';
const OPERATOR_REQUIRED = 'operator session token required';

/** The bearer token of a request, if any. Never logged. */
export function bearerToken(req: FastifyRequest): string | undefined {
  const header = req.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/** Resolves the caller's credential, or throws 401 `invalid Bearer token`. */
async function requireCredential(db: Db, req: FastifyRequest): Promise<Credential> {
  const token = bearerToken(req);
  const credential = token ? await findCredential(db, token) : undefined;
  if (!credential) throw unauthorized(INVALID);
  req.credentialChecked = true;
  const actAs = req.headers['x-act-as'];
  const user =
    credential.kind === 'workspace_key'
      ? undefined
      : credential.kind === 'operator'
        ? credential.operator.id
        : credential.userId;
  if (typeof actAs === 'string' && actAs !== '' && actAs !== user) throw forbidden('cannot act as this account');
  return credential;
}

/** A key that is not revoked, or 403 `API key revoked` (checked before anything else about the key). */
function liveKey(credential: Credential & { kind: 'workspace_key' }) {
  if (credential.revoked) throw forbidden('API key revoked');
  return credential;
}

/**
 * Workspace administration. whoami (no `{slug}`) takes only a workspace key, and answers anything else
 * with 401 `invalid Bearer token`. A route of `{slug}` takes that workspace's key, and its owner's login
 * state when the route's security lists `ownerLogin`. Unknown slugs behave like another workspace's: a
 * key cannot probe for them.
 */
export function workspaceAdminHook(db: Db): onRequestAsyncHookHandler {
  return async (req) => {
    const credential = await requireCredential(db, req);
    req.credential = credential;
    const { slug } = req.params as { slug?: string };
    if (slug === undefined) {
      if (credential.kind !== 'workspace_key') throw unauthorized(INVALID);
      liveKey(credential);
      return;
    }
    const workspace = await workspaceBySlug(db, slug);
    switch (credential.kind) {
      case 'workspace_key':
        if (!workspace || workspace.id !== liveKey(credential).workspaceId) {
          throw forbidden('API key does not match workspace');
        }
        break;
      case 'owner':
        if (!accepts(req, 'ownerLogin')) throw unauthorized('workspace API key required');
        if (!workspace || workspace.id !== credential.workspaceId) throw forbidden('not the owner of this workspace');
        break;
      case 'session':
      case 'operator':
        throw forbidden('not the owner of this workspace');
      case 'personal':
        throw unauthorized('workspace API key required');
    }
    req.workspace = workspace;
  };
}

/** Whether the route's security lists `scheme` (the owner's login beside the key; an operator beside users). */
function accepts(req: FastifyRequest, scheme: Scheme): boolean {
  const requirements = (req.routeOptions.schema?.security ?? []) as Record<string, unknown>[];
  return requirements.some((requirement) => scheme in requirement);
}

/**
 * SMS sign-in is for visitors who hold nothing yet (spec 5.3: "no credential" only); a request that sends a
 * credential anyway is refused rather than silently treated as anonymous.
 */
export const noCredentialHook: onRequestAsyncHookHandler = async (req) => {
  if (req.headers.authorization !== undefined) throw forbidden('SMS sign-in takes no credentials');
};

/** The user behind a conversation-side call: a session token or a personal API key. */
export interface Caller {
  userId: string;
  /** Set for session tokens: the workspace the token was minted in. */
  workspaceId?: string;
  /** Set for session tokens: when the token stops working (an open stream ends then). */
  expiresAt?: string;
}

/**
 * Conversation-side routes: a session token or a personal API key; an operator's token where the route's security
 * lists it (the upload of a file for a person's message). A route whose security is empty takes none.
 */
export function userHook(db: Db): onRequestAsyncHookHandler {
  return async (req) => {
    if (req.routeOptions.schema?.security?.length === 0) return;
    const credential = await requireCredential(db, req);
    if (credential.kind === 'session') {
      const { userId, workspaceId, expiresAt } = credential;
      req.caller = { userId, workspaceId, expiresAt };
    } else if (credential.kind === 'personal') req.caller = { userId: credential.userId };
    else if (credential.kind === 'operator' && accepts(req, 'operatorToken')) {
      // An upload for a person's message: the operator uploads as itself, apart from every user.
      const { operator, workspaceId, expiresAt } = credential;
      req.caller = { userId: operatorKey(operator), workspaceId, expiresAt };
    } else throw unauthorized('session token or personal API key required');
  };
}

/**
 * Training routes: the workspace key or the owner login of the workspace that holds the agent `{id}`;
 * an unknown agent fails that match (404 `agent not found`, after the credential checks). Each trainer
 * (a key, the owner) has a training conversation of its own with the agent, created on first use.
 */
export function trainingHook(db: Db): onRequestAsyncHookHandler {
  return async (req) => {
    const credential = await requireCredential(db, req);
    const agent = await agentById(db, (req.params as { id: string }).id);
    if (credential.kind === 'workspace_key') liveKey(credential);
    else if (credential.kind !== 'owner') throw unauthorized('workspace API key required');
    if (!agent || credential.workspaceId !== agent.workspace_id) throw notFound('agent not found');
    const operator = credential.kind === 'workspace_key' ? `key:${credential.keyId}` : `owner:${credential.userId}`;
    req.training = { agent, conversation: await trainingConversation(db, agent, operator) };
  };
}

/** A person of the workspace's staff, behind an operators' call. */
export interface OperatorCaller {
  identity: OperatorIdentity;
  workspaceId: string;
  /** When the token stops working (an open stream ends then). */
  expiresAt: string;
}

/**
 * The operators' routes (docs/protocol.md "A person in the conversation"): an operator's session token, nothing
 * else; a visitor's token or a workspace key is 401 `operator session token required`.
 */
export function operatorHook(db: Db): onRequestAsyncHookHandler {
  return async (req) => {
    const credential = await requireCredential(db, req);
    if (credential.kind !== 'operator') throw unauthorized(OPERATOR_REQUIRED);
    const { operator, workspaceId, expiresAt } = credential;
    req.operator = { identity: operator, workspaceId, expiresAt };
  };
}

/**
 * An operator where the service counts and keeps what a caller holds (open streams, kept send results, uploads):
 * `operator:<id>`, apart from every user id.
 */
export const operatorKey = (operator: OperatorIdentity) => `operator:${operator.id}`;

/** A chat of the operator's workspace: any other (another workspace's, a training one, none) is 404 `conversation not found`. */
export async function operatorConversation(
  db: Db,
  operator: OperatorCaller,
  conversationId: string,
): Promise<StoredConversation> {
  const conversation = await getConversation(db, conversationId);
  if (conversation?.kind !== 'chat' || conversation.workspaceId !== operator.workspaceId) {
    throw notFound('conversation not found');
  }
  return conversation;
}

/** The caller's own chat: anyone else's (or a training one, or none) is 404 `conversation not found`, never 403. */
export async function ownConversation(db: Db, caller: Caller, conversationId: string): Promise<StoredConversation> {
  const conversation = await getConversation(db, conversationId);
  if (conversation?.kind !== 'chat' || conversation.ownerId !== caller.userId) throw notFound('conversation not found');
  return conversation;
}

/*
 * What the hooks above refuse, for the description of the routes they guard (openapi.ts lists each with when).
 */

const ACT_AS = { 'cannot act as this account': '`X-Act-As` names anyone but the caller.' };
const REVOKED = { 'API key revoked': 'The workspace API key was revoked.' };

/** whoami: a workspace key and nothing else. */
export const WHOAMI_REFUSALS: Refusals = {
  401: { [INVALID]: 'No credential, one that matches nothing, or any credential but a workspace API key.' },
  403: { ...REVOKED, ...ACT_AS },
};

/** A route of `{slug}` under workspaceAdminHook; `owner` when its security takes the owner's login state too. */
export const workspaceAdminRefusals = (owner: boolean): Refusals => ({
  401: {
    [INVALID]: 'No credential, or one that matches nothing (an expired session token too).',
    'workspace API key required': owner
      ? 'A personal API key.'
      : "The owner's login state or a personal API key: this route takes only the workspace API key.",
  },
  403: {
    ...REVOKED,
    'API key does not match workspace': 'The key is of another workspace, or `{slug}` names none.',
    'not the owner of this workspace': owner
      ? "A session token (a visitor's or an operator's), or the owner's login state of another workspace."
      : 'A session token: neither a visitor nor an operator administers a workspace.',
    ...ACT_AS,
  },
});

/** userHook: a session token or a personal API key. */
export const USER_REFUSALS: Refusals = {
  401: {
    [INVALID]: 'No credential, one that matches nothing, or an expired session token.',
    'session token or personal API key required':
      "A workspace API key, the owner's login state, or an operator's session token (operators have routes of their own).",
  },
  403: ACT_AS,
};

/** ownConversation: the caller's own chat. */
export const CONVERSATION_REFUSALS: Refusals = {
  404: { 'conversation not found': "The conversation does not exist, or it is not the caller's." },
};

/** operatorHook: an operator's session token. */
export const OPERATOR_REFUSALS: Refusals = {
  401: {
    [INVALID]: 'No credential, one that matches nothing, or an expired operator session token.',
    [OPERATOR_REQUIRED]:
      "Any other credential: a visitor's session token, a personal or workspace API key, the owner's login.",
  },
  403: ACT_AS,
};

/** operatorConversation: a chat of the operator's workspace. */
export const OPERATOR_CONVERSATION_REFUSALS: Refusals = {
  404: { 'conversation not found': "The conversation does not exist, or it is not of the operator's workspace." },
};

/** trainingHook: the workspace key or the owner's login state of the agent's workspace. */
export const TRAINING_REFUSALS: Refusals = {
  401: {
    [INVALID]: 'No credential, or one that matches nothing.',
    'workspace API key required': 'A session token or a personal API key.',
  },
  403: { ...REVOKED, ...ACT_AS },
  404: { 'agent not found': "No agent `{id}` in the credential's workspace." },
};

/** noCredentialHook. */
export const NO_CREDENTIAL_REFUSALS: Refusals = {
  403: { 'SMS sign-in takes no credentials': 'The request has an `Authorization` header.' },
};
