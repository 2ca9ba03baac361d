/**
 * The one wait of the tests: resolves with `check()` once it is truthy, checked at once and again at each
 * change `changes` reports (by default every animation frame, each time a page renders; in Node a store's
 * `subscribe`, or any source of "something changed"). No clock decides: the test's own timeout is the only
 * limit, and `waitingFor()` names what a test that timed out was waiting for.
 */
export async function until<T>(
  check: () => T | Promise<T>,
  what: string,
  changes: (changed: () => void) => () => void = everyFrame,
): Promise<NonNullable<T>> {
  const run = generation;
  waiting = what;
  for (;;) {
    const value = await check();
    if (run !== generation) throw new Error(`no longer waiting for ${what}: the test is over`);
    if (value) {
      waiting = undefined;
      return value as NonNullable<T>;
    }
    await new Promise<void>((resolve) => {
      const stop = changes(() => {
        stop();
        resolve();
      });
    });
  }
}

/** The next animation frame, as a source of changes. */
export const everyFrame = (changed: () => void): (() => void) => {
  const frame = requestAnimationFrame(changed);
  return () => cancelAnimationFrame(frame);
};

/** Each wait belongs to a test: a wait left from a test that ended stops instead of checking on. */
let generation = 0;
let waiting: string | undefined;

/** A test ended: what it was still waiting for, if anything (to name in its failure); its waits stop. */
export function waitingFor(): string | undefined {
  generation++;
  const what = waiting;
  waiting = undefined;
  return what;
}
