import { EventEmitter } from 'node:events';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Fixture } from '../../server/boot/fixture.js';
import type { LogOptions } from '../../server/boot/logger.js';
import { type RunningService, type ServiceOptions, startService } from '../../server/boot/service.js';
import { getConnectorCredentials } from '../../server/store/connector-credential-rows.js';
import { testPostgres } from './postgres.js';
import { startRoundRobin } from './round-robin.js';

/**
 * How long `readersGone` waits for a stream's reader to leave the service. A closed connection is noticed
 * in milliseconds; a reader still there after this is one that will not go.
 */
const READERS_GONE_MS = 10_000;

/** The fixture every server test starts from (the format of docs/server.md). */
export const FIXTURE: Fixture = {
  workspaces: [
    {
      slug: 'acme',
      display_name: 'Acme',
      status: 'active',
      sms_signup: true,
      owner: { user_id: 'owner_acme', login_token: 'lt_acme_owner', wallet: 1000 },
      api_keys: [
        { id: 'key_acme_1', secret: 'sk_acme_1' },
        { id: 'key_acme_2', secret: 'sk_acme_2', revoked: true },
      ],
      agents: [
        { id: 'agent_echo', name: 'Echo', runtime: 'echo' },
        { id: 'agent_demo', name: 'Demo', runtime: 'demo' },
        { id: 'agent_scout', name: 'Scout', runtime: 'demo' },
      ],
    },
    {
      slug: 'globex',
      display_name: 'Globex',
      status: 'active',
      sms_signup: false,
      owner: { user_id: 'owner_globex', login_token: 'lt_globex_owner', wallet: 50 },
      api_keys: [{ id: 'key_globex_1', secret: 'sk_globex_1' }],
      agents: [{ id: 'agent_globex', name: 'Globex Echo', runtime: 'echo' }],
    },
  ],
  personal_keys: [
    { secret: 'pk_alice', user_id: 'alice' },
    { secret: 'pk_bob', user_id: 'bob' },
  ],
};

export interface TestServer extends RunningService {
  /** Every instance behind `url` (one, unless SVC_TEST_INSTANCES asks for more); `ctx` is the first's. */
  instances: RunningService[];
  /** Folder for this server's files and SMS outbox; removed on close. */
  dir: string;
  outbox: string;
  /** `fetch` against `/api/v2` with an optional bearer token and JSON body. */
  api(path: string, init?: ApiInit): Promise<{ status: number; body: any; headers: Headers }>;
  /**
   * Resolves once no stream reads the conversation any more, or at most `left` do (the service drops a reader
   * when its connection closes). Rejects after `withinMs` (default READERS_GONE_MS) naming the readers still
   * open, so a reader that never goes fails the test at once rather than at the test timeout.
   */
  readersGone(conversationId: string, left?: number, withinMs?: number): Promise<void>;
}

export interface ApiInit {
  method?: string;
  token?: string;
  json?: unknown;
  headers?: Record<string, string>;
  body?: BodyInit;
}

/** `fetch` against `{url}/api/v2{path}` with an optional bearer token and JSON body; a JSON answer parsed. */
export async function api(url: string, path: string, init: ApiInit = {}) {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  let body = init.body;
  if (init.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.json);
  }
  const res = await fetch(`${url}/api/v2${path}`, { method: init.method ?? 'GET', headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // Non-JSON bodies (SSE, audio, HTML) are returned as text.
  }
  return { status: res.status, body: parsed as any, headers: res.headers };
}

/**
 * The database of a test service: SQLite in memory, as the conformance suite runs it; with
 * SVC_TEST_DATABASE=postgres, a new database of the test process's PostgreSQL (test/helpers/postgres.ts).
 */
export async function testDatabase(): Promise<string> {
  return process.env.SVC_TEST_DATABASE === 'postgres' ? (await testPostgres()).createDatabase() : ':memory:';
}

/** Test services started by this process, for the names of their log files. */
let logged = 0;

/**
 * With SVC_TEST_LOGS=DIR (`npm run test:node`), every test service logs at `debug` into a file of DIR as well as
 * where its test asks, and leaves beside it the secrets it saw (secretsSeen): test/logs/no-secrets.test.ts
 * then checks that no log holds one. Returns the log to start with, and where to write the secrets.
 */
function capturedLog(log: LogOptions | undefined): { log?: LogOptions; secretsFile?: string } {
  const dir = process.env.SVC_TEST_LOGS;
  if (!dir) return { log };
  mkdirSync(dir, { recursive: true });
  const name = join(dir, `${process.pid}-${++logged}`);
  const file = `${name}.jsonl`;
  // Where the test asked, else what the service writes unasked: its errors, on stderr.
  const own = log?.destination ?? {
    write: (line: string) => JSON.parse(line).level === 'error' && process.stderr.write(line),
  };
  const destination = {
    write(line: string) {
      appendFileSync(file, line);
      own.write(line);
    },
  };
  return { log: { ...log, level: 'debug', destination }, secretsFile: `${name}.secrets.json` };
}

/**
 * The secrets a test service was given or handed out that can be read back at its end: the fixture's keys and
 * login tokens, the SMS codes of its outbox, and the connector credentials stored (decrypted). Session tokens
 * are found by their form, `mcpTokens` are never stored (test/helpers/secrets.ts lists the suites' ones).
 */
async function secretsSeen(service: RunningService, fixture: Fixture, outbox: string): Promise<string[]> {
  const keys = (fixture.workspaces ?? []).flatMap((w) => [
    ...(w.owner?.login_token ? [w.owner.login_token] : []),
    ...(w.api_keys ?? []).map((k) => k.secret),
  ]);
  const personal = (fixture.personal_keys ?? []).map((k) => k.secret);
  const codes = existsSync(outbox)
    ? readFileSync(outbox, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as { code: string }).code)
    : [];
  const { db, secret } = service.ctx;
  const rows = await db
    .all<{ user_id: string; connector_type_id: string }>('SELECT user_id, connector_type_id FROM connector_credentials')
    // A test that closed the database itself stored none.
    .catch(() => []);
  const credentials = await Promise.all(
    rows.map((row) =>
      getConnectorCredentials(db, secret, row.user_id, row.connector_type_id).then(
        (values) => Object.values(values ?? {}),
        // A row a test tampered with on purpose does not decrypt.
        () => [],
      ),
    ),
  );
  return [...keys, ...personal, ...codes, ...credentials.flat()];
}

/**
 * A real service on a free loopback port with a database of its own (testDatabase). With
 * SVC_TEST_INSTANCES=N (and SVC_TEST_DATABASE=postgres), N instances on that database, sharing the files
 * folder and the SMS outbox, behind a round-robin balancer (test/helpers/round-robin.ts): consecutive
 * requests reach different instances.
 */
export async function startTestServer(options: ServiceOptions = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-'));
  const outbox = join(dir, 'sms-outbox.jsonl');
  const instances: RunningService[] = [];
  const count = Number(process.env.SVC_TEST_INSTANCES ?? 1);
  const { log, secretsFile } = capturedLog(options.log);
  // The balancer's address names the service too: links made through it point at it. It listens first: a port
  // picked ahead and bound once the instances had started was at times taken meanwhile (EADDRINUSE).
  const targets: string[] = [];
  const balancer = count > 1 ? await startRoundRobin(targets) : undefined;
  const linkHosts = balancer ? [new URL(balancer.url).host, ...(options.linkHosts ?? [])] : options.linkHosts;
  try {
    const db = options.db ?? (await testDatabase());
    for (let i = 0; i < count; i++) {
      instances.push(
        await startService({
          port: 0,
          db,
          fixture: FIXTURE,
          smsOutbox: outbox,
          filesDir: join(dir, 'files'),
          // Every answer of the suites is held to its route's response schema.
          checkResponses: true,
          ...options,
          linkHosts,
          log,
        }),
      );
    }
  } catch (err) {
    await Promise.all(instances.map((instance) => instance.close()));
    await balancer?.close();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  targets.push(...instances.map((instance) => instance.url));
  const service = { ...instances[0]!, url: balancer?.url ?? instances[0]!.url };
  // Every reader a record log lets go is announced, so a test waits for the last one to leave instead of
  // looking again; the readers are counted over every instance.
  const left = new EventEmitter();
  for (const { ctx } of instances) {
    const { records } = ctx;
    const follow = records.follow;
    records.follow = (conversationId, after, reader) => {
      const follower = follow.call(records, conversationId, after, reader);
      return {
        ...follower,
        stop() {
          follower.stop();
          left.emit(conversationId);
        },
      };
    };
  }
  const readers = (conversationId: string) =>
    instances.reduce((sum, { ctx }) => sum + ctx.records.readers(conversationId), 0);
  return {
    ...service,
    instances,
    dir,
    outbox,
    api: (path, init) => api(service.url, path, init),
    readersGone: (conversationId, remaining = 0, withinMs = READERS_GONE_MS) =>
      new Promise((resolve, reject) => {
        const stop = () => {
          clearTimeout(timer);
          left.off(conversationId, check);
        };
        const check = () => {
          if (readers(conversationId) > remaining) return;
          stop();
          resolve();
        };
        const timer = setTimeout(() => {
          stop();
          const open = instances.map(({ ctx }) => ctx.records.readers(conversationId));
          const total = open.reduce((sum, n) => sum + n, 0);
          reject(
            new Error(
              `readersGone: ${conversationId} still has ${total} open reader${total === 1 ? '' : 's'} after ` +
                `${withinMs} ms, wanted at most ${remaining} (per instance: ${open.join(', ')})`,
            ),
          );
        }, withinMs);
        left.on(conversationId, check);
        check();
      }),
    async close() {
      if (secretsFile) {
        const seen = await secretsSeen(instances[0]!, options.fixture ?? FIXTURE, options.smsOutbox ?? outbox);
        writeFileSync(secretsFile, JSON.stringify(seen));
      }
      await balancer?.close();
      await Promise.all(instances.map((instance) => instance.close()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
