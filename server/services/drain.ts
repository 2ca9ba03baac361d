import { unavailable } from '../http/errors.js';

/** How long a client turned away by a draining instance waits: its next try reaches another instance. */
const RETRY_MS = 1000;
const DRAINING = 'this instance is shutting down, try again';

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

  /** Throws the 503 of a draining instance; where a stream opens and a turn begins. */
  refuseWork(): void {
    if (this.#draining) throw unavailable(DRAINING, RETRY_MS);
  }
}
