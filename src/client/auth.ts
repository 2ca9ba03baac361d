import { AuthenticationError } from './errors.js';

/** A session token and when it stops working, as mintSession and verifySmsCode return it. */
export interface SessionGrant {
  token: string;
  expires_at?: string;
}

/**
 * Gets a fresh session token, e.g. from the site's backend, which mints it with its workspace key. A provider
 * that fails says why with the `status` of the error it throws (`{ status: 401 }`: the visitor must sign in
 * again); the client reports every failure as an `AuthenticationError` with that status (401 without one).
 */
export type TokenProvider = () => Promise<SessionGrant | string>;

/** Renew this long before `expires_at`; a short-lived token in the last quarter of its life instead. */
const RENEW_MARGIN_MS = 60_000;

/**
 * The session token of a client configured with a `tokenProvider`: held in memory and renewed through the
 * provider shortly before it expires and when the service refused it. Concurrent callers share one renewal.
 */
export class TokenSource {
  #grant?: { token: string; renewAt: number };
  #pending?: Promise<string>;

  constructor(
    private readonly provider: TokenProvider,
    /** A token to start with (the client's `apiKey`), used until the service refuses it. */
    initial?: string,
  ) {
    if (initial) this.#set({ token: initial });
  }

  /** A token good for a while yet, renewed first if needed. */
  async token(): Promise<string> {
    const grant = this.#grant;
    return grant && Date.now() < grant.renewAt ? grant.token : this.#renew();
  }

  /**
   * The token to use instead of `refused`, which the service answered with 401: renewed once, however many
   * calls were refused with it.
   */
  renew(refused: string): Promise<string> {
    return this.#grant?.token === refused ? this.#renew() : this.token();
  }

  #renew(): Promise<string> {
    this.#pending ??= this.#ask().finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  async #ask(): Promise<string> {
    let result: SessionGrant | string;
    try {
      result = await this.provider();
    } catch (err) {
      throw providerFailure(err);
    }
    const grant = typeof result === 'string' ? { token: result } : result;
    if (!grant?.token) throw providerFailure(new Error('the token provider returned no token'));
    this.#set(grant);
    return grant.token;
  }

  #set({ token, expires_at }: SessionGrant): void {
    const expiresAt = Date.parse(expires_at ?? '') || Number.POSITIVE_INFINITY;
    this.#grant = { token, renewAt: expiresAt - Math.min(RENEW_MARGIN_MS, (expiresAt - Date.now()) / 4) };
  }
}

/** A provider's failure as the client reports it: an AuthenticationError with the failure's status, 401 without one. */
function providerFailure(err: unknown): AuthenticationError {
  if (err instanceof AuthenticationError) return err;
  const { status, message = err } = Object(err) as { status?: unknown; message?: unknown };
  return new AuthenticationError(
    typeof status === 'number' ? status : 401,
    `could not get a session token: ${message}`,
    undefined,
    undefined,
    { cause: err },
  );
}

/**
 * Asks in flight, by endpoint: chats on one page that start together (a launcher and an inline chat) share one
 * answer. A backend that knows the visitor by a cookie it sets in that answer would otherwise see two visitors
 * without the cookie, and the conversation the page remembers would belong to the one whose cookie lost.
 */
const asking = new Map<string, Promise<SessionGrant>>();

/**
 * A provider that asks the site's own backend: `POST url` answering `{ token, expires_at }`. Same-origin
 * cookies of the site go along (fetch's default), so the backend knows which visitor asks.
 */
export function tokenEndpointProvider(url: string, credentials?: RequestCredentials): TokenProvider {
  const key = `${credentials ?? ''} ${url}`;
  const ask = async (): Promise<SessionGrant> => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { accept: 'application/json' },
      ...(credentials ? { credentials } : {}),
    });
    if (!res.ok) throw Object.assign(new Error(`the token endpoint answered ${res.status}`), { status: res.status });
    return res.json();
  };
  return () => {
    let answer = asking.get(key);
    if (!answer) {
      answer = ask().finally(() => asking.delete(key));
      asking.set(key, answer);
    }
    return answer;
  };
}
