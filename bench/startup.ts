import { join } from 'node:path';
import { startTestServer } from '../test/helpers/server.js';
import { launch, ROOT, round, serve } from './browser.js';

/**
 * Records in `window.__marks` when the launcher is first laid out and when the service stored a message.
 * Source text, not a function: tsx would wrap a function's inner functions in a helper the page lacks.
 */
const MARKS = `
  const marks = (window.__marks = {});
  const poll = () => {
    const launcher = document.querySelector('svc-chat')?.shadowRoot?.querySelector('[part~=launcher]');
    if (launcher && launcher.getBoundingClientRect().width > 0) marks.launcher = performance.now();
    else requestAnimationFrame(poll);
  };
  requestAnimationFrame(poll);
  document.addEventListener('svc-message-sent', () => { marks.sent = performance.now(); });
`;

/** A mid-range phone on a slow network (Chromium's "Fast 3G" and a 4× slower CPU), and no throttling. */
const PROFILES = {
  unthrottled: undefined,
  mobile: { latency: 150, downloadThroughput: (1.6e6 / 8) * 0.9, uploadThroughput: (750e3 / 8) * 0.9, cpu: 4 },
};

/**
 * Benchmark 4: from navigation to the launcher button on screen, and to the first message the service stored,
 * with `dist/svc-chat.js` loaded by one classic script tag (served gzipped) and the real service (echo agent)
 * behind it; without throttling, and as a phone on a slow network.
 */
export async function startupBenchmark(runs = 5) {
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
    const html = `<!doctype html><meta charset="utf-8"><body><h1>A host page</h1>
<svc-chat mode="launcher" base-url="${service.url}" token="${session.body.token}" agent-id="agent_echo"></svc-chat>
<script src="/dist/svc-chat.js"></script>`;
    const { url, server } = await serve({ '/dist/': join(ROOT, 'dist') }, { '/': html });
    const results: Record<string, Record<string, number>> = {};
    for (const [name, profile] of Object.entries(PROFILES)) {
      const samples: { launcherMs: number; sentMs: number; clickToSentMs: number }[] = [];
      for (let i = 0; i < runs; i++) {
        const context = await browser.newContext({ viewport: { width: 1024, height: 720 } });
        const page = await context.newPage();
        if (profile) {
          const cdp = await context.newCDPSession(page);
          const { cpu, ...network } = profile;
          await cdp.send('Network.emulateNetworkConditions', { offline: false, ...network });
          await cdp.send('Emulation.setCPUThrottlingRate', { rate: cpu });
        }
        await page.addInitScript(MARKS);
        page.on('pageerror', (error) => console.error(`page error: ${error.message}`));
        await page.goto(url);
        await page.waitForFunction(() => (window as unknown as { __marks: { launcher?: number } }).__marks.launcher);
        const clicked = await page.evaluate(() => performance.now());
        await page.locator('svc-chat [part~=launcher]').click();
        await page.locator('svc-chat [part~=input]').fill('hello');
        await page.locator('svc-chat [part~=input]').press('Enter');
        await page.waitForFunction(() => (window as unknown as { __marks: { sent?: number } }).__marks.sent);
        const marks = await page.evaluate(() => (window as unknown as { __marks: Record<string, number> }).__marks);
        samples.push({ launcherMs: marks.launcher, sentMs: marks.sent, clickToSentMs: marks.sent - clicked });
        await context.close();
      }
      const median = (key: keyof (typeof samples)[number]) =>
        round(samples.map((s) => s[key]).sort((a, b) => a - b)[Math.floor(samples.length / 2)]);
      results[name] = {
        launcherVisibleMs: median('launcherMs'),
        firstMessageSentMs: median('sentMs'),
        clickToMessageSentMs: median('clickToSentMs'),
      };
    }
    server.close();
    return {
      source: 'dist/svc-chat.js gzipped from a loopback server, the real service (echo agent); medians',
      runs,
      profiles: PROFILES,
      ...results,
    };
  } finally {
    await browser.close();
    await service.close();
  }
}
