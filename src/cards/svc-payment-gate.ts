import { html, type PropertyDeclarations, type PropertyValues, type TemplateResult } from 'lit';
import { safeUrl } from '../internal/safe-url.js';
import type { PaymentLabels } from '../labels/label-types.js';
import { isRightToLeft } from '../labels/languages.js';
import { cnyFormat } from '../protocol/currency.js';
import type { PaymentGatePayload, PaymentStatus } from '../protocol/record-types.js';
import { OrderStatusController } from './order-status.js';
import { SvcCard } from './svc-card.js';
import styles from './svc-payment-gate.styles.js';

/** A second click this soon after the first opens no second pay page. */
const REOPEN_AFTER_MS = 1_500;

/**
 * @summary A payment card: the order's title and amount in CNY, a button that opens the pay page, and the
 * order's status (`pending`, `paid`, `expired`, `canceled`) as it changes.
 *
 * Inside `<svc-chat>` it gets `payment` and the conversation's `status`; alone, give it `payment` (from
 * `extractPaymentGate(record)`) and a `client`. Either way it also follows the order with
 * `payments.status` while it is pending. An order past `expiresAt` cannot be paid from the card.
 *
 * The host reflects the status it shows as its `state` attribute.
 *
 * @csspart base - The card.
 * @csspart title - The order's title.
 * @csspart description - The order's description.
 * @csspart amount - The amount.
 * @csspart status - The order's status.
 * @csspart countdown - The time left to pay.
 * @csspart button - The pay button.
 *
 * @cssprop --svc-color-primary - The pay button.
 * @cssprop --svc-color-success - The paid status.
 * @cssprop --svc-color-text - Text.
 * @cssprop --svc-color-muted - Secondary text.
 * @cssprop --svc-color-border - The card's border.
 * @cssprop --svc-color-bg - The card's background.
 * @cssprop --svc-radius-m - The card's corners.
 *
 * @fires svc-payment-open - Before the pay page opens; cancelable (the page opens nothing when canceled).
 * `detail: { orderId, payUrl, amountCny }`.
 * @fires svc-payment-status - The status shown changed; `detail: { orderId, status }`.
 */
export class SvcPaymentGate extends SvcCard {
  static override styles = styles;

  static override properties: PropertyDeclarations = {
    payment: { attribute: false },
    status: {},
    labels: { attribute: false },
    _opening: { state: true },
    _payPageOpened: { state: true },
  };

  /** The order (`payment_gate` record's `payment`). */
  declare payment?: PaymentGatePayload;
  /** The status the conversation reported (its `payment_gate_resolution`); `pending` until one arrives. */
  status: PaymentStatus = 'pending';
  /** Overrides of any label. */
  declare labels?: Partial<PaymentLabels>;

  _opening = false;
  _payPageOpened = false;

  #shown?: PaymentStatus;
  readonly #order = new OrderStatusController(this, () => this.cardClient?.payments);
  #reopen?: ReturnType<typeof setTimeout>;

  get #labels(): PaymentLabels {
    return { ...this.language.labels.payment, ...this.labels };
  }

  /** What the card shows: a final status from the conversation or the service, else expired by the clock. */
  get shownStatus(): PaymentStatus {
    const final = [this.status, this.#order.polled].find((s) => s && s !== 'pending');
    if (final) return final;
    return this.#order.msLeft <= 0 ? 'expired' : 'pending';
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    clearTimeout(this.#reopen);
    this._opening = false;
  }

  protected override updated(changed: PropertyValues<this>): void {
    const status = this.shownStatus;
    if (status !== this.#shown) {
      this.setAttribute('state', status);
      if (this.#shown) this.emit('svc-payment-status', { orderId: this.payment?.orderId ?? '', status });
      this.#shown = status;
    }
    if (status !== 'pending') this.#order.stop();
    else if (changed.has('payment') || changed.has('client')) this.#order.follow();
  }

  /** Pays: opens the pay page in a new tab unless the host cancels `svc-payment-open`. */
  pay(): void {
    const payment = this.payment;
    const url = payment && safeUrl(payment.payUrl);
    if (!payment || !url || this._opening || this.shownStatus !== 'pending') return;
    this._opening = true;
    this.#reopen = setTimeout(() => {
      this._opening = false;
    }, REOPEN_AFTER_MS);
    const event = this.emit(
      'svc-payment-open',
      { orderId: payment.orderId, payUrl: url.href, amountCny: payment.amountCny },
      { cancelable: true },
    );
    if (event.defaultPrevented) return;
    window.open(url.href, '_blank', 'noopener');
    this._payPageOpened = true;
    this.#order.paying();
  }

  protected override render(): TemplateResult {
    const labels = this.#labels;
    const payment = this.payment;
    if (!payment) return html``;
    const status = this.shownStatus;
    const amount = formatCny(payment.amountCny, this.language.tag);
    const pending = status === 'pending';
    const left = this.#order.msLeft;
    return html`<section part="base" dir=${this.language.dir} aria-label=${payment.title}>
      <h3 part="title">${payment.title}</h3>
      ${payment.description ? html`<p part="description">${payment.description}</p>` : ''}
      <p part="amount">${amount}</p>
      <p part="status" role="status" tabindex="-1">
        ${pending && this._payPageOpened ? labels.waiting : labels[status]}
      </p>
      ${pending && Number.isFinite(left) ? html`<p part="countdown">${labels.expiresIn(formatDuration(left))}</p>` : ''}
      ${
        status === 'paid' || status === 'canceled'
          ? ''
          : html`<div part="actions">
            <button part="button" type="button" ?disabled=${!pending || this._opening} @click=${() => this.pay()}>
              ${pending && this._opening ? labels.opening : pending && this._payPageOpened ? labels.payAgain : labels.pay(amount)}
            </button>
          </div>`
      }
    </section>`;
  }
}

/** The amount as the reader's locale writes yuan unambiguously: `¥9.90` (zh-CN), `CN¥9.90` (en), `9.90 CN¥` (ar). */
export function formatCny(amount: number, lang: string): string {
  const format = cnyFormat(lang);
  if (!isRightToLeft(lang)) return format.format(amount);
  // Right to left, the bidi algorithm could move the symbol to the wrong side: it is isolated left to right.
  return format
    .formatToParts(amount)
    .map(({ type, value }) => (type === 'currency' ? `\u2066${value}\u2069` : value))
    .join('');
}

/** `4:05` or `1:02:03`. */
function formatDuration(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, '0');
  return hours ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}` : `${minutes}:${seconds}`;
}

SvcPaymentGate.define('svc-payment-gate');

declare global {
  interface HTMLElementTagNameMap {
    'svc-payment-gate': SvcPaymentGate;
  }
  interface GlobalEventHandlersEventMap {
    'svc-payment-open': CustomEvent<{ orderId: string; payUrl: string; amountCny: number }>;
    'svc-payment-status': CustomEvent<{ orderId: string; status: PaymentStatus }>;
  }
}
