import { createHash } from 'node:crypto';
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import underPressure from '@fastify/under-pressure';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Lru } from 'toad-cache';
import { bearerToken } from './auth.js';
import { tooMany, unavailable } from './errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** An operational route (health, metrics): never rate-limited nor shed, it must answer when the service is busiest. */
    probe?: boolean;
  }
  interface FastifyRequest {
    /** The counter the rate limit charges next (a credential's or an address's key). */
    rateKey: string;
    /** Set while a request's bearer token waits for its route's check: who pays, either way. */
    rateUnchecked: { address: string; credential: string } | null;
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

/** How many credentials an instance remembers as checked, and for how long (an LRU: a flood cannot grow it). */
const CHECKED_CREDENTIALS = 10_000;
const CHECKED_FOR_MS = 60 * 60 * 1000;

/** A credential as the limit counts it: a hash (no token is kept). */
const credentialKey = (token: string) => `credential ${createHash('sha256').update(token).digest('base64url')}`;

/**
 * A client address as the limit counts it: the one `--trust-proxy` lets the proxy name, an IPv6 address by its
 * /64 (one machine holds a whole /64, so each of its addresses is no new client).
 */
const addressKey = (req: FastifyRequest) => `address ${normalizeIP(req.ip)}`;

/**
 * Refusals before any route runs, as `{ detail }` with `Retry-After` like every error: a client over its
 * request rate (@fastify/rate-limit, 429, see registerRateLimit), and any request while the event loop lags or
 * the heap is over its bound (@fastify/under-pressure, 503). Registered after the hook that sets the CORS
 * headers, before routes.
 */
export async function registerOverload(app: FastifyInstance, options: OverloadOptions): Promise<void> {
  if (options.rateLimit.max > 0) await registerRateLimit(app, options.rateLimit);
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

/**
 * The limit per client: `max` requests in `windowMs` per credential once it is known to be one, else per client
 * address (docs/server.md "Overload"). A bearer token counts as a credential only once a route's credential hook
 * has found it (`credentialChecked`): a made-up token on a route that takes none, or one that is refused, buys
 * no counter of its own (each used to, so a client over its limit went on with a new token for each request, and
 * thousands of them pushed the addresses' counters out of the plugin's LRU). So:
 * - no token: its address pays, at once;
 * - a token this instance has seen checked (the last CHECKED_CREDENTIALS, for an hour): its credential pays, at
 *   once, before any lookup;
 * - any other token: refused at once when its address has nothing left (counting its requests of this kind in
 *   flight), else let through to its route; once the route has checked it, the credential pays (429 when over),
 *   and when no route does, its address pays as the answer goes.
 */
async function registerRateLimit(app: FastifyInstance, { max, windowMs }: OverloadOptions['rateLimit']) {
  await app.register(rateLimit, { global: false, max, timeWindow: windowMs });
  const counter = app.createRateLimit({ keyGenerator: (req) => req.rateKey });
  const refusal = (ttlMs: number) =>
    tooMany(`too many requests from this client (limit ${max} per ${windowMs / 1000} s), try again later`, ttlMs);
  /** Charges `key` with the request: 429 when that takes it over `max`. */
  const spend = async (req: FastifyRequest, key: string) => {
    req.rateKey = key;
    const counted = await counter(req);
    if (!counted.isAllowed && counted.isExceeded) throw refusal(counted.ttl);
  };
  const checked = new Lru<true>(CHECKED_CREDENTIALS, CHECKED_FOR_MS);
  const inFlight = new Map<string, number>();
  const landed = (address: string) => {
    const left = (inFlight.get(address) ?? 1) - 1;
    if (left > 0) inFlight.set(address, left);
    else inFlight.delete(address);
  };
  app.decorateRequest('rateKey', '');
  app.decorateRequest('rateUnchecked', null);

  // At the root, before the routes' credential hooks: a refusal of a known client costs no database lookup.
  app.addHook('onRequest', async (req, reply) => {
    if (req.routeOptions.config.probe) return;
    const token = bearerToken(req);
    const address = addressKey(req);
    if (!token) return spend(req, address);
    const credential = credentialKey(token);
    if (checked.get(credential)) return spend(req, credential);
    req.rateKey = address;
    const standing = await counter(req, { increment: false });
    if (!standing.isAllowed && standing.remaining - (inFlight.get(address) ?? 0) <= 0) throw refusal(standing.ttl);
    inFlight.set(address, (inFlight.get(address) ?? 0) + 1);
    const unchecked = { address, credential };
    req.rateUnchecked = unchecked;
    // Once the answer has gone (or its client has): a token no route checked was its address's request.
    reply.raw.once('close', () => {
      if (req.rateUnchecked !== unchecked) return;
      req.rateUnchecked = null;
      // Out of flight once counted: never a moment when it is neither (a request then would find room too many).
      spend(req, address)
        .catch(() => {})
        .finally(() => landed(address));
    });
  });
  // After every onRequest hook, the routes' credential checks included: a token found there is a credential.
  app.addHook('preParsing', async (req) => {
    const unchecked = req.rateUnchecked;
    if (!unchecked || !req.credentialChecked) return;
    req.rateUnchecked = null;
    landed(unchecked.address);
    checked.set(unchecked.credential, true);
    await spend(req, unchecked.credential);
  });
}
