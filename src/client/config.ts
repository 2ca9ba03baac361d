import type { TokenProvider } from './auth.js';

/** Session-level external-tool credentials, or a (sync or async) function that returns them per message. */
export type McpTokens =
  | Record<string, string>
  | (() => Record<string, string> | undefined | Promise<Record<string, string> | undefined>);

/** Options of `new SvcClient(config)` (spec 4.4); every standalone client (`ChatClient`, …) takes the same. */
export interface SvcClientConfig {
  /**
   * Personal API key, workspace API key or session token. Default: `SVC_API_KEY` where `process` exists
   * (not with a `tokenProvider`, whose first token it is when given).
   */
  apiKey?: string;
  /**
   * Gets session tokens (e.g. from the site's backend): asked for the first one, again shortly before it
   * expires and once when the service refuses it (401), after which the call is repeated. Its failure is an
   * `AuthenticationError` with the status it gave.
   */
  tokenProvider?: TokenProvider;
  /** Platform address; routes live under `{baseUrl}/api/v2`. Default `https://api.svc.dev`. */
  baseUrl?: string;
  /** Default agent of new conversations and of `training()`. Never read from the environment. */
  agentId?: string;
  /** Timeout of non-streaming requests in milliseconds. Default 30000. */
  timeoutMs?: number;
  /** Sent with every message; per-message tokens win on the same key. */
  mcpTokens?: McpTokens;
  /** Custom fetch. Default: the global `fetch`. */
  fetch?: typeof fetch;
  /** Sends `X-Login-Type` (login-state JWTs only). */
  loginType?: string;
  /** Sends `X-Act-As`: call as a service account the caller owns. */
  actAs?: string;
  /** Retries of safe requests (429, 502, 503, 504, connection errors). Default 2. */
  maxRetries?: number;
  /**
   * Allows a workspace key (`sk_…`) where `window` and `document` exist. Anyone who opens such a page can
   * read the key and act for the whole workspace: mint session tokens on a server instead.
   */
  dangerouslyAllowBrowser?: boolean;
}

/** The last argument of every method. */
export interface RequestOptions {
  signal?: AbortSignal;
  /** Overrides the client's `timeoutMs` for this call. */
  timeoutMs?: number;
  /** Overrides the client's `maxRetries` for this call. */
  maxRetries?: number;
}
