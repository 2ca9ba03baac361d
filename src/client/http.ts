import { retryDelay } from '../protocol/retry.js';
import { linkSignal, sleep } from './abort.js';
import { TokenSource } from './auth.js';
import type { RequestOptions, SvcClientConfig } from './config.js';
import { AbortError, ApiConnectionError, ApiError, ApiTimeoutError, errorFromResponse, SvcSdkError } from './errors.js';
import { CLIENT_RETRY } from './retry-policy.js';

export const DEFAULT_BASE_URL = 'https://api.svc.dev';
const API_PREFIX = '/api/v2';
const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RETRIES = 2;

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';
export type Query = Record<string, string | number | boolean | undefined>;

/** One call through the request core. */
export interface Call extends RequestOptions {
  method: Method;
  /** Below `/api/v2`; build it with the `path` tag so segments are encoded. */
  path: string;
  query?: Query;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as `multipart/form-data`. */
  form?: FormData;
  headers?: Record<string, string>;
  /** Whether a retry is safe. Default: true for GET, PUT, PATCH and DELETE, false for POST. */
  idempotent?: boolean;
  /** Send no credential: routes that refuse one (SMS sign-in). */
  anonymous?: boolean;
}

/**
 * Builds a path with every interpolated value percent-encoded as one segment:
 * `path\`/conversations/${id}/stream\``. An empty, `.` or `..` value is refused: URL normalization would
 * turn it into another route, called with the caller's credential.
 */
export function path(strings: TemplateStringsArray, ...values: (string | number)[]): string {
  return strings.reduce((out, part, i) => {
    if (i >= values.length) return out + part;
    const value = String(values[i]);
    if (value === '' || value === '.' || value === '..') {
      throw new SvcSdkError(`Invalid path segment ${JSON.stringify(value)} in ${strings.join('…')}`);
    }
    return out + part + encodeURIComponent(value);
  }, '');
}

/**
 * The one request core: the credential (a key, or a provider's token renewed before it expires and once on a
 * 401), JSON bodies, the caller's signal, the timeout, retries of safe requests (`retry.ts`) and the mapping
 * of failures to error classes. Every resource method is a line on top of it.
 */
export class HttpClient {
  /** The configuration without the credential, which stays private so a logged client shows no token. */
  readonly config: Readonly<Omit<SvcClientConfig, 'apiKey' | 'tokenProvider'>>;
  readonly baseUrl: string;
  readonly #apiKey: string | undefined;
  readonly #tokens: TokenSource | undefined;

  constructor({ apiKey, tokenProvider, ...config }: SvcClientConfig = {}) {
    this.config = config;
    this.baseUrl = (config.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
    if (apiKey?.startsWith('sk_') && isBrowser() && !config.dangerouslyAllowBrowser) {
      throw new SvcSdkError(
        'A workspace API key must never be used in a browser: anyone who opens the page could act for the ' +
          'whole workspace. Mint a session token on your server, or pass dangerouslyAllowBrowser: true if the ' +
          'page is private.',
      );
    }
    this.#tokens = tokenProvider && new TokenSource(tokenProvider, apiKey);
    this.#apiKey = tokenProvider ? undefined : (apiKey ?? envApiKey());
  }

  /** Sends a call and parses the JSON answer (`undefined` for an empty one). */
  json<T>(call: Call): Promise<T> {
    return this.#withRetries(call, async (res) => {
      const text = await res.text();
      if (!text) return undefined as T;
      try {
        return JSON.parse(text) as T;
      } catch {
        throw new SvcSdkError(`The service answered ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`);
      }
    });
  }

  /** Sends a call and returns the answer's bytes. */
  blob(call: Call): Promise<Blob> {
    return this.#withRetries(call, (res) => res.blob());
  }

  /**
   * Whether the service answers at all: any HTTP answer proves it is there. `OPTIONS` of the API's root is what
   * browsers send it before each call anyway (the CORS preflight): no credential, no effect, and no error in
   * the console, which a `GET` without a token would log. One try; false on a connection error or a timeout.
   */
  async reachable(signal?: AbortSignal): Promise<boolean> {
    const call: Call = { method: 'OPTIONS', path: '/', anonymous: true, signal };
    try {
      await this.#attempt(call, undefined, async () => {}, false);
      return true;
    } catch (err) {
      if (err instanceof AbortError) throw err;
      return err instanceof ApiError;
    }
  }

  /**
   * Opens a streaming response. The timeout covers only the wait for the response headers; the body is
   * read by the caller, and `call.signal` keeps aborting it afterwards.
   */
  stream(call: Call): Promise<Response> {
    return this.#withRetries({ ...call, maxRetries: call.maxRetries ?? 0 }, async (res) => res, true);
  }

  async #withRetries<T>(call: Call, read: (res: Response) => Promise<T>, streaming = false): Promise<T> {
    const maxRetries = call.maxRetries ?? this.config.maxRetries ?? DEFAULT_MAX_RETRIES;
    const idempotent = call.idempotent ?? call.method !== 'POST';
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#authorized(call, read, streaming);
      } catch (err) {
        const delay = idempotent ? retryDelay(err, attempt, { ...CLIENT_RETRY, retries: maxRetries }) : undefined;
        if (delay === undefined) throw err;
        await sleep(delay, call.signal);
      }
    }
  }

  /** One try with the current token; when the service refuses that token (401), one more with a renewed one. */
  async #authorized<T>(call: Call, read: (res: Response) => Promise<T>, streaming: boolean): Promise<T> {
    if (call.anonymous) return this.#attempt(call, undefined, read, streaming);
    const tokens = this.#tokens;
    const token = tokens ? await tokens.token() : this.#apiKey;
    try {
      return await this.#attempt(call, token, read, streaming);
    } catch (err) {
      // The service did nothing with a refused request, so even a POST is safe to send again.
      if (!tokens || !(err instanceof ApiError) || err.status !== 401) throw err;
      return this.#attempt(call, await tokens.renew(token!), read, streaming);
    }
  }

  async #attempt<T>(
    call: Call,
    token: string | undefined,
    read: (res: Response) => Promise<T>,
    streaming: boolean,
  ): Promise<T> {
    const timeoutMs = call.timeoutMs ?? this.config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (call.signal?.aborted) throw new AbortError();
    const controller = new AbortController();
    const unlink = linkSignal(call.signal, controller);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    try {
      const fetchFn = this.config.fetch ?? globalThis.fetch;
      if (!fetchFn) throw new SvcSdkError('No fetch function: pass `fetch` in the client config.');
      const res = await fetchFn(this.#url(call), this.#init(call, token, controller.signal));
      if (!res.ok) throw await errorFromResponse(res);
      return await read(res);
    } catch (err) {
      // The service's error answer stands as it is, even when the caller aborted while its body was read.
      if (err instanceof ApiError) throw err;
      if (call.signal?.aborted) throw new AbortError();
      if (timedOut) throw new ApiTimeoutError(`request timed out after ${timeoutMs} ms`);
      if (err instanceof SvcSdkError) throw err;
      throw new ApiConnectionError(`connection error: ${(err as Error)?.message ?? String(err)}`, { cause: err });
    } finally {
      clearTimeout(timer);
      // A stream keeps the link: the caller's signal must still abort the body being read.
      if (!streaming) unlink();
    }
  }

  #url(call: Call): string {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(call.query ?? {})) {
      if (value !== undefined) search.set(key, String(value));
    }
    const qs = search.toString();
    return `${this.baseUrl}${API_PREFIX}${call.path}${qs ? `?${qs}` : ''}`;
  }

  /** The one place a credential is written: the `Authorization` header (never the URL). */
  #init(call: Call, token: string | undefined, signal: AbortSignal): RequestInit {
    const headers: Record<string, string> = { accept: 'application/json', ...call.headers };
    if (!call.anonymous) {
      if (token) headers.authorization = `Bearer ${token}`;
      if (this.config.loginType) headers['x-login-type'] = this.config.loginType;
      if (this.config.actAs) headers['x-act-as'] = this.config.actAs;
    }
    let body: BodyInit | undefined;
    if (call.form) body = call.form;
    else if (call.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(call.body);
    }
    return { method: call.method, headers, body, signal };
  }
}

function envApiKey(): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  return env?.SVC_API_KEY || undefined;
}

function isBrowser(): boolean {
  const g = globalThis as { window?: unknown; document?: unknown };
  return typeof g.window !== 'undefined' && typeof g.document !== 'undefined';
}

/** What every standalone client takes: a shared request core, or the config to build its own. */
export function httpOf(source: HttpClient | SvcClientConfig = {}): HttpClient {
  return source instanceof HttpClient ? source : new HttpClient(source);
}
