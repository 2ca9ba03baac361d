import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../http/app.js';
import { errorText } from '../http/errors.js';
import { DEFAULT_OVERLOAD, type OverloadOptions } from '../http/overload.js';
import { linkHostOption, linkHostsFor, publicUrlOption } from '../http/public-url.js';
import type { ModelOptions } from '../runtimes/model/options.js';
import type { AppContext } from '../services/context.js';
import { Drain } from '../services/drain.js';
import { Handoffs } from '../services/handoffs.js';
import { DEFAULT_QUOTAS, LIMITS, type Quotas } from '../services/limits.js';
import { Metrics } from '../services/metrics.js';
import { OpenStreams } from '../services/open-streams.js';
import { OperatorQueues } from '../services/operator-queue.js';
import { PaymentOrders } from '../services/payment-orders.js';
import { RecordLog } from '../services/record-log.js';
import type { SmsChallenge } from '../services/sms-challenge.js';
import { logSender, outboxSender } from '../services/sms-sender.js';
import { espeakSynthesizer } from '../services/speech.js';
import { sweepUploads } from '../services/uploads.js';
import { clock } from '../store/clock.js';
import { type Db, isPostgresUrl, openDb } from '../store/db.js';
import { metaValue, setMetaValue } from '../store/meta-rows.js';
import { forgetSendsBefore } from '../store/send-result-rows.js';
import { hasWorkspaces } from '../store/workspace-rows.js';
import { ABANDONED, endAbandonedTurns } from '../turns/end-turn.js';
import { followUnanswered } from '../turns/handoff-turn.js';
import { TurnRegistry } from '../turns/registry.js';
import { type Fixture, loadFixture } from './fixture.js';
import { createLogger, type LogOptions } from './logger.js';
import { enableDemoOperators, seedDemo, setDemoModel } from './seed.js';

/** How often what expires (unreferenced uploads, kept send results) is cleared away. */
const HOUSEKEEPING_MS = 60 * 60 * 1000;
/**
 * How often an instance sharing its database looks for the work of instances that are gone: their running
 * turns (ended) and their orders' expiry (claimed).
 */
const RECOVERY_MS = 1000;
/** How long a draining instance lets its running turns finish before it ends them. */
export const DEFAULT_DRAIN_GRACE_MS = 20_000;
/** How long a visitor waits for a person where the workspace sets nothing, before the agent asks for contact details. */
export const DEFAULT_HANDOFF_WAIT_SECONDS = 120;

export interface ServiceOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** A SQLite file path or `:memory:`, or a `postgres://` URL. */
  db?: string;
  fixture?: Fixture;
  smsOutbox?: string;
  filesDir?: string;
  /** Seeds the demo workspace (if missing) and serves the demo pages; without it nothing is seeded. */
  demo?: boolean;
  heartbeatMs?: number;
  maxUploadBytes?: number;
  /** What one visitor, address or workspace may use; the rest keep DEFAULT_QUOTAS. */
  quotas?: Partial<Quotas>;
  /** Where visitors reach the service: the origin (and path) of the links it hands out. */
  publicUrl?: string;
  /**
   * Without `publicUrl`, names besides the addresses listened on that a request's `Host` may give links
   * (`--link-host`: `host[:port]`); any other `Host` gets links to the service's own address.
   */
  linkHosts?: string[];
  /**
   * The challenge a visitor answers before a code goes to a new number once a workspace nears its daily SMS
   * cap (`--sms-challenge-url` makes a `siteverify` one); without it, only the shares of the cap apply.
   */
  smsChallenge?: SmsChallenge;
  /**
   * The addresses of reverse proxies whose `X-Forwarded-For` names the client (Fastify's `trustProxy`: a
   * comma-separated list of addresses or CIDR ranges). Without it, the client is the TCP peer.
   */
  trustProxy?: string;
  /** The log (JSON lines, never a token). Without it the service writes its failures, and nothing else, to stderr. */
  log?: LogOptions;
  /** Request-rate and pressure bounds; the rest keep DEFAULT_OVERLOAD. */
  overload?: Partial<OverloadOptions>;
  /** The bearer token `GET /metrics` asks for (`SVC_METRICS_TOKEN`); without it the metrics are open. */
  metricsToken?: string;
  /** How long `drain` lets running turns finish (DEFAULT_DRAIN_GRACE_MS). */
  drainGraceMs?: number;
  /**
   * How long a visitor waits for a person (`--handoff-wait`, DEFAULT_HANDOFF_WAIT_SECONDS) in a workspace that sets
   * no `wait_seconds` of its own.
   */
  handoffWaitSeconds?: number;
  /**
   * Checks every JSON answer against its route's response schema, and fails (500, logged) one that does not fit:
   * the test suites turn it on (docs/server.md "OpenAPI document").
   */
  checkResponses?: boolean;
  /**
   * The endpoint and model (`--model-base-url`, `--model`): the defaults of the fixture's `model` agents, and
   * with `base_url` the demo workspace's main agent becomes a `model` agent.
   */
  model?: ModelOptions;
}

export interface RunningService {
  url: string;
  app: FastifyInstance;
  ctx: AppContext;
  /** The demo workspace's key, when the database was seeded with it. */
  demoApiKey?: string;
  /** Ends streams and running turns at once, then the server and the database. */
  close(): Promise<void>;
  /**
   * Stops as SIGTERM does: not ready, no new streams or sends (503), open streams ended so their clients
   * resume elsewhere, running turns given up to `drainGraceMs` to finish; then `close`.
   */
  drain(): Promise<void>;
}

/**
 * Starts the reference service: database, fixture or demo seed, recovery of what a previous process
 * left running, HTTP. Used by the CLI and by tests.
 */
export async function startService(options: ServiceOptions = {}): Promise<RunningService> {
  const publicUrl = options.publicUrl === undefined ? undefined : publicUrlOption(options.publicUrl);
  options.linkHosts?.forEach(linkHostOption);
  const location = options.db ?? ':memory:';
  if (location !== ':memory:' && !isPostgresUrl(location)) mkdirSync(dirname(resolve(location)), { recursive: true });
  const db = await openDb(location);
  try {
    return await serve(db, { ...options, publicUrl });
  } catch (err) {
    await db.close();
    throw err;
  }
}

async function serve(db: Db, options: ServiceOptions): Promise<RunningService> {
  const filesDir = resolve(options.filesDir ?? `${process.env.TMPDIR ?? '/tmp'}/svc-files-${process.pid}`);
  mkdirSync(filesDir, { recursive: true });
  const logger = createLogger(options.log);
  const log = (line: string) => logger.info(line);
  const logError = (line: string) => logger.error(line);
  const quotas = { ...DEFAULT_QUOTAS, ...options.quotas };

  // One transaction holding the key `seed`: instances starting together on one database seed it once.
  const demoApiKey = await db.transaction(async (tx) => {
    await tx.lock('seed');
    if (options.fixture) await loadFixture(tx, options.fixture, options.model);
    else if (options.demo) {
      const key = await seedDemo(tx);
      await setDemoModel(tx, options.model?.base_url ? options.model : undefined);
      await enableDemoOperators(tx);
      return key;
    }
    return undefined;
  });
  // Nothing is seeded unasked (a production database stays as the operator made it): say how to get a workspace.
  if (!options.fixture && !options.demo && !(await hasWorkspaces(db))) {
    logger.warn('the database has no workspace: --demo seeds the demo workspace, --fixture FILE loads yours');
  }

  const metrics = new Metrics({
    openStreams: () => ctx.streams.total,
    runningTurns: () => ctx.turns.size,
    pool: () => db.pool,
  });
  const records = new RecordLog(db, logError, (count) => metrics.recordsWritten.inc(count));
  const ctx: AppContext = {
    db,
    records,
    turns: new TurnRegistry(db, records),
    payments: new PaymentOrders(db, records, log),
    handoffs: new Handoffs(
      db,
      records,
      log,
      options.handoffWaitSeconds ?? DEFAULT_HANDOFF_WAIT_SECONDS,
      (tx, handoff, record) => followUnanswered(ctx, tx, handoff, record),
    ),
    queues: new OperatorQueues(db),
    streams: new OpenStreams(quotas.streamsPerUser),
    filesDir,
    maxUploadBytes: options.maxUploadBytes ?? 20 * 1024 * 1024,
    quotas,
    publicUrl: options.publicUrl,
    // Set once the service listens, before any request.
    linkHosts: { names: new Set(), own: '', warned: new Set() },
    secret: await serverSecret(db),
    sms: options.smsOutbox ? outboxSender(options.smsOutbox) : logSender(log),
    smsChallenge: options.smsChallenge,
    speech: espeakSynthesizer(),
    heartbeatMs: options.heartbeatMs ?? 15000,
    demoApiKey: options.demo ? () => seedDemo(db) : undefined,
    metrics,
    drain: new Drain(),
    log,
    logError,
  };
  db.liveness.watch({
    lost: (err) =>
      logError(`this instance's own database connection dropped (${err.message}): its turns end; connecting again`),
    back: (instanceId) => logError(`connected to the database again, as instance ${instanceId}`),
  });
  await records.listen();
  await ctx.turns.listen();
  await ctx.queues.listen();
  // What a previous process left running: its turns end, its pending orders expire and its waits end on time again.
  await endAbandonedTurns(ctx);
  await ctx.payments.armPending();
  await ctx.handoffs.armWaiting();
  await housekeeping(ctx);
  const sweeper = setInterval(() => housekeeping(ctx), HOUSEKEEPING_MS).unref();
  const recovery = db.engine === 'postgres' ? repeat('recovery', () => recover(ctx), RECOVERY_MS, logError) : undefined;

  const app = await buildApp(ctx, {
    logger,
    trustProxy: options.trustProxy,
    overload: { ...DEFAULT_OVERLOAD, ...options.overload },
    metricsToken: options.metricsToken,
    checkResponses: options.checkResponses,
  });
  // Streams never end by themselves and turns may be mid-reply: end both so the service can close.
  app.addHook('preClose', async () => {
    recovery?.stop();
    await ctx.turns.stopAll();
    await ctx.records.closeAll();
    await ctx.queues.close();
  });
  app.addHook('onClose', async () => {
    ctx.payments.stopTimers();
    ctx.handoffs.stopTimers();
    clearInterval(sweeper);
  });
  const host = options.host ?? '127.0.0.1';
  await app.listen({ host, port: options.port ?? 8787 }).catch(async (err) => {
    await app.close();
    throw err;
  });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  ctx.linkHosts = linkHostsFor(host, port ?? 0, options.linkHosts);
  const close = async () => {
    await app.close();
    await db.close();
  };
  const graceMs = options.drainGraceMs ?? DEFAULT_DRAIN_GRACE_MS;
  return {
    url,
    app,
    ctx,
    demoApiKey,
    close,
    async drain() {
      ctx.drain.begin();
      log('draining: not ready, no new streams or sends; open streams end, running turns may finish');
      ctx.streams.endAll();
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      });
      await Promise.race([ctx.turns.whenIdle(), graceOver]);
      clearTimeout(timer);
      if (ctx.turns.size) log(`the drain's grace of ${graceMs} ms is over: ${ctx.turns.size} running turns end`);
      await close();
    },
  };
}

/** Clears away what has expired: uploads no message refers to, results kept for repeated sends. */
async function housekeeping(ctx: AppContext): Promise<void> {
  try {
    await sweepUploads(ctx);
    await forgetSendsBefore(ctx.db, clock.now() - LIMITS.idempotencyMs);
  } catch (err) {
    ctx.logError(`housekeeping failed: ${errorText(err)}`);
  }
}

/**
 * Runs `job` every `ms` after the previous run has finished (runs never overlap); `stop` ends it. A failure is
 * logged when the job starts failing or fails otherwise than the run before, and the run that works again says
 * so: a database away for minutes, or an order that cannot be expired, is not a line a second.
 */
function repeat(
  name: string,
  job: () => Promise<void>,
  ms: number,
  logError: (line: string) => void,
): { stop(): void } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let failing: string | undefined;
  const run = async () => {
    try {
      await job();
      if (failing !== undefined) logError(`${name} works again`);
      failing = undefined;
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      if (why !== failing) logError(`${name} failed (logged again when it fails otherwise): ${errorText(err)}`);
      failing = why;
    }
  };
  const next = () => {
    if (!stopped) timer = setTimeout(() => void run().finally(next), ms).unref();
  };
  next();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/**
 * Ends the turns of instances that are gone, expires the orders that are due and ends the waits for a person past
 * their deadline (the claimed jobs).
 */
async function recover(ctx: AppContext): Promise<void> {
  await endAbandonedTurns(ctx, ABANDONED.stopped);
  await ctx.payments.expireDue();
  await ctx.handoffs.missDue();
}

/** `SVC_SERVER_SECRET` (64 hex digits) or a random secret kept in the database (the first instance's). */
async function serverSecret(db: Db): Promise<Buffer> {
  const fromEnv = process.env.SVC_SERVER_SECRET;
  if (fromEnv && /^[0-9a-f]{64}$/i.test(fromEnv)) return Buffer.from(fromEnv, 'hex');
  const stored = (await metaValue(db, 'secret')) ?? (await setMetaValue(db, 'secret', randomBytes(32).toString('hex')));
  return Buffer.from(stored, 'hex');
}
