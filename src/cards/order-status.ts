import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { ApiError } from '../client/errors.js';
import type { PaymentsClient } from '../client/payments.js';
import { backoff, type RetryPolicy, retryDelay } from '../protocol/retry.js';
import type { PaymentGatePayload, PaymentStatus } from '../protocol/types.js';

/**
 * Polling of the order's status, by the protocol's one retry rule: 3 s doubling to 30 s while nothing happens;
 * a failed poll waits as long as the service asks (`retry-after`, up to a minute); an order the service does not
 * know for this user (404) will never change, and is not asked about again.
 */
const POLL: RetryPolicy = {
  baseMs: 3_000,
  maxMs: 30_000,
  maxRetryAfterMs: 60_000,
  retryable: (err) => !(err instanceof ApiError && err.status === 404),
};
/** After the pay page was opened the answer may come soon: 1 s doubling to 30 s. */
const PAYING = { ...POLL, baseMs: 1_000 };

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
 * service's status (`polled`), asked with backoff (`POLL`; from 1 s again once the pay page was opened, and at
 * once at expiry, when the service settles the order). A new poll aborts the one before.
 */
export class OrderStatusController implements ReactiveController {
  /** The status the service last reported. */
  polled?: PaymentStatus;
  /** The clock of the countdown. */
  now = Date.now();
  #timer?: ReturnType<typeof setTimeout>;
  #policy = POLL;
  /** Polls since the last change of pace: the backoff's attempt. */
  #attempt = 0;
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
    this.#policy = PAYING;
    this.#attempt = 0;
    this.follow(PAYING.baseMs);
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
      const wait = request.signal.aborted ? undefined : retryDelay(err, this.#attempt++, this.#policy);
      if (wait !== undefined) this.#schedule(wait);
      return;
    }
    this.#schedule(backoff(++this.#attempt, this.#policy));
  }
}
