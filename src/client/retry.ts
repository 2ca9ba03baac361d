import { ApiConnectionError, ApiError } from './errors.js';

/*
 * The one retry rule, for requests (`http.ts`) and for stream reconnects (`record-stream.ts`): what is worth
 * another try, and how long to wait before it. The service waits by `backoff` too, between tries to reach its
 * database again (`server/store/instance-connection.ts`, `server/turns/active-turn.ts`).
 */

/** Busy, rate-limited or a gateway that lost the service: another try may succeed. A 500 is a bug: it would not. */
const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);
const BACKOFF_BASE_MS = 250;
const BACKOFF_MAX_MS = 8_000;
/** A `retry-after` longer than this is not waited for: the error goes to the caller instead. */
const RETRY_AFTER_MAX_MS = 60_000;

/** A connection error (a timeout included), a 429, 502, 503 or 504. Auth, lookup and validation errors are not. */
export function isRetryable(err: unknown): boolean {
  if (err instanceof ApiError) return RETRYABLE_STATUSES.has(err.status);
  return err instanceof ApiConnectionError;
}

/** Exponential backoff with jitter: 250 ms · 2^attempt, at most 8 s, minus up to a quarter. */
export function backoff(attempt: number): number {
  return Math.min(BACKOFF_BASE_MS * 2 ** attempt, BACKOFF_MAX_MS) * (1 - Math.random() * 0.25);
}

/**
 * How long to wait before trying again after `err` on try number `attempt` (from 0): what `retry-after` says,
 * else {@link backoff}. Undefined when another try is not worth it.
 */
export function retryDelay(err: unknown, attempt: number): number | undefined {
  if (!isRetryable(err)) return undefined;
  const delay = retryAfterMs(err) ?? backoff(attempt);
  return delay > RETRY_AFTER_MAX_MS ? undefined : delay;
}

/** `retry-after` as seconds or as an HTTP date. */
function retryAfterMs(err: unknown): number | undefined {
  const header = err instanceof ApiError ? err.headers?.get('retry-after') : null;
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
