import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Fixture } from '../../server/fixture.js';
import { type RunningService, type ServiceOptions, startService } from '../../server/service.js';

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
  /** Folder for this server's files and SMS outbox; removed on close. */
  dir: string;
  outbox: string;
  /** `fetch` against `/api/v2` with an optional bearer token and JSON body. */
  api(path: string, init?: ApiInit): Promise<{ status: number; body: any; headers: Headers }>;
  /** Resolves once no stream reads the conversation any more (the service drops a reader when its connection closes). */
  readersGone(conversationId: string): Promise<void>;
}

export interface ApiInit {
  method?: string;
  token?: string;
  json?: unknown;
  headers?: Record<string, string>;
  body?: BodyInit;
}

/** A real service on a free loopback port with an in-memory database, as the conformance suite runs it. */
export async function startTestServer(options: ServiceOptions = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-'));
  const outbox = join(dir, 'sms-outbox.jsonl');
  const service = await startService({
    port: 0,
    db: ':memory:',
    fixture: FIXTURE,
    smsOutbox: outbox,
    filesDir: join(dir, 'files'),
    ...options,
  });
  // Every reader the record log lets go is announced, so a test waits for the last one to leave instead of
  // looking again.
  const { records } = service.ctx;
  const left = new EventEmitter();
  const follow = records.follow;
  records.follow = (conversationId, after, reader) => {
    const unsubscribe = follow.call(records, conversationId, after, reader);
    return () => {
      unsubscribe();
      left.emit(conversationId);
    };
  };
  return {
    ...service,
    dir,
    outbox,
    async api(path, init = {}) {
      const headers: Record<string, string> = { ...init.headers };
      if (init.token) headers.authorization = `Bearer ${init.token}`;
      let body = init.body;
      if (init.json !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(init.json);
      }
      const res = await fetch(`${service.url}/api/v2${path}`, { method: init.method ?? 'GET', headers, body });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // Non-JSON bodies (SSE, audio, HTML) are returned as text.
      }
      return { status: res.status, body: parsed, headers: res.headers };
    },
    readersGone: (conversationId) =>
      new Promise((resolve) => {
        const check = () => {
          if (records.readers(conversationId) > 0) return;
          left.off(conversationId, check);
          resolve();
        };
        left.on(conversationId, check);
        check();
      }),
    async close() {
      await service.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
