import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { ApiError } from '../client/errors.js';
import type { PaymentsClient } from '../client/payments.js';
import type { PaymentGatePayload, PaymentStatus } from '../protocol/types.js';

/** Polling of the order's status: quick after the pay page was opened, slower while nothing happens. */
const POLL_FIRST_MS = 1_000;
const POLL_IDLE_MS = 3_000;
const POLL_MAX_MS = 30_000;

/** What the follower needs of the payment card. */
export interface OrderHost extends ReactiveControllerHost {
  readonly isConnected: boolean;
  /** The order followed. */
  readonly payment?: PaymentGatePayload;
  /** What the card shows now: following ends once that is not `pending`. */
  readonly shownStatus: PaymentStatus;
}

/**
 * Follows a pending order for the payment card: a clock for its countdown (`now`, each second) and the
 * service's status (`polled`), asked with backoff (3 s doubling to 30 s; from 1 s again once the pay page was
 * opened, and at once at expiry, when the service settles the order). A new poll aborts the one before; an
 * order the service does not know for this user (404) is not asked about again.
 */
export class OrderStatusController implements ReactiveController {
  /** The status the service last reported. */
  polled?: PaymentStatus;
  /** The clock of the countdown. */
  now = Date.now();
  #timer?: ReturnType<typeof setTimeout>;
  #delay = POLL_IDLE_MS;
  #request?: AbortController;
  #tick?: ReturnType<typeof setInterval>;

  constructor(
    private readonly host: OrderHost,
    /** The card's payments client, else the chat's (which may come later): asked at each poll. */
    private readonly payments: () => PaymentsClient | undefined,
  ) {
    host.addController(this);
  }

  /** Time left to pay, by the clock; infinite for an order without a valid `expiresAt`. */
  get msLeft(): number {
    const expires = Date.parse(this.host.payment?.expiresAt ?? '');
    return Number.isNaN(expires) ? Number.POSITIVE_INFINITY : expires - this.now;
  }

  hostConnected(): void {
    this.#setNow();
    this.follow();
  }

  hostDisconnected(): void {
    this.stop();
  }

  /** The pay page was opened: the answer may come soon. */
  paying(): void {
    this.#delay = POLL_FIRST_MS;
    this.follow(POLL_FIRST_MS);
  }

  /** Follows the order if it is pending, the first poll in `firstPollInMs`. */
  follow(firstPollInMs = 0): void {
    if (!this.host.isConnected || !this.host.payment || this.host.shownStatus !== 'pending') return;
    this.#tick ??= setInterval(() => {
      const wasLeft = this.msLeft;
      this.#setNow();
      if (wasLeft > 0 && this.msLeft <= 0) this.#schedule(0);
    }, 1000);
    this.#schedule(firstPollInMs);
  }

  stop(): void {
    clearInterval(this.#tick);
    this.#tick = undefined;
    clearTimeout(this.#timer);
    this.#request?.abort();
  }

  #setNow(): void {
    this.now = Date.now();
    this.host.requestUpdate();
  }

  #schedule(delayMs: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#poll(), delayMs);
  }

  async #poll(): Promise<void> {
    const payments = this.payments();
    const orderId = this.host.payment?.orderId;
    if (!orderId) return;
    this.#request?.abort();
    const request = new AbortController();
    this.#request = request;
    try {
      // Without a client yet (the chat's context may come later) the next step asks again.
      if (payments) {
        const { status } = await payments.status(orderId, { signal: request.signal });
        if (request.signal.aborted || orderId !== this.host.payment?.orderId) return;
        this.polled = status;
        this.host.requestUpdate();
        if (status !== 'pending') return;
      }
    } catch (err) {
      // An order the service does not know for this user will never change: stop asking.
      if (request.signal.aborted || (err instanceof ApiError && err.status === 404)) return;
    }
    this.#delay = Math.min(this.#delay * 2, POLL_MAX_MS);
    this.#schedule(this.#delay);
  }
}
