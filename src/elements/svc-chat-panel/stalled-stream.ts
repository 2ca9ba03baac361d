import type { ConnectionState } from '../../client/record-stream.js';

/** How long the stream may reconnect before the chat says, in a sentence with Retry, that the service is not reached. */
export const STALLED_AFTER_MS = 10_000;

/**
 * The clock the wait runs on: `after(ms, fn)` calls `fn` once `ms` have passed and returns what cancels it. Tests
 * put a clock they move themselves in its place.
 */
export const stalledClock = {
  after(ms: number, fn: () => void): () => void {
    const timer = setTimeout(fn, ms);
    return () => clearTimeout(timer);
  },
};

/**
 * Whether the conversation's stream has been reconnecting for `STALLED_AFTER_MS` (`stalled`): "Reconnecting…" says
 * a short cut well, but a service that stays down deserves the sentence the chat says when it cannot reach it at
 * start, with a Retry.
 */
export class StalledStream {
  stalled = false;
  #cancel?: () => void;
  readonly #changed: () => void;

  /** `changed`: `stalled` changed (the panel renders again). */
  constructor(changed: () => void) {
    this.#changed = changed;
  }

  /** Follows the stream's state; `idle` also when the chat stops. */
  follow(connection: ConnectionState): void {
    if (connection === 'reconnecting') {
      this.#cancel ??= stalledClock.after(STALLED_AFTER_MS, () => {
        this.stalled = true;
        this.#changed();
      });
      return;
    }
    this.#cancel?.();
    this.#cancel = undefined;
    this.stalled = false;
  }
}
