import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { AppContext } from './context.js';
import { LiveHub } from './conversations/hub.js';
import { endAbandonedTurns, TurnRegistry } from './conversations/runner.js';
import { type Db, openDb } from './db.js';
import { type Fixture, loadFixture } from './fixture.js';
import type { ModelOptions } from './runtimes/model/options.js';
import { seedDemo, setDemoModel } from './seed.js';
import { logSender, outboxSender } from './sms.js';
import { espeakSynthesizer } from './speech.js';
import { schemas } from './store/schemas.js';

export interface ServiceOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** A file path or `:memory:`. */
  db?: string;
  fixture?: Fixture;
  smsOutbox?: string;
  filesDir?: string;
  demo?: boolean;
  heartbeatMs?: number;
  maxUploadBytes?: number;
  log?: (line: string) => void;
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
  close(): Promise<void>;
}

/** Starts the reference service: database, fixture or demo seed, HTTP. Used by the CLI and by tests. */
export async function startService(options: ServiceOptions = {}): Promise<RunningService> {
  const dbPath = options.db ?? ':memory:';
  if (dbPath !== ':memory:') mkdirSync(dirname(resolve(dbPath)), { recursive: true });
  const db = openDb(dbPath, schemas);
  const filesDir = resolve(options.filesDir ?? `${process.env.TMPDIR ?? '/tmp'}/svc-files-${process.pid}`);
  mkdirSync(filesDir, { recursive: true });
  const log = options.log ?? (() => {});

  let demoApiKey: string | undefined;
  if (options.fixture) loadFixture(db, options.fixture, options.model);
  else if (isEmpty(db) || options.demo) {
    demoApiKey = seedDemo(db).apiKey;
    setDemoModel(db, options.model?.base_url ? options.model : undefined);
  }

  const ctx: AppContext = {
    db,
    filesDir,
    secret: serverSecret(db),
    sms: options.smsOutbox ? outboxSender(options.smsOutbox) : logSender(log),
    heartbeatMs: options.heartbeatMs ?? 15000,
    maxUploadBytes: options.maxUploadBytes ?? 20 * 1024 * 1024,
    demo: options.demo ?? false,
    log,
    speech: espeakSynthesizer(),
    paymentTimers: new Map(),
    hub: new LiveHub(),
    turns: new TurnRegistry(),
  };
  endAbandonedTurns(ctx);
  const app = buildApp(ctx);
  const host = options.host ?? '127.0.0.1';
  await app.listen({ host, port: options.port ?? 8787 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url,
    app,
    ctx,
    demoApiKey,
    async close() {
      await app.close();
      db.close();
    },
  };
}

function isEmpty(db: Db): boolean {
  return !db.prepare('SELECT 1 FROM workspaces LIMIT 1').get();
}

/** `SVC_SERVER_SECRET` (64 hex digits) or a random secret kept in the database. */
function serverSecret(db: Db): Buffer {
  const fromEnv = process.env.SVC_SERVER_SECRET;
  if (fromEnv && /^[0-9a-f]{64}$/i.test(fromEnv)) return Buffer.from(fromEnv, 'hex');
  const row = db.prepare("SELECT value FROM meta WHERE key = 'secret'").get() as { value: string } | undefined;
  if (row) return Buffer.from(row.value, 'hex');
  const secret = randomBytes(32);
  db.prepare("INSERT INTO meta (key, value) VALUES ('secret', ?)").run(secret.toString('hex'));
  return secret;
}
