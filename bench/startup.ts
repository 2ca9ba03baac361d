import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestServer } from '../test/helpers/server.js';
import { launch, percentile, ROOT, round, serve } from './browser.js';

/**
 * Records in `window.__marks` when the launcher is first laid out, when the chat is ready (`svc-ready`) and when
 * the service stored a message. On a page opened with `?click` the launcher is clicked in the frame it is first
 * laid out: before anything could be fetched ahead of the click (the worst case of issue 27). On the floor pages
 * the launcher is a plain `#launcher` button; deep-chat has none, and its text field counts.
 * Source text, not a function: tsx would wrap a function's inner functions in a helper the page lacks.
 */
const MARKS = `
  const marks = (window.__marks = {});
  const poll = () => {
    const launcher =
      document.querySelector('svc-chat')?.shadowRoot?.querySelector('[part~=launcher]') ??
      document.querySelector('#launcher') ??
      document.querySelector('deep-chat')?.shadowRoot?.querySelector('#text-input');
    if (!launcher || launcher.getBoundingClientRect().width === 0) return requestAnimationFrame(poll);
    marks.launcher = performance.now();
    if (location.search === '?click') {
      marks.clicked = performance.now();
      launcher.click();
    }
  };
  requestAnimationFrame(poll);
  document.addEventListener('svc-ready', () => { marks.ready = performance.now(); });
  document.addEventListener('svc-message-sent', () => { marks.sent = performance.now(); });
`;

/**
 * The compressed bytes of the scripts that arrived before the launcher was laid out, and before the chat was ready
 * (`svc-ready`): Resource Timing's `encodedBodySize`, on the marks' clock. Source text, as MARKS.
 */
const WIRE_BYTES = `(() => {
  const marks = window.__marks;
  const scripts = performance.getEntriesByType('resource').filter((e) => new URL(e.name).pathname.endsWith('.js'));
  const upTo = (t) => scripts.filter((e) => e.responseEnd <= t).reduce((sum, e) => sum + e.encodedBodySize, 0);
  return { launcher: upTo(marks.launcher), ready: upTo(marks.ready ?? marks.launcher) };
})()`;

/** The floor pages' launcher: a button where `<svc-chat>` draws its own. */
const LAUNCHER_HTML =
  '<button id="launcher" style="position:fixed;right:20px;bottom:20px;width:56px;height:56px;border-radius:50%">Chat</button>';

/** A mid-range phone on a slow network (Chromium's "Fast 3G" and a 4× slower CPU), and no throttling. */
const PROFILES = {
  unthrottled: undefined,
  mobile: { latency: 150, downloadThroughput: (1.6e6 / 8) * 0.9, uploadThroughput: (750e3 / 8) * 0.9, cpu: 4 },
};
type Profile = (typeof PROFILES)[keyof typeof PROFILES];

/**
 * Benchmark 4: from navigation to the launcher button on screen, and to the first message the service stored,
 * with `svc-chat.js` loaded by one classic script tag (served gzipped, with the files it loads from next to
 * it) and the real service (echo agent) behind it; without throttling, and as a phone on a slow network.
 * `dist` is the folder of the script-tag files: another build's (a copy of an older `dist/`) compares them.
 *
 * `npx tsx bench/startup.ts [runs] [dist]` runs this benchmark alone.
 */
export async function startupBenchmark(runs = 5, dist = join(ROOT, 'dist')) {
  const service = await startTestServer();
  const browser = await launch();
  try {
    const provision = await service.api('/workspaces/acme/members', {
      method: 'POST',
      token: 'sk_acme_1',
      json: { sp_user_ref: 'bench_startup' },
    });
    if (provision.status >= 300) throw new Error(`provision: ${provision.status}`);
    const session = await service.api('/workspaces/acme/sessions', {
      method: 'POST',
      token: 'sk_acme_1',
      json: { sp_user_ref: 'bench_startup' },
    });
    const page = (script: string) => `<!doctype html><meta charset="utf-8"><body><h1>A host page</h1>
<svc-chat mode="launcher" base-url="${service.url}" token="${session.body.token}" agent-id="agent_echo"></svc-chat>
${script}`;
    // The one-tag embed (a classic script), and the ES module build on its own.
    // What the phone profile allows any embed: the page with its launcher as HTML, and with a launcher drawn by one
    // classic script as large as ours (the classic launcher's file as a string) that does nothing else. And deep-chat.
    const floor = mkdtempSync(join(tmpdir(), 'svc-bench-floor-'));
    writeFileSync(
      join(floor, 'launcher-bytes.js'),
      `const bytes = ${JSON.stringify(readFileSync(join(dist, 'svc-chat.js'), 'utf8'))};
document.body.insertAdjacentHTML('beforeend', ${JSON.stringify(LAUNCHER_HTML)});`,
    );
    const host = (body: string) => `<!doctype html><meta charset="utf-8"><body><h1>A host page</h1>\n${body}`;
    const pages = {
      '/': page('<script src="/dist/svc-chat.js"></script>'),
      '/module': page('<script type="module" src="/dist/svc-chat.esm.js"></script>'),
      '/html': host(LAUNCHER_HTML),
      '/script': host('<script src="/floor/launcher-bytes.js"></script>'),
      '/deep-chat': host(`<deep-chat style="display:block;width:400px;height:600px"></deep-chat>
<script type="module" src="/deep-chat/deepChat.bundle.js"></script>`),
    };
    const { url, server } = await serve(
      { '/dist/': dist, '/floor/': floor, '/deep-chat/': join(ROOT, 'node_modules/deep-chat/dist') },
      pages,
    );
    const results: Record<string, Record<string, number>> = {};
    // The worst case of a click: at once, in the frame the launcher shows, to a panel that can be used.
    for (const [name, profile] of Object.entries(PROFILES)) {
      const samples: number[] = [];
      for (let i = 0; i < runs; i++) {
        const { tab, context } = await openTab(browser, profile, `${url}/?click`);
        await tab.waitForFunction(() => (window as unknown as { __marks: { ready?: number } }).__marks.ready);
        await tab.locator('svc-chat [part~=input]').waitFor();
        const marks = await tab.evaluate(() => (window as unknown as { __marks: Record<string, number> }).__marks);
        samples.push(Math.max(marks.ready, marks.clicked) - marks.clicked);
        await context.close();
      }
      results[`${name}, click at once`] = {
        clickToReadyMedianMs: round(percentile(samples, 50)),
        clickToReadyWorstMs: round(Math.max(...samples)),
      };
    }
    const cases = Object.entries(PROFILES).flatMap(([name, profile]) => [
      [name, profile, '/'] as const,
      [`${name}, ES module`, profile, '/module'] as const,
    ]);
    for (const [name, profile, path] of cases) {
      const samples: {
        launcherMs: number;
        sentMs: number;
        clickToSentMs: number;
        bytesBeforeLauncher: number;
        bytesBeforeReady: number;
      }[] = [];
      for (let i = 0; i < runs; i++) {
        const { tab, context } = await openTab(browser, profile, `${url}${path}`);
        await tab.waitForFunction(() => (window as unknown as { __marks: { launcher?: number } }).__marks.launcher);
        const clicked = await tab.evaluate(() => performance.now());
        await tab.locator('svc-chat [part~=launcher]').click();
        await tab.locator('svc-chat [part~=input]').fill('hello');
        await tab.locator('svc-chat [part~=input]').press('Enter');
        await tab.waitForFunction(() => (window as unknown as { __marks: { sent?: number } }).__marks.sent);
        const marks = await tab.evaluate(() => (window as unknown as { __marks: Record<string, number> }).__marks);
        const wire = (await tab.evaluate(WIRE_BYTES)) as { launcher: number; ready: number };
        samples.push({
          launcherMs: marks.launcher,
          sentMs: marks.sent,
          clickToSentMs: marks.sent - clicked,
          bytesBeforeLauncher: wire.launcher,
          bytesBeforeReady: wire.ready,
        });
        await context.close();
      }
      const median = (key: keyof (typeof samples)[number]) =>
        round(
          percentile(
            samples.map((s) => s[key]),
            50,
          ),
        );
      results[name] = {
        launcherVisibleMs: median('launcherMs'),
        firstMessageSentMs: median('sentMs'),
        clickToMessageSentMs: median('clickToSentMs'),
        wireBytesBeforeLauncher: median('bytesBeforeLauncher'),
        wireBytesBeforeReady: median('bytesBeforeReady'),
      };
    }
    // Only as far as the launcher (deep-chat's text field) on the phone: the floors have no chat behind them.
    const phone = [
      ['mobile, the launcher in the HTML', '/html'],
      ["mobile, one script of the launcher's bytes drawing a button", '/script'],
      ['mobile, deep-chat (its text field)', '/deep-chat'],
    ] as const;
    for (const [name, path] of phone) {
      const samples: number[] = [];
      const bytes: number[] = [];
      for (let i = 0; i < runs; i++) {
        const { tab, context } = await openTab(browser, PROFILES.mobile, `${url}${path}`);
        await tab.waitForFunction(() => (window as unknown as { __marks: { launcher?: number } }).__marks.launcher);
        samples.push(
          await tab.evaluate(() => (window as unknown as { __marks: { launcher: number } }).__marks.launcher),
        );
        bytes.push(((await tab.evaluate(WIRE_BYTES)) as { launcher: number }).launcher);
        await context.close();
      }
      results[name] = {
        launcherVisibleMs: round(percentile(samples, 50)),
        wireBytesBeforeLauncher: percentile(bytes, 50),
      };
    }
    server.close();
    rmSync(floor, { recursive: true, force: true });
    return {
      source: `${dist}/svc-chat.js (or svc-chat.esm.js) gzipped from a loopback server, the real service (echo agent); medians; wire bytes: the scripts' compressed bodies (Resource Timing) that arrived before the launcher was laid out, and before svc-ready`,
      runs,
      profiles: PROFILES,
      ...results,
    };
  } finally {
    await browser.close();
    await service.close();
  }
}

/** A page of its own context at `url`, throttled as `profile` says, with the marks recorded. */
async function openTab(browser: Awaited<ReturnType<typeof launch>>, profile: Profile, url: string) {
  const context = await browser.newContext({ viewport: { width: 1024, height: 720 } });
  const tab = await context.newPage();
  if (profile) {
    const cdp = await context.newCDPSession(tab);
    const { cpu, ...network } = profile;
    await cdp.send('Network.emulateNetworkConditions', { offline: false, ...network });
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: cpu });
  }
  await tab.addInitScript(MARKS);
  tab.on('pageerror', (error) => console.error(`page error: ${error.message}`));
  await tab.goto(url);
  return { tab, context };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [runs, dist] = process.argv.slice(2);
  console.log(JSON.stringify(await startupBenchmark(Number(runs) || 7, dist ? resolve(dist) : undefined), null, 2));
}
