import type { ChatStreamRecord, PaymentGatePayload, PaymentStatus } from '@svc/agent-sdk/protocol';
import { paymentProblem } from '../runtimes/types.js';
import { lockConversation } from '../store/conversation-rows.js';
import type { Db } from '../store/db.js';
import { nowIso } from '../store/ids.js';
import {
  insertPaymentOrder,
  type NewPaymentOrder,
  newPaymentOrder,
  type PaymentOrder,
  paymentOrderById,
  pendingPaymentOrders,
  settlePaymentOrder,
} from '../store/payment-order-rows.js';
import type { RecordLog } from './record-log.js';

/**
 * What follows the settling of an order, inside its transaction `tx` (the order as settled, its resolution
 * record as stored): returns what to do once that has committed.
 */
export type FollowSettle = (
  tx: Db,
  order: PaymentOrder,
  resolution: ChatStreamRecord,
) => Promise<(() => void) | undefined>;

/** setTimeout holds at most about 24.8 days; a later expiry re-arms when this delay runs out. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Payment orders as the service runs them: each order is settled once (paid, canceled or expired) and
 * its settling stores one `payment_gate_resolution` record. A pending order expires on a timer of the
 * instance that made it, when it is read past its expiry, and by `expireDue` (the job any instance runs for
 * orders whose timer was lost with its instance): whichever comes first claims it, the others change nothing.
 */
export class PaymentOrders {
  /** The expiry timer of each pending order, by order id. */
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly db: Db,
    private readonly records: RecordLog,
    private readonly log: (line: string) => void,
  ) {}

  /**
   * A new pending order (not stored yet: `store` stores it beside its `payment_gate` record) and the payload
   * of that record. Throws RangeError for an amount or expiry paymentProblem refuses.
   */
  order(
    o: Omit<NewPaymentOrder, 'expiresAt'> & {
      expiresInSeconds: number;
      /** The origin the caller reached the service at: the pay page lives there. */
      baseUrl: string;
    },
  ): { order: PaymentOrder; payment: PaymentGatePayload } {
    const problem = paymentProblem(o.amountCny, o.expiresInSeconds);
    if (problem) throw new RangeError(problem);
    const { conversationId, userId, agentId, amountCny, title, description } = o;
    const expiresAt = new Date(Date.now() + o.expiresInSeconds * 1000).toISOString();
    const order = newPaymentOrder({ conversationId, userId, agentId, amountCny, title, description, expiresAt });
    const payment: PaymentGatePayload = {
      orderId: order.id,
      amountCny: order.amountCny,
      title: order.title,
      ...(order.description !== undefined && { description: order.description }),
      payUrl: `${o.baseUrl}/pay/${order.id}`,
      expiresAt,
    };
    return { order, payment };
  }

  /** Stores an order made by `order` in the transaction `tx`, and arms its expiry timer. */
  async store(tx: Db, order: PaymentOrder): Promise<void> {
    await insertPaymentOrder(tx, order);
    this.arm(order.id, order.expiresAt);
  }

  /** An order with its current status: a pending order past its expiry is expired here, even after a restart. */
  async get(orderId: string): Promise<PaymentOrder | undefined> {
    const order = await paymentOrderById(this.db, orderId);
    if (order?.status !== 'pending' || order.expiresAt > nowIso()) return order;
    await this.settle(orderId, 'expired');
    return paymentOrderById(this.db, orderId);
  }

  /**
   * Pays or cancels a pending order. Only a pending order that has not expired changes; whatever the
   * outcome, the order as it now stands is returned.
   */
  async resolve(
    orderId: string,
    status: 'paid' | 'canceled',
    follow?: FollowSettle,
  ): Promise<PaymentOrder | undefined> {
    const order = await this.get(orderId);
    if (order?.status !== 'pending') return order;
    await this.settle(orderId, status, follow);
    return this.get(orderId);
  }

  /** Arms the expiry timer of every pending order (at start-up, beside the recovery of turns). */
  async armPending(): Promise<void> {
    for (const order of await pendingPaymentOrders(this.db)) this.arm(order.id, order.expiresAt);
  }

  /**
   * Expires every pending order past its expiry (the job instances sharing a database run). An order that
   * cannot be expired does not keep the others from it; the failures are thrown together at the end.
   */
  async expireDue(): Promise<void> {
    const failures: unknown[] = [];
    for (const order of await pendingPaymentOrders(this.db, nowIso())) {
      await this.settle(order.id, 'expired').catch((err: unknown) => failures.push(err));
    }
    if (failures.length) {
      throw new AggregateError(failures, `${failures.length} payment orders due could not be expired`, {
        cause: failures[0],
      });
    }
  }

  /** Clears every timer (the service is stopping, or a test plays a lost timer). */
  stopTimers(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  /** How many expiry timers are armed. */
  get armedTimers(): number {
    return this.timers.size;
  }

  private arm(orderId: string, expiresAt: string): void {
    clearTimeout(this.timers.get(orderId));
    const delay = Math.min(Math.max(0, Date.parse(expiresAt) - Date.now()), MAX_TIMER_MS);
    const timer = setTimeout(() => {
      this.timers.delete(orderId);
      this.get(orderId).then(
        // A timer may fire a moment early, or before a far expiry: wait again.
        (order) => order?.status === 'pending' && this.arm(orderId, order.expiresAt),
        (err) => this.log(`payment order ${orderId}: expiry failed: ${(err as Error).message}`),
      );
    }, delay);
    timer.unref();
    this.timers.set(orderId, timer);
  }

  /**
   * Settles a pending order and stores its resolution record in the same transaction, with what `follow`
   * stores beside them; what `follow` returns runs once that has committed.
   */
  private async settle(orderId: string, status: Exclude<PaymentStatus, 'pending'>, follow?: FollowSettle) {
    const then = await this.records.write(async (append, tx) => {
      // The conversation first, as every write of its records: settling then waits for its other writers.
      const pending = await paymentOrderById(tx, orderId);
      if (!pending) return undefined;
      await lockConversation(tx, pending.conversationId);
      const conversationId = await settlePaymentOrder(tx, orderId, status);
      if (!conversationId) return undefined;
      const [resolution] = await append(conversationId, {
        sender: 'system',
        event: 'payment_gate_resolution',
        raw: { type: 'payment_gate_resolution', orderId, status },
      });
      const order = follow && (await paymentOrderById(tx, orderId));
      return order && follow(tx, order, resolution!);
    });
    then?.();
    clearTimeout(this.timers.get(orderId));
    this.timers.delete(orderId);
  }
}
