import { readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { extname, join, normalize, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { type Browser, type CDPSession, chromium, type Page } from '@playwright/test';
import { build } from 'vite';
import { chromiumLaunchOptions } from '../test/helpers/browsers.mjs';

export const ROOT = resolve(import.meta.dirname, '..');

/** Chromium as every browser test launches it, with precise memory figures for the heap measurements. */
export function launch(): Promise<Browser> {
  const options = chromiumLaunchOptions();
  return chromium.launch({ ...options, args: [...options.args, '--enable-precise-memory-info'] });
}

/** Builds the benchmark pages (bench/pages/*.ts) for production, as a site would ship them. */
export async function buildPages(outDir: string): Promise<void> {
  await build({
    configFile: false,
    logLevel: 'warn',
    mode: 'production',
    build: {
      outDir,
      emptyOutDir: true,
      target: 'es2022',
      minify: true,
      rolldownOptions: {
        input: {
          stream: join(ROOT, 'bench/pages/stream.ts'),
          history: join(ROOT, 'bench/pages/history.ts'),
          'deep-chat-stream': join(ROOT, 'bench/pages/deep-chat-stream.ts'),
          'deep-chat-history': join(ROOT, 'bench/pages/deep-chat-history.ts'),
        },
        output: {
          entryFileNames: '[name].js',
          format: 'es',
          // The markdown engine in a chunk of its own, as a site's bundler makes it: left in the stream page's
          // chunk (which imports it too), loading it on the history page would run the stream page.
          codeSplitting: {
            groups: [
              { name: 'markdown', test: /src[\\/]elements[\\/]markdown[\\/]|node_modules[\\/](marked|dompurify)[\\/]/ },
            ],
          },
        },
      },
    },
  });
}

const TYPES: Record<string, string> = { '.js': 'text/javascript', '.html': 'text/html', '.map': 'application/json' };

/**
 * Serves `routes` (URL prefix → folder) on a loopback port, plus `pages` (path → HTML). Cross-origin
 * isolation would not change the figures; the service, when used, sits on its own port.
 */
export async function serve(
  routes: Record<string, string>,
  pages: Record<string, string>,
): Promise<{
  url: string;
  server: Server;
}> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (pages[path] !== undefined) {
      res.writeHead(200, { 'content-type': 'text/html' }).end(pages[path]);
      return;
    }
    for (const [prefix, dir] of Object.entries(routes)) {
      if (!path.startsWith(prefix)) continue;
      const file = normalize(join(dir, path.slice(prefix.length)));
      if (!file.startsWith(dir) || !statSync(file, { throwIfNoEntry: false })?.isFile()) break;
      // Scripts go gzipped when the browser accepts it, as a CDN serves them.
      const gzip = extname(file) === '.js' && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '');
      const body = readFileSync(file);
      res.writeHead(200, {
        'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
        ...(gzip ? { 'content-encoding': 'gzip' } : {}),
      });
      res.end(gzip ? gzipSync(body, { level: 9 }) : body);
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return { url: `http://127.0.0.1:${address.port}`, server };
}

/** Chromium's own counters: `TaskDuration` (main-thread seconds), `Nodes`, `JSHeapUsedSize`, … */
export async function metrics(cdp: CDPSession): Promise<Record<string, number>> {
  const { metrics } = await cdp.send('Performance.getMetrics');
  return Object.fromEntries(metrics.map((m) => [m.name, m.value]));
}

/** A page with Chromium's counters on, and long tasks recorded into `window.__longTasks`. */
export async function openPage(browser: Browser, url: string): Promise<{ page: Page; cdp: CDPSession }> {
  const page = await browser.newPage({ viewport: { width: 420, height: 720 } });
  await page.addInitScript(() => {
    const tasks: number[] = [];
    Object.assign(window, { __longTasks: tasks });
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) tasks.push(entry.duration);
    }).observe({ type: 'longtask' });
  });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable', { timeDomain: 'threadTicks' });
  page.on('pageerror', (error) => console.error(`page error: ${error.message}`));
  await page.goto(url);
  return { page, cdp };
}

/** Main-thread milliseconds and the longest task while `run` goes on in the page. */
export async function measure(page: Page, cdp: CDPSession, run: () => Promise<unknown>) {
  await page.evaluate(() => {
    (window as unknown as { __longTasks: number[] }).__longTasks.length = 0;
  });
  const before = await metrics(cdp);
  const wall = performance.now();
  await run();
  const wallMs = performance.now() - wall;
  // Long tasks are reported after they end: one more frame lets the observer catch the last one.
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0))));
  const after = await metrics(cdp);
  const longTasks = await page.evaluate(() => (window as unknown as { __longTasks: number[] }).__longTasks);
  return {
    mainThreadMs: round((after.TaskDuration - before.TaskDuration) * 1000),
    scriptMs: round((after.ScriptDuration - before.ScriptDuration) * 1000),
    layoutMs: round(
      (after.LayoutDuration - before.LayoutDuration + after.RecalcStyleDuration - before.RecalcStyleDuration) * 1000,
    ),
    wallMs: round(wallMs),
    longTasks: longTasks.length,
    longestTaskMs: round(Math.max(0, ...longTasks)),
  };
}

export const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}
