import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { freePort } from './free-port.mjs';

/**
 * A @web/test-runner plugin that starts the real reference service (demo workspace, in-memory database) for
 * the browser tests, and serves `/__svc/config.js` with its URL and demo key, `/__svc/sms?phone=` with the
 * last SMS code sent to a phone, read from the outbox file, and `/__svc/closed-port` with a port nothing
 * listens on (a service that is not running, or a wrong `base-url`).
 */
export function svcServicePlugin() {
  let child;
  let dir;
  let config;
  return {
    name: 'svc-service',
    async serverStart() {
      dir = mkdtempSync(join(tmpdir(), 'svc-wtr-'));
      const outbox = join(dir, 'outbox.jsonl');
      child = spawn(
        process.execPath,
        [
          'bin/svc-server.js',
          '--port',
          '0',
          '--db',
          ':memory:',
          '--demo',
          '--sms-outbox',
          outbox,
          '--files-dir',
          join(dir, 'files'),
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      const lines = createInterface({ input: child.stdout });
      config = await new Promise((resolve, reject) => {
        const found = {};
        child.once('exit', (code) => reject(new Error(`svc-server exited with ${code}`)));
        lines.on('line', (line) => {
          const url = /^listening on (\S+)/.exec(line);
          const key = /^demo workspace API key: (\S+)/.exec(line);
          if (url) found.url = url[1];
          if (key) found.apiKey = key[1];
          if (found.url && found.apiKey) resolve({ ...found, outbox });
        });
      });
    },
    async serverStop() {
      child?.kill('SIGTERM');
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
    async serve(context) {
      if (context.path === '/__svc/config.js') {
        return { body: `export default ${JSON.stringify({ url: config.url, apiKey: config.apiKey })};`, type: 'js' };
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
      if (context.path === '/__svc/closed-port') return { body: JSON.stringify(await freePort()), type: 'json' };
      if (context.path === '/__svc/csp-page') {
        return { body: CSP_PAGE, type: 'html', headers: { 'content-security-policy': STRICT_CSP } };
      }
      if (context.path === '/__svc/csp-watch.js') return { body: CSP_WATCH, type: 'js' };
      return undefined;
    },
  };
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
