import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
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
 * another origin may not pay). A third, `challenge`, has an SMS challenge (a stand-in `siteverify` that accepts
 * the answer `solved`) and has spent half its daily cap: every new number's code needs the answer.
 */
export function svcServicePlugin() {
  let children = [];
  let modelServer;
  let verifier;
  let dir;
  let config;
  return {
    name: 'svc-service',
    async serverStart() {
      dir = mkdtempSync(join(tmpdir(), 'svc-wtr-'));
      const outbox = join(dir, 'outbox.jsonl');
      modelServer = await startModelServer();
      verifier = await startVerifier();
      const [demo, withModel, challenged] = await Promise.all([
        startSvc(['--sms-outbox', outbox, '--files-dir', join(dir, 'files')]),
        // As `npm start` runs with a model endpoint in the environment: Aria is a `model` agent.
        startSvc(['--files-dir', join(dir, 'model-files')], {
          SVC_MODEL_BASE_URL: modelServer.url,
          SVC_MODEL: 'scripted',
        }),
        startSvc(
          [
            ...['--sms-outbox', outbox, '--files-dir', join(dir, 'challenge-files')],
            ...['--sms-challenge-url', verifier.url, '--quota', `smsPerWorkspacePerDay=${CHALLENGE_CAP}`],
          ],
          { SVC_SMS_CHALLENGE_SECRET: 'test-secret' },
        ),
      ]);
      children = [demo.child, withModel.child, challenged.child];
      await spendHalfTheCap(challenged.url);
      config = {
        url: demo.url,
        apiKey: demo.apiKey,
        outbox,
        model: { url: withModel.url, apiKey: withModel.apiKey },
        challenge: { url: challenged.url, apiKey: challenged.apiKey },
      };
    },
    async serverStop() {
      for (const child of children) child.kill('SIGTERM');
      await modelServer?.close();
      verifier?.server.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
    async serve(context) {
      if (context.path === '/__svc/config.js') {
        const { url, apiKey, model, challenge } = config;
        return { body: `export default ${JSON.stringify({ url, apiKey, model, challenge, seed: SEED })};`, type: 'js' };
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

/**
 * The challenge service's daily cap: past its first half, an address may have 10 codes to new numbers a day,
 * enough for each engine's sign-ins behind the challenge.
 */
const CHALLENGE_CAP = 500;

/** A stand-in for a CAPTCHA provider's `siteverify` (none is reachable here): `solved` passes, anything else not. */
async function startVerifier() {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const form = new URLSearchParams(body);
      const success = form.get('secret') === 'test-secret' && form.get('response') === 'solved';
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ success }));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${server.address().port}/siteverify` };
}

/**
 * Codes to half the cap's worth of new numbers, from as many loopback addresses as the hourly limit per address
 * asks (the service listens on all of 127.0.0.0/8): what a busy day would have sent before the challenge.
 */
async function spendHalfTheCap(url) {
  const target = new URL(`${url}/api/v2/workspaces/demo/sms/send`);
  const send = (i) =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify({ phone: `+1555${String(i).padStart(7, '0')}` });
      const req = request(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          localAddress: `127.0.10.${1 + Math.floor(i / 20)}`,
          headers: { 'content-type': 'application/json' },
        },
        (res) => {
          res.resume();
          res.on('end', () => (res.statusCode === 204 ? resolve() : reject(new Error(`send ${i}: ${res.statusCode}`))));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  for (let i = 0; i < CHALLENGE_CAP / 2; i += 20) {
    await Promise.all(Array.from({ length: Math.min(20, CHALLENGE_CAP / 2 - i) }, (_, j) => send(i + j)));
  }
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
