/**
 * The workspace routes' shapes (spec section 2): the workspace, its members and their credits, sessions, and
 * the agents a key reaches.
 */

export interface Workspace {
  workspace_id: string;
  slug: string;
  display_name: string;
  status: string;
  api_key_id: string;
}

export type MemberStatus = 'active' | 'suspended' | (string & {});

export interface Member {
  user_id: string;
  billing_account_id: string;
  sp_user_ref: string;
  status: MemberStatus;
  joined_at: string;
  balance: number;
}

export interface MemberList {
  members: Member[];
}

export interface ProvisionMemberRequest {
  sp_user_ref: string;
  display_name?: string;
}

export interface ProvisionResult {
  member_id: string;
  billing_account_id: string;
  created: boolean;
}

export interface GrantCreditsRequest {
  /** Greater than 0, at most 2 decimal places (credits are whole cents). */
  amount: number;
  idempotency_key: string;
}

export interface GrantResult {
  balance: number;
  purchase_id: string;
  idempotent: boolean;
}

/** A workspace's cap on SMS sign-in codes (our extension: `GET`/`PUT /workspaces/{slug}/sms/limit`). */
export interface SmsLimit {
  /** Codes the workspace sends in any 24 hours, at most. */
  daily_limit: number;
  /** Set by the owner; otherwise the service's default. */
  custom: boolean;
  sent_last_24h: number;
}

export interface MintSessionRequest {
  sp_user_ref: string;
  ttl_seconds?: number;
}

export interface StartVisitorSessionRequest {
  sp_user_ref: string;
  display_name?: string;
  ttl_seconds?: number;
}

export interface SessionToken {
  token: string;
  user_id: string;
  expires_at: string;
}

export interface WorkspaceAgent {
  id: string;
  name: string;
  description: string;
  avatar_url: string | null;
  runtime: string;
  created_at: string;
}

export interface AgentList {
  scope: 'workspace';
  workspace_id: string;
  agents: WorkspaceAgent[];
}

export interface SingleAgent {
  scope: 'workspace';
  workspace_id: string;
  agent: WorkspaceAgent;
}
