import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { buildPages, launch, measure, openPage, percentile, round, serve } from './browser.js';

/** Records per task, as a network read of about 1 KB of SSE carries them. */
const PER_TASK = 8;
const HISTORY_MESSAGES = 5000;

type Bench = {
  info(): { bytes: number; deltas: number };
  prepare(...args: unknown[]): Promise<void> | void;
  prepareNaive(perTask: number): Promise<void>;
  run(): Promise<void>;
  firstPaint(messages: number): Promise<number>;
  stats(): { elements: number; rows: number; heapMb: number };
  scrollToTop(): Promise<number[]>;
};

/** Calls `call` in the page with its `window.bench` and `args` (the function travels as source text). */
const bench = <T>(page: Page, call: (b: Bench, ...args: any[]) => T | Promise<T>, ...args: unknown[]) =>
  page.evaluate(
    ([source, args]) => new Function('b', 'args', `return (${source})(b, ...args)`)((window as any).bench, args),
    [call.toString(), args] as const,
  ) as Promise<T>;

/** Benchmarks 2 (streaming render) and 3 (long conversations) in headless Chromium. */
export async function renderBenchmarks(options: { naive: boolean; deepChat: boolean }) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-pages-'));
  await buildPages(dir);
  const page = (name: string) =>
    `<!doctype html><meta charset="utf-8"><body><script type="module" src="/pages/${name}.js"></script>`;
  const { url, server } = await serve(
    { '/pages/': dir },
    {
      '/stream.html': page('stream'),
      '/history.html': page('history'),
      '/deep-chat.html': page('deep-chat-stream'),
    },
  );
  const browser = await launch();
  try {
    const streaming = await streamBenchmark(browser, url, options);
    const history = await historyBenchmark(browser, url);
    return { streaming, history };
  } finally {
    await browser.close();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function streamBenchmark(
  browser: Awaited<ReturnType<typeof launch>>,
  url: string,
  { naive, deepChat: withDeepChat }: { naive: boolean; deepChat: boolean },
) {
  const fresh = async (path: string) => {
    const opened = await openPage(browser, `${url}${path}`);
    await opened.page.waitForFunction(() => (window as any).bench);
    return opened;
  };
  const { page, cdp } = await fresh('/stream.html');
  const reply = await bench(page, (b) => b.info());
  await bench(page, (b: Bench, mode: string, perTask: number) => b.prepare(mode, perTask), 'once', PER_TASK);
  const once = await measure(page, cdp, () => bench(page, (b) => b.run()));
  await bench(page, (b: Bench, mode: string, perTask: number) => b.prepare(mode, perTask), 'deltas', PER_TASK);
  const deltas = await measure(page, cdp, () => bench(page, (b) => b.run()));
  await page.close();

  let wholeTextPerDelta: Awaited<ReturnType<typeof measure>> | undefined;
  if (naive) {
    const naivePage = await fresh('/stream.html');
    await bench(naivePage.page, (b: Bench, perTask: number) => b.prepareNaive(perTask), PER_TASK);
    wholeTextPerDelta = await measure(naivePage.page, naivePage.cdp, () => bench(naivePage.page, (b) => b.run()));
    await naivePage.page.close();
  }

  let deepChat: Awaited<ReturnType<typeof measure>> | undefined;
  if (withDeepChat) {
    const deep = await fresh('/deep-chat.html');
    await bench(deep.page, (b: Bench, perTask: number) => b.prepare(perTask), PER_TASK);
    deepChat = await measure(deep.page, deep.cdp, () => bench(deep.page, (b) => b.run()));
    await deep.page.close();
  }

  return {
    source: 'fake ChatApi feeding the real ChatStore and <svc-chat> (no network)',
    reply: { ...reply, recordsPerTask: PER_TASK },
    finalTextOnce: once,
    svcChat: { ...deltas, ratioToOnce: round(deltas.mainThreadMs / once.mainThreadMs, 2) },
    ...(wholeTextPerDelta ? { wholeTextPerDelta } : {}),
    ...(deepChat ? { deepChat } : {}),
  };
}

async function historyBenchmark(browser: Awaited<ReturnType<typeof launch>>, url: string) {
  const { page, cdp } = await openPage(browser, `${url}/history.html`);
  await page.waitForFunction(() => (window as any).bench);
  await bench(page, (b: Bench, n: number) => b.prepare(n), HISTORY_MESSAGES);
  let firstPaintMs = 0;
  const mount = await measure(page, cdp, async () => {
    firstPaintMs = await bench(page, (b: Bench, n: number) => b.firstPaint(n), HISTORY_MESSAGES);
  });
  await cdp.send('HeapProfiler.collectGarbage');
  const atEnd = await bench(page, (b) => b.stats());
  let frames: number[] = [];
  const scrolling = await measure(page, cdp, async () => {
    frames = await bench(page, (b) => b.scrollToTop());
  });
  await cdp.send('HeapProfiler.collectGarbage');
  const atTop = await bench(page, (b) => b.stats());
  await page.close();
  return {
    source: 'fake ChatApi: one history page of 5,000 messages (2,500 turns) into the real <svc-chat>',
    messages: HISTORY_MESSAGES,
    firstPaintMs: round(firstPaintMs),
    mount,
    atEnd: { ...atEnd, heapMb: round(atEnd.heapMb) },
    scrollToTop: {
      frames: frames.length,
      p50Ms: round(percentile(frames, 50)),
      p95Ms: round(percentile(frames, 95)),
      maxMs: round(Math.max(...frames)),
      over50Ms: frames.filter((t) => t > 50).length,
      longestTaskMs: scrolling.longestTaskMs,
    },
    atTop: { ...atTop, heapMb: round(atTop.heapMb) },
  };
}
