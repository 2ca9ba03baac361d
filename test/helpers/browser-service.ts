import { waitingFor } from './until.js';

export { until } from './until.js';
/** A running reference service with the demo workspace. */
export interface DemoService {
  url: string;
  /** The demo workspace key: used here only the way a site's backend would, to mint visitor sessions. */
  apiKey: string;
}

/**
 * The real reference service the browser tests talk to, started by `test/helpers/wtr-service.mjs` with the
 * demo workspace (agents `agent_aria` and `agent_scout` on the demo runtime, `agent_echo` on echo), and
 * `model`: a second one where `agent_aria` is a `model` agent on the scripted model server
 * (`conversationalReply` of `test/helpers/model-server.mjs`).
 */
export interface BrowserService extends DemoService {
  model: DemoService;
  /**
   * A third, whose SMS sign-in asks for a challenge (docs/protocol.md, 428) for every new number: it accepts
   * the answer `solved`.
   */
  challenge: DemoService;
  /** The seed of the run's random choices (`SVC_SEED=… npm run test:browser` replays a run). */
  seed: number;
}

let config: Promise<BrowserService> | undefined;

export function service(): Promise<BrowserService> {
  const path = '/__svc/config.js';
  config ??= import(/* @vite-ignore */ path).then((m: { default: BrowserService }) => m.default);
  return config;
}

let visitors = 0;

/**
 * Provisions a visitor of the demo workspace (a fresh one unless `ref` names one) and mints a session token,
 * as a site's backend does; on the default service unless `on` names another.
 */
export async function mintVisitorSession(
  ttlSeconds = 3600,
  ref = `browser_${Date.now()}_${visitors++}_${Math.random().toString(36).slice(2)}`,
  on?: DemoService,
): Promise<{ token: string; expires_at: string }> {
  const call = demoWorkspaceCall(on ?? (await service()));
  await call('/members', { sp_user_ref: ref });
  return call('/sessions', { sp_user_ref: ref, ttl_seconds: ttlSeconds });
}

/** Signs a person of the demo workspace's staff in (an operator session), as a site's backend does. */
export async function mintOperatorSession(
  displayName = 'Alex',
  on?: DemoService,
): Promise<{ token: string; operator_id: string; expires_at: string }> {
  const call = demoWorkspaceCall(on ?? (await service()));
  return call('/operators/sessions', {
    operator_ref: `op_${visitors++}_${Math.random().toString(36).slice(2)}`,
    display_name: displayName,
  });
}

/** A `POST` to the demo workspace's routes with its key, as the site's backend makes it. */
function demoWorkspaceCall({ url, apiKey }: DemoService) {
  return async (path: string, body: unknown) => {
    const res = await fetch(`${url}/api/v2/workspaces/demo${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
}

/** The last SMS code the service sent to `phone` (read from its outbox). */
export async function lastSmsCode(phone: string): Promise<string | undefined> {
  const res = await fetch(`/__svc/sms?phone=${encodeURIComponent(phone)}`);
  const message = (await res.json()) as { code: string } | null;
  return message?.code;
}

// The test that failed names what it was waiting for: a timeout alone says only how long it waited.
afterEach(function () {
  const what = waitingFor();
  const error = this.currentTest?.err;
  if (error && what) error.message += ` (while waiting for ${what})`;
});

/** The address of a service that is not running: a port nothing listens on, so connecting is refused. */
export async function closedServiceUrl(): Promise<string> {
  const res = await fetch('/__svc/closed-port');
  return `http://127.0.0.1:${(await res.json()) as number}`;
}
