import { createHash } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import underPressure from '@fastify/under-pressure';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { bearerToken } from './auth.js';
import { tooMany, unavailable } from './errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** An operational route (health, metrics): never rate-limited nor shed, it must answer when the service is busiest. */
    probe?: boolean;
  }
}

/** What an instance takes before it refuses (docs/server.md "Overload"); 0 turns a bound off. */
export interface OverloadOptions {
  /** Requests one client may make in `windowMs`; then 429 until the window ends. */
  rateLimit: { max: number; windowMs: number };
  /** The mean event-loop delay (ms) over a sampling window above which requests are shed with 503. */
  maxEventLoopDelayMs: number;
  /** The V8 heap in use (bytes) above which requests are shed with 503. */
  maxHeapBytes: number;
}

/**
 * The rate is generous: the test suites send thousands of requests a minute with one key from one address.
 * The pressure bounds are off until an operator sets them for the machine: on a shared 2-core machine under a
 * load average of 25, the suites' event loops lagged over a second and a 1000 ms bound shed their requests.
 */
export const DEFAULT_OVERLOAD: OverloadOptions = {
  rateLimit: { max: 6000, windowMs: 60_000 },
  maxEventLoopDelayMs: 0,
  maxHeapBytes: 0,
};

/** How long a request shed under pressure waits before it tries again. */
const PRESSURE_RETRY_MS = 5000;
/**
 * The window the event-loop delay is averaged over. The plugin's 1 s shed requests after any stall of about a
 * second (one long sample is the whole window's mean, and a window without a sample counts as infinite delay):
 * a process starting on a busy machine refused its first requests. Over 5 s a stall is diluted and only a
 * lasting lag, or a loop blocked the whole window, sheds.
 */
const PRESSURE_SAMPLE_MS = 5000;

/**
 * The client a request counts for: its credential (a hash of it: no token is kept), else its address, which
 * behind a proxy is the one `--trust-proxy` lets the proxy name. Visitors behind one address each count apart.
 */
function clientOf(req: FastifyRequest): string {
  const token = bearerToken(req);
  return token ? `credential ${createHash('sha256').update(token).digest('base64url')}` : `address ${req.ip}`;
}

/**
 * Refusals before any route runs, as `{ detail }` with `Retry-After` like every error: a client over its
 * request rate (@fastify/rate-limit, 429), and any request while the event loop lags or the heap is over its
 * bound (@fastify/under-pressure, 503). Registered after the hook that sets the CORS headers, before routes.
 */
export async function registerOverload(app: FastifyInstance, options: OverloadOptions): Promise<void> {
  const { max, windowMs } = options.rateLimit;
  if (max > 0) {
    await app.register(rateLimit, {
      global: false,
      max,
      timeWindow: windowMs,
      keyGenerator: clientOf,
      allowList: (req) => req.routeOptions.config.probe === true,
      // Our error carries Retry-After; the plugin's headers (x-ratelimit-*) stay off every answer.
      addHeaders: {
        'x-ratelimit-limit': false,
        'x-ratelimit-remaining': false,
        'x-ratelimit-reset': false,
        'retry-after': false,
      },
      addHeadersOnExceeding: { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false },
      errorResponseBuilder: (_req, context) =>
        tooMany(
          `too many requests from this client (limit ${max} per ${windowMs / 1000} s), try again later`,
          context.ttl,
        ),
    });
    // At the root, before the routes' credential hooks: a refusal costs no database lookup.
    app.addHook('onRequest', app.rateLimit());
  }
  if (options.maxEventLoopDelayMs > 0 || options.maxHeapBytes > 0) {
    await app.register(underPressure, {
      maxEventLoopDelay: options.maxEventLoopDelayMs,
      sampleInterval: PRESSURE_SAMPLE_MS,
      maxHeapUsedBytes: options.maxHeapBytes,
      pressureHandler: async (req) => {
        if (!req.routeOptions.config.probe) {
          throw unavailable('the service is overloaded, try again later', PRESSURE_RETRY_MS);
        }
      },
    });
  }
}
