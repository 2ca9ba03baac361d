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
  const { url, apiKey } = on ?? (await service());
  const call = async (path: string, body: unknown) => {
    const res = await fetch(`${url}/api/v2/workspaces/demo${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  await call('/members', { sp_user_ref: ref });
  return call('/sessions', { sp_user_ref: ref, ttl_seconds: ttlSeconds });
}

/** The last SMS code the service sent to `phone` (read from its outbox). */
export async function lastSmsCode(phone: string): Promise<string | undefined> {
  const res = await fetch(`/__svc/sms?phone=${encodeURIComponent(phone)}`);
  const message = (await res.json()) as { code: string } | null;
  return message?.code;
}

/** Resolves when `check` returns a truthy value, polling each animation frame; fails after `ms`. */
export async function until<T>(check: () => T | Promise<T>, ms = 10_000, what = 'condition'): Promise<NonNullable<T>> {
  const end = performance.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => requestAnimationFrame(r));
  }
}

/** The address of a service that is not running: a port nothing listens on, so connecting is refused. */
export async function closedServiceUrl(): Promise<string> {
  const res = await fetch('/__svc/closed-port');
  return `http://127.0.0.1:${(await res.json()) as number}`;
}
