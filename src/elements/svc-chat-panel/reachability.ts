import type { ReactiveControllerHost } from 'lit';
import { HttpClient } from '../../client/http.js';
import type { SvcEmitter } from '../../internal/emit.js';
import { backoff } from '../../protocol/retry.js';

/** The waits between checks while the service does not answer: 1 s doubling to 8 s (the protocol's backoff). */
const RECHECK = { baseMs: 1000, maxMs: 8000 };

/** What the check needs of the chat's panel. */
export interface ReachabilityHost extends ReactiveControllerHost, SvcEmitter {
  readonly baseUrl?: string;
  /** A given client has no address to ask. */
  readonly client?: unknown;
  /** The chat shows (inline, or the launcher's panel open). */
  readonly shown: boolean;
}

/**
 * Whether the service at `base-url` answers (`unreachable`), asked once the chat shows, so a wrong address is
 * said before the visitor types, and again, with backoff, after a request got no answer, until it does. The
 * visitor reads a plain sentence; the site's developer reads the address in the `svc-error` event and in the
 * browser's own console line about the refused request.
 */
export class Reachability {
  /** The service did not answer the last check; undefined: not asked since the chat started. */
  unreachable?: boolean;
  /** The setup being checked (the chat's settings): a check's answer about another is dropped. */
  #setup?: unknown;
  /** The setup whose service was asked about once the chat showed (a check may still be on its way). */
  #asked?: unknown;
  #recheck?: ReturnType<typeof setTimeout>;
  #attempt = 0;

  readonly #host: ReachabilityHost;
  readonly #answered: (was: boolean | undefined) => void;

  /** `answered(was)`: the service answers, after it did not when `was`. */
  constructor(host: ReachabilityHost, answered: (was: boolean | undefined) => void) {
    this.#host = host;
    this.#answered = answered;
  }

  /** The chat started with `setup`; nothing is known of its service yet. */
  start(setup: unknown): void {
    this.stop();
    this.#setup = setup;
  }

  stop(): void {
    this.unreachable = undefined;
    clearTimeout(this.#recheck);
    this.#recheck = undefined;
  }

  /** A message or the stream got through: the service is there, and the next wait starts from the first. */
  reached(): void {
    this.#attempt = 0;
    if (this.unreachable) this.unreachable = false;
  }

  /** Once the chat shows: asks once for each setup, however often the chat starts or shows. */
  checkOnce(): void {
    if (this.#asked === this.#setup || this.#host.client || !this.#host.shown) return;
    this.#asked = this.#setup;
    void this.check();
  }

  /** A request got no answer: asks again after the next wait, unless a check is already waiting. */
  checkLater(): void {
    if (this.#recheck || this.#host.client) return;
    this.#recheck = setTimeout(() => void this.check(true), backoff(this.#attempt++, RECHECK));
  }

  /** Asks now; `again`: a check of its own while waiting for the service, said only when the answer changed. */
  async check(again = false): Promise<void> {
    const setup = this.#setup;
    const url = this.#host.baseUrl || location.origin;
    const answered = await new HttpClient({ baseUrl: url }).reachable();
    // The chat started again meanwhile, with another setup: this answer is about the old one.
    if (setup !== this.#setup) return;
    const was = this.unreachable;
    this.unreachable = !answered;
    clearTimeout(this.#recheck);
    this.#recheck = undefined;
    if (answered) {
      this.#attempt = 0;
      this.#answered(was);
    } else this.checkLater();
    this.#host.requestUpdate();
    // Said on each check the visitor asked for, not on every check made while waiting for the service.
    if (!answered && !(again && was)) this.#host.emit('svc-error', { message: `no answer from ${url}` });
  }
}
