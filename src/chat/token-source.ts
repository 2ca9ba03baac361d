/** A session token and when it stops working, as mintSession and verifySmsCode return it. */
export interface SessionGrant {
  token: string;
  expires_at?: string;
}

/** Gets a fresh session token, e.g. from the site's backend, which mints it with its workspace key. */
export type TokenProvider = () => Promise<SessionGrant | string>;

/**
 * Holds the visitor's session token in memory and renews it through the provider shortly before it expires
 * and whenever the service says 401. Concurrent callers share one renewal.
 */
export class TokenSource {
  #grant?: { token: string; expiresAt: number; margin: number };
  #pending?: Promise<string>;

  constructor(
    private readonly provider: TokenProvider,
    /** Renew this long before `expires_at`. */
    private readonly marginMs = 60_000,
  ) {}

  /** A token good for at least `marginMs`, renewed if needed. */
  token(): Promise<string> {
    const grant = this.#grant;
    if (grant && grant.expiresAt - Date.now() > grant.margin) return Promise.resolve(grant.token);
    return this.refresh();
  }

  /** Asks the provider for a new token (one request however many callers ask at once). */
  refresh(): Promise<string> {
    this.#pending ??= this.provider()
      .then((result) => {
        const grant = typeof result === 'string' ? { token: result } : result;
        if (!grant?.token) throw new Error('the token provider returned no token');
        this.set(grant);
        return grant.token;
      })
      .finally(() => {
        this.#pending = undefined;
      });
    return this.#pending;
  }

  /** Sets a token obtained elsewhere (SMS sign-in). */
  set(grant: SessionGrant): void {
    const parsed = Date.parse(grant.expires_at ?? '');
    const expiresAt = Number.isNaN(parsed) ? Number.POSITIVE_INFINITY : parsed;
    // A short-lived token is renewed in the last quarter of its life, not before every request.
    const margin = Math.min(this.marginMs, (expiresAt - Date.now()) / 4);
    this.#grant = { token: grant.token, expiresAt, margin };
  }

  clear(): void {
    this.#grant = undefined;
  }
}

/**
 * A provider that asks the site's own backend: `POST url` answering `{ token, expires_at }`. Same-origin
 * cookies of the site go along, so the backend knows which visitor asks.
 */
export function tokenEndpointProvider(url: string, fetchImpl: typeof fetch = globalThis.fetch.bind(globalThis)) {
  return async (): Promise<SessionGrant> => {
    const res = await fetchImpl(url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { accept: 'application/json' },
    });
    if (!res.ok) throw new Error(`the token endpoint answered ${res.status}`);
    return (await res.json()) as SessionGrant;
  };
}

/**
 * A `fetch` that sends the current session token, and on a 401 renews it once and repeats the request, so
 * an expired token never loses a send or a stream reconnect. The client gets this as its `fetch`.
 */
export function authorizedFetch(source: TokenSource, baseFetch: typeof fetch = globalThis.fetch.bind(globalThis)) {
  const attempt = async (input: RequestInfo | URL, init: RequestInit | undefined, token: string) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${token}`);
    return baseFetch(input, { ...init, headers });
  };
  return async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const res = await attempt(input, init, await source.token());
    if (res.status !== 401 || init?.body instanceof ReadableStream) return res;
    return attempt(input, init, await source.refresh());
  };
}
