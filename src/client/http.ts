import { backoff, linkSignal, sleep } from './abort.js';
import type { RequestOptions, SvcClientConfig } from './config.js';
import { AbortError, APIConnectionError, APITimeoutError, ApiError, errorFromResponse, SvcSdkError } from './errors.js';

export const DEFAULT_BASE_URL = 'https://api.svc.dev';
const API_PREFIX = '/api/v2';
const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RETRIES = 2;
const RETRY_BASE_MS = 500;
const RETRY_MAX_MS = 8_000;
/** A `retry-after` longer than this is not waited for: the error goes to the caller instead. */
const RETRY_AFTER_MAX_MS = 60_000;
const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
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
  /** Whether a retry is safe. Default: true for GET, PUT and DELETE, false for POST. */
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
 * The one request core: auth headers, JSON bodies, the caller's signal, the timeout, retries of safe
 * requests and the mapping of failures to error classes. Every resource method is a line on top of it.
 */
export class HttpClient {
  /** The configuration without the credential, which stays private so a logged client shows no token. */
  readonly config: Readonly<Omit<SvcClientConfig, 'apiKey'>>;
  readonly baseUrl: string;
  readonly #apiKey: string | undefined;

  constructor({ apiKey, ...config }: SvcClientConfig = {}) {
    this.config = config;
    this.#apiKey = apiKey ?? envApiKey();
    this.baseUrl = (config.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
    if (this.#apiKey?.startsWith('sk_') && isBrowser() && !config.dangerouslyAllowBrowser) {
      throw new SvcSdkError(
        'A workspace API key (sk_…) must not be used in a browser: anyone who opens the page can read it and ' +
          'act for the whole workspace. Mint a session token on your server (workspaces.mintSession or ' +
          'startVisitorSession) and use that here, or pass dangerouslyAllowBrowser: true if the page is private.',
      );
    }
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
        return await this.#attempt(call, read, streaming);
      } catch (err) {
        if (!idempotent || attempt >= maxRetries || !isRetryable(err)) throw err;
        const delay = retryAfterMs(err) ?? backoff(attempt, RETRY_BASE_MS, RETRY_MAX_MS);
        if (delay > RETRY_AFTER_MAX_MS) throw err;
        await sleep(delay, call.signal);
      }
    }
  }

  async #attempt<T>(call: Call, read: (res: Response) => Promise<T>, streaming: boolean): Promise<T> {
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
      const res = await fetchFn(this.#url(call), this.#init(call, controller.signal));
      if (!res.ok) throw await errorFromResponse(res);
      return await read(res);
    } catch (err) {
      // The service's error answer stands as it is, even when the caller aborted while its body was read.
      if (err instanceof ApiError) throw err;
      if (call.signal?.aborted) throw new AbortError();
      if (timedOut) throw new APITimeoutError(`request timed out after ${timeoutMs} ms`);
      if (err instanceof SvcSdkError) throw err;
      throw new APIConnectionError(`connection error: ${(err as Error)?.message ?? String(err)}`, { cause: err });
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

  #init(call: Call, signal: AbortSignal): RequestInit {
    const headers: Record<string, string> = { accept: 'application/json', ...call.headers };
    if (!call.anonymous) {
      if (this.#apiKey) headers.authorization = `Bearer ${this.#apiKey}`;
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

function isRetryable(err: unknown): boolean {
  if (err instanceof ApiError) return RETRYABLE_STATUSES.has(err.status);
  return err instanceof APIConnectionError;
}

/** `retry-after` as seconds or as an HTTP date. */
export function retryAfterMs(err: unknown): number | undefined {
  const header = err instanceof ApiError ? err.headers?.get('retry-after') : null;
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
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
