import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { freePort } from './free-port.mjs';
import { startModelServer } from './model-server.mjs';
import { SEED } from './seed.mjs';

/**
 * A @web/test-runner plugin that starts the real reference service (demo workspace, in-memory database) for
 * the browser tests, and a second one whose main agent is a `model` agent on the scripted model server (as
 * `npm start` with an endpoint). It serves `/__svc/config.js` with their URLs and demo keys and the run's seed
 * (`SVC_SEED`), `/__svc/sms?phone=` with the last SMS code sent to a phone, read from the outbox file, and
 * `/__svc/closed-port` with a port nothing listens on (a service that is not running, or a wrong `base-url`),
 * and `/__svc/pay?url=` to click Pay on a pay page (its form's post, from the page's own origin: a test page of
 * another origin may not pay).
 */
export function svcServicePlugin() {
  let children = [];
  let modelServer;
  let dir;
  let config;
  return {
    name: 'svc-service',
    async serverStart() {
      dir = mkdtempSync(join(tmpdir(), 'svc-wtr-'));
      const outbox = join(dir, 'outbox.jsonl');
      modelServer = await startModelServer();
      const [demo, withModel] = await Promise.all([
        startSvc(['--sms-outbox', outbox, '--files-dir', join(dir, 'files')]),
        // As `npm start` runs with a model endpoint in the environment: Aria is a `model` agent.
        startSvc(['--files-dir', join(dir, 'model-files')], {
          SVC_MODEL_BASE_URL: modelServer.url,
          SVC_MODEL: 'scripted',
        }),
      ]);
      children = [demo.child, withModel.child];
      config = { url: demo.url, apiKey: demo.apiKey, outbox, model: { url: withModel.url, apiKey: withModel.apiKey } };
    },
    async serverStop() {
      for (const child of children) child.kill('SIGTERM');
      await modelServer?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
    async serve(context) {
      if (context.path === '/__svc/config.js') {
        const { url, apiKey, model } = config;
        return { body: `export default ${JSON.stringify({ url, apiKey, model, seed: SEED })};`, type: 'js' };
      }
      if (context.path === '/__svc/sms') {
        const phone = context.URL.searchParams.get('phone');
        let text = '';
        try {
          text = readFileSync(config.outbox, 'utf8');
        } catch {}
        const codes = text
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l))
          .filter((m) => m.phone === phone);
        return { body: JSON.stringify(codes.at(-1) ?? null), type: 'json' };
      }
      if (context.path === '/__svc/pay') {
        const payUrl = new URL(context.URL.searchParams.get('url'));
        const res = await fetch(`${payUrl}/pay`, {
          method: 'POST',
          headers: { origin: payUrl.origin, 'content-type': 'application/x-www-form-urlencoded' },
          body: '',
          redirect: 'manual',
        });
        return { body: JSON.stringify({ status: res.status }), type: 'json' };
      }
      if (context.path === '/__svc/closed-port') return { body: JSON.stringify(await freePort()), type: 'json' };
      if (context.path === '/__svc/csp-page') {
        return { body: CSP_PAGE, type: 'html', headers: { 'content-security-policy': STRICT_CSP } };
      }
      if (context.path === '/__svc/csp-watch.js') return { body: CSP_WATCH, type: 'js' };
      return undefined;
    },
  };
}

/**
 * Starts `svc-server` with the demo workspace on a free port and an in-memory database; resolves with its URL
 * and demo key. The model endpoint comes from `env` only, never from the environment the tests run in.
 */
async function startSvc(args, env = {}) {
  const child = spawn(
    process.execPath,
    ['server/bin/svc-server.js', '--port', '0', '--db', ':memory:', '--demo', ...args],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      // Warnings and failures only: a line per request would bury the runner's own report.
      env: { ...process.env, SVC_MODEL_BASE_URL: '', SVC_MODEL: '', SVC_LOG_LEVEL: 'warn', ...env },
    },
  );
  const lines = createInterface({ input: child.stdout });
  return new Promise((resolve, reject) => {
    const found = { child };
    child.once('exit', (code) => reject(new Error(`svc-server exited with ${code}`)));
    lines.on('line', (line) => {
      const url = /^listening on (\S+)/.exec(line);
      const key = /^demo workspace API key: (\S+)/.exec(line);
      if (url) found.url = url[1];
      if (key) found.apiKey = key[1];
      if (found.url && found.apiKey) resolve(found);
    });
  });
}

/** Answers `/__svc/token-unavailable` as a site's token endpoint whose backend is down: 500 (a plugin can only answer 200). */
export async function tokenUnavailable(context, next) {
  if (context.path !== '/__svc/token-unavailable') return next();
  context.status = 500;
  context.body = 'the session service is down';
}

/** The policy a strict host page sets: scripts of its own origin only, and Trusted Types for every HTML sink. */
const STRICT_CSP = "script-src 'self'; require-trusted-types-for 'script'; trusted-types dompurify lit-html";

/** A page under STRICT_CSP that loads the script-tag build; the CSP test fills it in. */
const CSP_PAGE = `<!doctype html><html><head><meta charset="utf-8">
<script src="/__svc/csp-watch.js"></script><script src="/dist/svc-chat.js"></script></head><body></body></html>`;

/** Counts what the policy blocks, from before the bundle loads. */
const CSP_WATCH = `window.__violations = [];
document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));`;
