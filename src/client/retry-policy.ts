import { DEFAULT_BACKOFF, type RetryPolicy } from '../protocol/retry.js';
import { ApiConnectionError, ApiError } from './errors.js';

/** Busy, rate-limited or a gateway that lost the service: another try may succeed. A 500 is a bug: it would not. */
const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);

/** A connection error (a timeout included), a 429, 502, 503 or 504. Auth, lookup and validation errors are not. */
export function isRetryable(err: unknown): boolean {
  if (err instanceof ApiError) return RETRYABLE_STATUSES.has(err.status);
  return err instanceof ApiConnectionError;
}

/** The client's policy, for requests (`http.ts`, which sets `retries`) and stream reconnects (`sse.ts`). */
export const CLIENT_RETRY: RetryPolicy = { ...DEFAULT_BACKOFF, retryable: isRetryable, maxRetryAfterMs: 60_000 };
