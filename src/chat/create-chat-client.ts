import { type TokenProvider, tokenEndpointProvider } from '../client/auth.js';
import { ChatClient } from '../client/chat.js';

/** Where a chat talks to and as whom, as `<svc-chat>` and `useSvcChat` take it. */
export interface ChatClientOptions {
  /** Service address; default: this page's origin. */
  baseUrl?: string;
  /** A session token (never a workspace key); not renewed. */
  token?: string;
  /** Returns a fresh session token (or `{ token, expires_at }`), e.g. from the site's backend. */
  tokenProvider?: TokenProvider;
  /** URL of the site's backend that answers `POST` with `{ token, expires_at }`. */
  tokenEndpoint?: string;
  /**
   * Whether the token endpoint's request carries the page's cookies: fetch's `credentials` (default
   * `same-origin`); `include` for an endpoint of another origin that knows the visitor by a cookie.
   */
  tokenCredentials?: RequestCredentials;
}

/**
 * The chat client of `<svc-chat>` and `useSvcChat`: with `tokenProvider` or `tokenEndpoint` the token is
 * renewed by the request core (before it expires and on a 401), with `token` it is used as it is. Undefined
 * without any credential; throws `SvcSdkError` for a workspace key in a browser.
 */
export function createChatClient({
  baseUrl,
  token,
  tokenProvider,
  tokenEndpoint,
  tokenCredentials,
}: ChatClientOptions): ChatClient | undefined {
  const provider =
    tokenProvider ?? (tokenEndpoint ? tokenEndpointProvider(tokenEndpoint, tokenCredentials) : undefined);
  if (!provider && !token) return undefined;
  return new ChatClient({
    baseUrl: baseUrl || globalThis.location?.origin,
    ...(provider ? { tokenProvider: provider } : { apiKey: token }),
  });
}
