import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startService } from '../../server/boot/service.js';
import { page, type Route, startSite } from '../embed/site.js';
import { type Engine, selectedEngines } from '../helpers/browsers.mjs';
import { freePort } from '../helpers/free-port.mjs';
import { launch } from '../journey/drivers.js';

/**
 * The visual review (`npm run screenshots`): every state a visitor meets, in each engine (`SVC_BROWSERS`, all
 * three by default), as the built widget (`dist/`) draws it from the script tag on a page of another origin,
 * written to `test-results/screenshots-review/` with an `index.html` that shows them side by side
 * (docs/elements.md "The visual review"). Each state is a page of its own and what a visitor does there, done
 * through the chat's own API; a screenshot is taken once it has settled (its turn complete, its animations
 * ended, two frames drawn).
 */

export interface ShotState {
  name: string;
  /** What the screenshot shows, as the index says it. */
  title: string;
  /** The `<svc-chat>` element's attributes, besides the service's and the agent's. */
  attributes?: string;
  /** The chat in a phone-sized frame (390 × 700), its launcher's panel full screen. */
  phone?: boolean;
  /** The chat at a service that is not there. */
  unreachable?: boolean;
  /** What the visitor does (an expression run in the page, awaited): `shots` is the page's helper. */
  steps?: string;
}

const INLINE = 'style="display: block; height: 680px; width: 440px"';

export const STATES: ShotState[] = [
  { name: 'launcher', title: 'The launcher, closed', attributes: 'mode="launcher"' },
  { name: 'empty', title: 'An empty conversation with its starter prompts', attributes: INLINE },
  {
    name: 'streaming',
    title: 'A reply streaming in',
    attributes: INLINE,
    steps: 'shots.sendAndWait("/slow 60", () => shots.lastReply().length > 60)',
  },
  { name: 'form', title: 'The form card', attributes: INLINE, steps: 'shots.send("/form")' },
  { name: 'payment', title: 'The payment card', attributes: INLINE, steps: 'shots.send("/pay 9.9")' },
  { name: 'connector', title: 'The connector card', attributes: INLINE, steps: 'shots.send("/connect GitHub")' },
  {
    name: 'list',
    title: 'The list of conversations',
    attributes: INLINE,
    steps: 'shots.send("/help").then(() => shots.press("list-button", "conversation-preview"))',
  },
  {
    name: 'actions',
    title: "A reply's actions, Copy's tooltip shown by the keyboard",
    attributes: INLINE,
    steps: 'shots.send("/help").then(() => shots.focus("copy-button"))',
  },
  { name: 'error', title: 'A reply that failed', attributes: INLINE, steps: 'shots.send("/error")' },
  { name: 'unreachable', title: 'The service cannot be reached', attributes: INLINE, unreachable: true },
  {
    name: 'offline',
    title: 'Offline, two messages waiting in the outbox',
    attributes: INLINE,
    steps:
      'shots.send("/suggest").then(shots.offline).then(() => shots.write("Are you there?")).then(() => shots.write("Hello?")).then(() => shots.until(() => shots.part("outbox-note"), "outbox-note"))',
  },
  {
    name: 'phone',
    title: 'On a phone: the panel full screen',
    attributes: 'mode="launcher"',
    phone: true,
    steps: 'shots.open().then(() => shots.send("/help"))',
  },
  { name: 'dark', title: 'The dark theme', attributes: `${INLINE} theme="dark"`, steps: 'shots.send("/markdown")' },
  { name: 'rtl', title: 'Arabic, right to left', attributes: `${INLINE} lang="ar"`, steps: 'shots.send("/help")' },
];

/**
 * The page's helper: the chat's parts through its shadow roots, a turn sent and awaited, a wait until the page
 * has settled. It only waits on events and frames (a minute at most, then it says what it waited for).
 */
const HELPER = `<script>
window.shots = (() => {
  const chat = () => (document.querySelector('iframe')?.contentDocument ?? document).querySelector('svc-chat');
  const roots = () => { const own = chat().shadowRoot; const panel = own?.querySelector('svc-chat-panel')?.shadowRoot; return [own, panel].filter(Boolean); };
  const part = (name) => roots().map((r) => r.querySelector('[part~="' + name + '"]')).find(Boolean);
  const until = (check, what) => new Promise((resolve, reject) => {
    const giveUp = setTimeout(() => reject(new Error('gave up waiting for ' + what)), 60000);
    const step = () => { const value = check(); if (value) { clearTimeout(giveUp); resolve(value); } else requestAnimationFrame(step); };
    step();
  });
  const frames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const turn = () => new Promise((r) => chat().addEventListener('svc-turn-complete', r, { once: true }));
  const lastReply = () => { const bubbles = roots().flatMap((r) => [...r.querySelectorAll('[part~="message-agent"] [part~="bubble"]')]); const last = bubbles.at(-1); return (last?.querySelector('svc-markdown')?.shadowRoot ?? last)?.textContent ?? ''; };
  return {
    lastReply,
    part,
    until,
    // The network drops: every request the page makes fails as a dropped connection does (the client looks
    // fetch up on every request).
    offline: () => { window.fetch = () => Promise.reject(new TypeError('Failed to fetch')); },
    ready: () => until(() => chat()?.updateComplete, 'the chat').then((p) => p).then(() => chat().updateComplete),
    open: () => { chat().open(); return chat().updateComplete; },
    send: (text) => { const done = turn(); return chat().send(text).then(() => done); },
    // Sent without waiting for its reply (none comes offline).
    write: (text) => chat().send(text),
    sendAndWait: (text, check) => { void chat().send(text); return until(check, 'the reply under way'); },
    press: (name, then) => until(() => part(name), name).then((b) => { b.click(); return until(() => part(then), then); }),
    focus: (name) => until(() => part(name), name).then((b) => b.focus({ focusVisible: true })),
    settled: async () => {
      await chat().updateComplete;
      const all = roots().flatMap((r) => [...r.querySelectorAll('svc-markdown, [part~="card"]')]);
      await Promise.all(all.map((e) => e.updateComplete));
      await Promise.all(roots().flatMap((r) => r.getAnimations()).map((a) => a.finished.catch(() => {})));
      await frames();
      return true;
    },
  };
})();
</script>`;

export interface Shot {
  engine: Engine;
  state: ShotState;
  file: string;
}

/**
 * Takes `states` in `engines` into `dir` (`<engine>-<state>.png`), with the service and a site of its own, and
 * writes the index. Resolves with the screenshots taken.
 */
export async function takeScreenshots(dir: string, engines = selectedEngines(), states = STATES): Promise<Shot[]> {
  mkdirSync(dir, { recursive: true });
  const data = mkdtempSync(join(tmpdir(), 'svc-shots-'));
  const service = await startService({ port: 0, db: join(data, 'svc.db'), filesDir: join(data, 'files'), demo: true });
  process.env.SVC_E2E_URL = service.url;
  process.env.SVC_E2E_API_KEY = service.demoApiKey;
  const nowhere = `http://127.0.0.1:${await freePort()}`;
  const routes: Record<string, Route> = {};
  for (const state of states) {
    const base = state.unreachable ? nowhere : service.url;
    const element = `<script src="${service.url}/dist/svc-chat.js"></script>
<svc-chat base-url="${base}" token-endpoint="/svc-token" agent-ids="agent_aria" ${state.attributes ?? ''}></svc-chat>`;
    if (state.phone) {
      routes[`/${state.name}/chat`] = page(element);
      routes[`/${state.name}`] = page(
        `${HELPER}<iframe src="/${state.name}/chat" title="A phone" style="width: 390px; height: 700px; border: 1px solid #888"></iframe>`,
      );
    } else routes[`/${state.name}`] = page(`${HELPER}${element}`);
  }
  const site = await startSite(routes);
  const shots: Shot[] = [];
  try {
    for (const engine of engines) {
      const browser = await launch(engine);
      try {
        for (const state of states) {
          await browser.goto(`${site.url}/${state.name}`);
          await browser.evaluate('shots.ready()');
          if (state.steps) await browser.evaluate(`(${state.steps}).then(() => true)`);
          await browser.evaluate('shots.settled()');
          const file = join(dir, `${engine}-${state.name}.png`);
          await browser.screenshot(file);
          shots.push({ engine, state, file });
        }
      } finally {
        await browser.close();
      }
    }
  } finally {
    await site.close();
    await service.close();
    rmSync(data, { recursive: true, force: true });
  }
  writeFileSync(join(dir, 'index.html'), indexPage(shots));
  return shots;
}

/** The review's page: a row a state, a column an engine. */
function indexPage(shots: Shot[]): string {
  const engines = [...new Set(shots.map((s) => s.engine))];
  const states = [...new Set(shots.map((s) => s.state))];
  const cell = (state: ShotState, engine: Engine) => {
    const shot = shots.find((s) => s.state === state && s.engine === engine);
    const name = `${engine}-${state.name}.png`;
    return shot
      ? `<td><a href="${name}"><img src="${name}" alt="${state.title}, ${engine}" width="640"></a></td>`
      : '<td></td>';
  };
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>@svc/agent-sdk: the visual review</title>
<style>body{font-family:system-ui,sans-serif;margin:16px}td,th{vertical-align:top;padding:4px;text-align:start}img{border:1px solid #ccc}</style></head>
<body>
<h1>The visual review</h1>
<p>Every state of the chat in ${engines.join(', ')}, made ${new Date().toISOString()} by <code>npm run screenshots</code>.</p>
<table>
<thead><tr><th scope="col">State</th>${engines.map((e) => `<th scope="col">${e}</th>`).join('')}</tr></thead>
<tbody>
${states.map((state) => `<tr><th scope="row">${state.title}</th>${engines.map((e) => cell(state, e)).join('')}</tr>`).join('\n')}
</tbody>
</table>
</body>
</html>
`;
}

/** Where `npm run screenshots` writes the review. */
export const REVIEW_DIR = resolve(import.meta.dirname, '../../test-results/screenshots-review');

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const shots = await takeScreenshots(REVIEW_DIR);
  console.log(`${shots.length} screenshots: ${join(REVIEW_DIR, 'index.html')}`);
}
