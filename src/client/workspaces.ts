import type {
  AgentList,
  FeedbackListOptions,
  FeedbackPage,
  GrantCreditsRequest,
  GrantResult,
  MemberList,
  MintOperatorSessionRequest,
  MintSessionRequest,
  OperatorSession,
  ProvisionMemberRequest,
  ProvisionResult,
  SessionToken,
  SingleAgent,
  SmsLimit,
  StartVisitorSessionRequest,
  Workspace,
} from '../protocol/types.js';
import type { RequestOptions, SvcClientConfig } from './config.js';
import { type HttpClient, httpOf, path } from './http.js';
import * as sms from './sms.js';

/**
 * Workspace administration (spec 4.1), slug first. Server-side code with a workspace key (`sk_…`) uses
 * it, e.g. to mint a session token for a visitor. Retries: provisionMember and grantCredits are idempotent
 * by design and retried when safe; suspendMember is not (a replay answers 404), nor are the rest.
 */
export class WorkspacesClient {
  readonly http: HttpClient;

  constructor(http: HttpClient | SvcClientConfig = {}) {
    this.http = httpOf(http);
  }

  /** The workspace of the key in use. */
  async whoami(opts: RequestOptions = {}): Promise<Workspace> {
    return this.http.json({ ...opts, method: 'GET', path: '/workspaces/whoami' });
  }

  /** Creates the member for `sp_user_ref`, or returns the existing one with `created: false`. */
  async provisionMember(
    slug: string,
    body: ProvisionMemberRequest,
    opts: RequestOptions = {},
  ): Promise<ProvisionResult> {
    return this.http.json({ ...opts, method: 'POST', path: path`/workspaces/${slug}/members`, body, idempotent: true });
  }

  async listMembers(slug: string, opts: RequestOptions = {}): Promise<MemberList> {
    return this.http.json({ ...opts, method: 'GET', path: path`/workspaces/${slug}/members` });
  }

  /** Suspends a member; tokens already issued keep working. A second call answers 404. */
  async suspendMember(slug: string, memberId: string, opts: RequestOptions = {}): Promise<void> {
    await this.http.json({
      ...opts,
      method: 'DELETE',
      path: path`/workspaces/${slug}/members/${memberId}`,
      idempotent: false,
    });
  }

  /** Moves credits from the owner's wallet; a replay of `idempotency_key` returns the first result. */
  async grantCredits(
    slug: string,
    memberId: string,
    body: GrantCreditsRequest,
    opts: RequestOptions = {},
  ): Promise<GrantResult> {
    return this.http.json({
      ...opts,
      method: 'POST',
      path: path`/workspaces/${slug}/members/${memberId}/credits`,
      body,
      idempotent: true,
    });
  }

  /** A session token for an existing member (`ttl_seconds` 1 to 86400, default 3600). */
  async mintSession(slug: string, body: MintSessionRequest, opts: RequestOptions = {}): Promise<SessionToken> {
    return this.http.json({ ...opts, method: 'POST', path: path`/workspaces/${slug}/sessions`, body });
  }

  /**
   * Signs a person of the workspace's staff in (our extension, docs/protocol.md "A person in the conversation"): a
   * short-lived operator token (`ot_…`) for `OperatorInbox`; mint another to renew it.
   */
  async mintOperatorSession(
    slug: string,
    body: MintOperatorSessionRequest,
    opts: RequestOptions = {},
  ): Promise<OperatorSession> {
    return this.http.json({ ...opts, method: 'POST', path: path`/workspaces/${slug}/operators/sessions`, body });
  }

  /** provisionMember, then mintSession (spec rule 4.1.1): a session token for a visitor in one call. */
  async startVisitorSession(
    slug: string,
    body: StartVisitorSessionRequest,
    opts: RequestOptions = {},
  ): Promise<SessionToken> {
    const { sp_user_ref, display_name, ttl_seconds } = body;
    await this.provisionMember(
      slug,
      display_name === undefined ? { sp_user_ref } : { sp_user_ref, display_name },
      opts,
    );
    return this.mintSession(slug, ttl_seconds === undefined ? { sp_user_ref } : { sp_user_ref, ttl_seconds }, opts);
  }

  async listAgents(slug: string, opts: RequestOptions = {}): Promise<AgentList> {
    return this.http.json({ ...opts, method: 'GET', path: path`/workspaces/${slug}/agents` });
  }

  async getAgent(slug: string, agentId: string, opts: RequestOptions = {}): Promise<SingleAgent> {
    return this.http.json({ ...opts, method: 'GET', path: path`/workspaces/${slug}/agents/${agentId}` });
  }

  /**
   * Our extension: visitors' 👍/👎 on the replies of the workspace's agents, with the reason and the reply's
   * text, newest first; pass a page's `next` as `before` for the next page. The workspace key or the owner.
   */
  async listFeedback(slug: string, opts: FeedbackListOptions & RequestOptions = {}): Promise<FeedbackPage> {
    const { before, limit, agentId, rating, ...request } = opts;
    return this.http.json({
      ...request,
      method: 'GET',
      path: path`/workspaces/${slug}/feedback`,
      query: { before, limit, agentId, rating },
    });
  }

  /** Texts a sign-in code to `phone` (E.164). Sent without a credential: the route refuses one. */
  async sendSmsCode(
    slug: string,
    body: { phone: string; challenge?: string },
    opts: RequestOptions = {},
  ): Promise<void> {
    await sms.sendSmsCode(this.http, slug, body, opts);
  }

  /** Exchanges a code for a session token (valid 24 h). Sent without a credential: the route refuses one. */
  async verifySmsCode(
    slug: string,
    body: { phone: string; code: string },
    opts: RequestOptions = {},
  ): Promise<SessionToken> {
    return sms.verifySmsCode(this.http, slug, body, opts);
  }

  /** The workspace's cap on SMS codes per 24 hours, and how many it sent in the last 24. */
  async smsLimit(slug: string, opts: RequestOptions = {}): Promise<SmsLimit> {
    return this.http.json({ ...opts, method: 'GET', path: path`/workspaces/${slug}/sms/limit` });
  }

  /** Sets the cap on SMS codes per 24 hours (0 turns codes off; null returns to the service's default). */
  async setSmsLimit(slug: string, body: { daily_limit: number | null }, opts: RequestOptions = {}): Promise<SmsLimit> {
    return this.http.json({ ...opts, method: 'PUT', path: path`/workspaces/${slug}/sms/limit`, body });
  }
}

/** `client.workspace(slug)`: the workspace methods bound to one slug (all but whoami). */
export class WorkspaceHandle {
  constructor(
    readonly slug: string,
    readonly workspaces: WorkspacesClient,
  ) {}

  provisionMember(body: ProvisionMemberRequest, opts?: RequestOptions) {
    return this.workspaces.provisionMember(this.slug, body, opts);
  }
  listMembers(opts?: RequestOptions) {
    return this.workspaces.listMembers(this.slug, opts);
  }
  suspendMember(memberId: string, opts?: RequestOptions) {
    return this.workspaces.suspendMember(this.slug, memberId, opts);
  }
  grantCredits(memberId: string, body: GrantCreditsRequest, opts?: RequestOptions) {
    return this.workspaces.grantCredits(this.slug, memberId, body, opts);
  }
  mintSession(body: MintSessionRequest, opts?: RequestOptions) {
    return this.workspaces.mintSession(this.slug, body, opts);
  }

  mintOperatorSession(body: MintOperatorSessionRequest, opts?: RequestOptions) {
    return this.workspaces.mintOperatorSession(this.slug, body, opts);
  }
  startVisitorSession(body: StartVisitorSessionRequest, opts?: RequestOptions) {
    return this.workspaces.startVisitorSession(this.slug, body, opts);
  }
  listAgents(opts?: RequestOptions) {
    return this.workspaces.listAgents(this.slug, opts);
  }
  getAgent(agentId: string, opts?: RequestOptions) {
    return this.workspaces.getAgent(this.slug, agentId, opts);
  }
  listFeedback(opts?: FeedbackListOptions & RequestOptions) {
    return this.workspaces.listFeedback(this.slug, opts);
  }
  sendSmsCode(body: { phone: string; challenge?: string }, opts?: RequestOptions) {
    return this.workspaces.sendSmsCode(this.slug, body, opts);
  }
  verifySmsCode(body: { phone: string; code: string }, opts?: RequestOptions) {
    return this.workspaces.verifySmsCode(this.slug, body, opts);
  }
  smsLimit(opts?: RequestOptions) {
    return this.workspaces.smsLimit(this.slug, opts);
  }
  setSmsLimit(body: { daily_limit: number | null }, opts?: RequestOptions) {
    return this.workspaces.setSmsLimit(this.slug, body, opts);
  }
}
