/*
 * The one retry rule of the SDK and the service: how long to wait before another try. Each caller states its
 * policy in one line (which failures are worth another try, how many tries, the backoff's range, the longest
 * `retry-after` it waits for) and asks {@link retryDelay}: the client's requests and stream reconnects
 * (`client/retry-policy.ts`), the service's model runtime, and its reconnects to its database.
 */

/** The range of the exponential backoff: the first wait, and the longest. */
export interface BackoffRange {
  baseMs: number;
  maxMs: number;
}

/** When and how long a caller waits before trying again. */
export interface RetryPolicy extends BackoffRange {
  /** Whether another try may succeed after this failure. */
  retryable(error: unknown): boolean;
  /** Tries after the first (none: no limit). */
  retries?: number;
  /** A `retry-after` longer than this is not waited for: the failure goes to the caller instead. */
  maxRetryAfterMs: number;
}

/** 0.25 s doubling to 8 s. */
export const DEFAULT_BACKOFF: BackoffRange = { baseMs: 250, maxMs: 8_000 };

/**
 * Exponential backoff with jitter: `baseMs` · 2^attempt (from 0), at most `maxMs`, minus up to a quarter at
 * random, so that clients cut off together do not come back together.
 */
export function backoff(attempt: number, { baseMs, maxMs }: BackoffRange = DEFAULT_BACKOFF): number {
  return Math.min(baseMs * 2 ** attempt, maxMs) * (1 - Math.random() * 0.25);
}

/** What a failure's `headers` offer: a `Headers`, or anything with its `get`. */
export interface HeaderReader {
  get(name: string): string | null | undefined;
}

/** How long the server asked to wait: `retry-after-ms`, else `retry-after` in seconds or as an HTTP date. */
export function retryAfterMs(headers: HeaderReader | null | undefined): number | undefined {
  const ms = Number.parseFloat(headers?.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/**
 * How long to wait before trying again after `error` on try number `attempt` (from 0): what the failure's
 * `retry-after` says, else {@link backoff}. Undefined when another try is not worth it: the failure is not
 * retryable, the tries are spent, or the server asked for a longer wait than the policy accepts.
 */
export function retryDelay(error: unknown, attempt: number, policy: RetryPolicy): number | undefined {
  if (attempt >= (policy.retries ?? Number.POSITIVE_INFINITY) || !policy.retryable(error)) return undefined;
  const after = retryAfterMs(headersOf(error));
  if (after === undefined) return backoff(attempt, policy);
  return after <= policy.maxRetryAfterMs ? after : undefined;
}

function headersOf(error: unknown): HeaderReader | undefined {
  const headers = (error as { headers?: unknown } | null)?.headers;
  return typeof (headers as HeaderReader | undefined)?.get === 'function' ? (headers as HeaderReader) : undefined;
}
