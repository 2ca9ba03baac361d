import { Refusal } from './refusal.js';

/** How long a client turned away by a draining instance waits: its next try reaches another instance. */
const RETRY_MS = 1000;

/**
 * Whether this instance is draining (SIGTERM, `RunningService.drain`): it answers `/readyz` with 503 and
 * refuses new record streams and sends with 503 and `Retry-After`, so clients and the proxy go to another
 * instance, while the turns it runs finish.
 */
export class Drain {
  #draining = false;

  get draining(): boolean {
    return this.#draining;
  }

  begin(): void {
    this.#draining = true;
  }

  /** Refuses work on a draining instance (503 with `Retry-After`); where a stream opens and a turn begins. */
  refuseWork(): void {
    if (this.#draining) throw new Refusal('draining', { retryAfterMs: RETRY_MS });
  }
}
