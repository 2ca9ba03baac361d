/**
 * A reply streamed at a model's pace: one small delta per frame's worth of time (5 characters every 1/60 s,
 * 300 characters a second), by the clock rather than by the renderer, as a server streams. A renderer that
 * falls behind gets the overdue deltas together in one task (as one network read brings them), at most
 * `MAX_BATCH` of them: a slower renderer falls further behind, which `keptUp` reports, instead of the
 * benchmark waiting minutes for it.
 */
import { markdownToHtml } from '../../test/helpers/markdown.js';

export const PACE = { intervalMs: 1000 / 60, chars: 5 };
const MAX_BATCH = 6;

export interface PacedRenderer {
  /** Hands the renderer the deltas that are due now, in one task. */
  feed(pieces: string[]): void;
  /** The reply's text as the visitor sees it now. */
  shown(): string;
}

export interface PacedRun {
  /** Animation frames while it streamed. */
  frames: number;
  deltas: number;
  chars: number;
  /** Deltas delivered ÷ deltas due by the clock (1: the renderer kept up). */
  keptUp: number;
}

/**
 * Streams `text` from `offset` into `renderer` for `seconds`; returns where the text got to with the figures.
 * Throws when the renderer does not show the end of what it was given (within 60 frames of the last delta).
 */
export async function pace(
  renderer: PacedRenderer,
  text: string,
  offset: number,
  seconds: number,
): Promise<PacedRun & { offset: number }> {
  let frames = 0;
  let counting = true;
  const count = () => {
    if (!counting) return;
    frames++;
    requestAnimationFrame(count);
  };
  requestAnimationFrame(count);
  const start = performance.now();
  const end = start + seconds * 1000;
  let deltas = 0;
  let due = 0;
  let at = offset;
  for (let now = start; now < end; now = performance.now()) {
    due = Math.floor((now - start) / PACE.intervalMs) + 1;
    const pieces: string[] = [];
    for (let i = 0; i < Math.min(due - deltas, MAX_BATCH) && at < text.length; i++) {
      pieces.push(text.slice(at, at + PACE.chars));
      at += PACE.chars;
    }
    deltas += due - deltas; // Overdue deltas beyond the batch are dropped from the schedule, not queued.
    if (pieces.length) renderer.feed(pieces);
    await new Promise((done) => setTimeout(done, Math.max(0, start + deltas * PACE.intervalMs - performance.now())));
  }
  counting = false;
  const expected = lastWord(text.slice(0, at));
  // Without white space: a renderer may show a word that arrived in two deltas as two pieces of text.
  const shown = () => renderer.shown().replace(/\s+/g, '').slice(-4000);
  // A renderer shows the last delta some tasks and a frame or two after it got it (the chat's store hands updates
  // on after the task; a busy machine can paint a frame in between): waited for, up to a second of frames.
  for (let frame = 0; frame < 60 && !shown().includes(expected); frame++) {
    await new Promise((done) => requestAnimationFrame(done));
  }
  if (!shown().includes(expected)) {
    throw new Error(`the reply does not show the end of what streamed ("${expected}"): …${shown().slice(-200)}`);
  }
  const delivered = Math.ceil((at - offset) / PACE.chars);
  return { frames, deltas: delivered, chars: at - offset, keptUp: delivered / due, offset: at };
}

/** The last word a visitor reads in `markdown` once rendered (a word of a link's address is not shown). */
function lastWord(markdown: string): string {
  const holder = document.createElement('template'); // Inert: nothing in it loads.
  holder.innerHTML = markdownToHtml(markdown.slice(-3000));
  return holder.content.textContent?.match(/[A-Za-z]{3,}/g)?.at(-1) ?? '';
}

/** Where the reply should hold `bytes` characters: at the end of a line, so the prefix is ordinary markdown. */
export function cutAt(text: string, bytes: number): number {
  const end = text.indexOf('\n', bytes);
  return end < 0 ? text.length : end + 1;
}

/** `text` in pieces of `size` characters (the prefix of a paced reply, fed fast before the measurement). */
export function chunks(text: string, size = 1000): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}
