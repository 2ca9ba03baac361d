import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { buildPages, launch, measure, openPage, percentile, round, serve } from './browser.js';

/** Records per task, as a network read of about 1 KB of SSE carries them. */
const PER_TASK = 8;

/** What the render benchmarks run: `npm run bench`'s workloads, or a smoke run's tiny ones (test/bench/). */
export interface RenderWorkloads {
  /** Copies of the demo's long reply in the fast feed (10: about 60 KB). */
  copies: number;
  /** Paced streaming: the reply's lengths before the measurement, seconds measured per round, rounds. */
  paced: { kilobytes: number[]; seconds: number; rounds: number; peers?: boolean };
  historyMessages: number;
  /** Styles measured beside the shipped ones in the paced run (name → CSS added to the reply's shadow root). */
  pacedOptions?: Record<string, string>;
  /** The whole-text-per-delta renderer and deep-chat in the fast feed (minutes each at 60 KB). */
  naive: boolean;
  deepChat: boolean;
}

export const BENCH_WORKLOADS: RenderWorkloads = {
  copies: 10,
  paced: { kilobytes: [6, 30, 60, 200], seconds: 4, rounds: 2 },
  historyMessages: 5000,
  naive: false,
  deepChat: false,
};

type Bench = {
  info(): { bytes: number; deltas: number };
  setCopies(copies: number): void;
  prepare(...args: unknown[]): Promise<void> | void;
  prepareNaive(perTask: number): Promise<void>;
  preparePaced(...args: unknown[]): Promise<void>;
  runPaced(seconds: number): Promise<{ frames: number; deltas: number; chars: number; keptUp: number }>;
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

/** Benchmarks 2 (streaming render, fast and paced) and 3 (long conversations) in headless Chromium. */
export async function renderBenchmarks(workloads: RenderWorkloads = BENCH_WORKLOADS) {
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
      '/deep-chat-history.html': page('deep-chat-history'),
    },
  );
  const browser = await launch();
  try {
    const streaming = await streamBenchmark(browser, url, workloads);
    const paced = await pacedBenchmark(browser, url, workloads.paced, workloads.pacedOptions);
    const history = {
      ...(await historyBenchmark(browser, url, workloads.historyMessages)),
      deepChat: await peerHistoryBenchmark(browser, `${url}/deep-chat-history.html`, workloads.historyMessages),
    };
    return { streaming, paced, history };
  } finally {
    await browser.close();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function streamBenchmark(
  browser: Awaited<ReturnType<typeof launch>>,
  url: string,
  { naive, deepChat: withDeepChat, copies }: RenderWorkloads,
) {
  const fresh = async (path: string) => {
    const opened = await openPage(browser, `${url}${path}`);
    await opened.page.waitForFunction(() => (window as any).bench);
    await bench(opened.page, (b: Bench, n: number) => b.setCopies(n), copies);
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

/** What one renderer costs streaming at a model's pace after the reply reached one length. */
export interface PacedFigures {
  mainThreadMsPerSecond: number;
  mainThreadMsPerFrame: number;
  styleLayoutMsPerFrame: number;
  scriptMsPerFrame: number;
  fps: number;
  /** Deltas delivered ÷ deltas due by the clock (1: it kept up). */
  keptUp: number;
  longestTaskMs: number;
  deltas: number;
}

const RENDERERS = {
  svcChat: { path: '/stream.html', args: [] },
  deepChat: { path: '/deep-chat.html', args: [false] },
  deepChatPartialRender: { path: '/deep-chat.html', args: [true] },
} as const;

/**
 * A reply streamed at a model's pace (bench/pages/paced.ts) once it already holds each of `kilobytes`, in
 * `<svc-chat>` and in deep-chat (default and `partialRender`): one page per renderer and length, all prepared
 * first, then measured in turn, round after round, so that the machine's load falls on all alike.
 */
async function pacedBenchmark(
  browser: Awaited<ReturnType<typeof launch>>,
  url: string,
  { kilobytes, seconds, rounds, peers = true }: RenderWorkloads['paced'],
  options: Record<string, string> = {},
) {
  const renderers: Record<string, { path: string; args: readonly unknown[] }> = {
    ...(peers ? RENDERERS : { svcChat: RENDERERS.svcChat }),
    ...Object.fromEntries(
      Object.entries(options).map(([name, css]) => [`svcChat ${name}`, { path: '/stream.html', args: [css] }]),
    ),
  };
  const cells = [];
  for (const kb of kilobytes) {
    for (const [renderer, { path, args }] of Object.entries(renderers)) {
      const opened = await openPage(browser, `${url}${path}`);
      await opened.page.waitForFunction(() => (window as any).bench);
      await bench(opened.page, (b: Bench, ...a: unknown[]) => b.preparePaced(...a), kb * 1000, ...args);
      cells.push({
        kb,
        renderer,
        ...opened,
        sums: {
          mainThreadMs: 0,
          layoutMs: 0,
          scriptMs: 0,
          wallMs: 0,
          frames: 0,
          deltas: 0,
          chars: 0,
          keptUp: 0,
          longestTaskMs: 0,
        },
      });
    }
  }
  for (let round = 0; round < rounds; round++) {
    for (const cell of cells) {
      let run = { frames: 0, deltas: 0, chars: 0, keptUp: 0 };
      const measured = await measure(cell.page, cell.cdp, async () => {
        run = await bench(cell.page, (b: Bench, s: number) => b.runPaced(s), seconds);
      });
      const { sums } = cell;
      sums.mainThreadMs += measured.mainThreadMs;
      sums.layoutMs += measured.layoutMs;
      sums.scriptMs += measured.scriptMs;
      sums.wallMs += measured.wallMs;
      sums.frames += run.frames;
      sums.deltas += run.deltas;
      sums.chars += run.chars;
      sums.keptUp += run.keptUp / rounds;
      sums.longestTaskMs = Math.max(sums.longestTaskMs, measured.longestTaskMs);
    }
  }
  const results = {} as Record<keyof typeof RENDERERS, Record<string, PacedFigures>> &
    Record<string, Record<string, PacedFigures>>;
  for (const { kb, renderer, page, sums } of cells) {
    await page.close();
    results[renderer] ??= {};
    results[renderer][`${kb}KB`] = {
      mainThreadMsPerSecond: round((sums.mainThreadMs / sums.wallMs) * 1000),
      mainThreadMsPerFrame: round(sums.mainThreadMs / sums.frames, 2),
      styleLayoutMsPerFrame: round(sums.layoutMs / sums.frames, 2),
      scriptMsPerFrame: round(sums.scriptMs / sums.frames, 2),
      fps: round(sums.frames / (sums.wallMs / 1000)),
      keptUp: round(sums.keptUp, 2),
      longestTaskMs: sums.longestTaskMs,
      deltas: sums.deltas,
    };
  }
  return {
    source: `a reply holding each length streams on at 300 characters a second in 5-character deltas (60 a second), ${rounds} × ${seconds} s per renderer and length, interleaved`,
    ...results,
  };
}

/** Opens `messages` of history on the page at `url`: until the newest is painted, then the heap and elements. */
async function openHistory(browser: Awaited<ReturnType<typeof launch>>, url: string, messages: number) {
  const { page, cdp } = await openPage(browser, url);
  await page.waitForFunction(() => (window as any).bench);
  await bench(page, (b: Bench, n: number) => b.prepare(n), messages);
  let firstPaintMs = 0;
  const mount = await measure(page, cdp, async () => {
    firstPaintMs = await bench(page, (b: Bench, n: number) => b.firstPaint(n), messages);
  });
  await cdp.send('HeapProfiler.collectGarbage');
  const atEnd = await bench(page, (b) => b.stats());
  return { page, cdp, firstPaintMs: round(firstPaintMs), mount, atEnd: { ...atEnd, heapMb: round(atEnd.heapMb) } };
}

/** The same history in deep-chat, which renders every message. */
async function peerHistoryBenchmark(browser: Awaited<ReturnType<typeof launch>>, url: string, messages: number) {
  const { page, cdp: _, ...figures } = await openHistory(browser, url, messages);
  await page.close();
  return figures;
}

async function historyBenchmark(browser: Awaited<ReturnType<typeof launch>>, url: string, messages: number) {
  const { page, cdp, firstPaintMs, mount, atEnd } = await openHistory(browser, `${url}/history.html`, messages);
  let frames: number[] = [];
  const scrolling = await measure(page, cdp, async () => {
    frames = await bench(page, (b) => b.scrollToTop());
  });
  await cdp.send('HeapProfiler.collectGarbage');
  const atTop = await bench(page, (b) => b.stats());
  await page.close();
  return {
    source: `fake ChatApi: one history page of ${messages} messages into the real <svc-chat>`,
    messages,
    firstPaintMs,
    mount,
    atEnd,
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
