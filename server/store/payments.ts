import type { PaymentGatePayload, PaymentStatus } from '../../src/client/types.js';
import type { AppContext } from '../context.js';
import { immediate } from '../db.js';
import { nowIso, randomId } from '../ids.js';
import { insertRecord } from './conversations.js';

/** Payment orders an agent asks a user to pay; amounts are kept in fen so no float ever rounds money. */
export const paymentsSchema = `
CREATE TABLE IF NOT EXISTS payment_orders (
  id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL, user_id TEXT NOT NULL, agent_id TEXT NOT NULL,
  amount_fen INTEGER NOT NULL, title TEXT NOT NULL, description TEXT, status TEXT NOT NULL,
  expires_at TEXT NOT NULL, created_at TEXT NOT NULL, resolved_at TEXT
);
CREATE INDEX IF NOT EXISTS payment_orders_pending ON payment_orders (expires_at) WHERE status = 'pending';
`;

interface OrderRow {
  id: string;
  conversation_id: string;
  user_id: string;
  agent_id: string;
  amount_fen: number;
  title: string;
  description: string | null;
  status: PaymentStatus;
  expires_at: string;
  created_at: string;
}

export interface PaymentOrder {
  id: string;
  conversationId: string;
  userId: string;
  agentId: string;
  amountCny: number;
  title: string;
  description?: string;
  status: PaymentStatus;
  expiresAt: string;
  createdAt: string;
}

/** Creates a pending order and returns the payload of its `payment_gate` record. */
export function createPaymentOrder(
  ctx: AppContext,
  o: Pick<PaymentOrder, 'conversationId' | 'userId' | 'agentId' | 'amountCny' | 'title' | 'description'> & {
    expiresInSeconds: number;
    /** The origin the caller reached the service at: the pay page lives there. */
    baseUrl: string;
  },
): PaymentGatePayload {
  const amountFen = Math.round(o.amountCny * 100);
  if (!Number.isFinite(amountFen) || amountFen <= 0) throw new RangeError('payment amount must be at least ¥0.01');
  if (!(o.expiresInSeconds > 0)) throw new RangeError('payment expiry must be a positive number of seconds');
  const id = randomId('ord');
  const createdAt = nowIso();
  const expiresAt = new Date(Date.now() + o.expiresInSeconds * 1000).toISOString();
  ctx.db
    .prepare(
      `INSERT INTO payment_orders (id, conversation_id, user_id, agent_id, amount_fen, title, description, status,
         expires_at, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)`,
    )
    .run(id, o.conversationId, o.userId, o.agentId, amountFen, o.title, o.description ?? null, expiresAt, createdAt);
  armExpiry(ctx, id, expiresAt);
  return {
    orderId: id,
    amountCny: amountFen / 100,
    title: o.title,
    ...(o.description !== undefined && { description: o.description }),
    payUrl: `${o.baseUrl}/pay/${id}`,
    expiresAt,
  };
}

/** An order with its current status: a pending order past its expiry is expired here, even after a restart. */
export function getPaymentOrder(ctx: AppContext, orderId: string): PaymentOrder | undefined {
  const row = orderRow(ctx, orderId);
  if (row?.status === 'pending' && row.expires_at <= nowIso()) {
    settle(ctx, orderId, 'expired');
    return toOrder(orderRow(ctx, orderId)!);
  }
  return row && toOrder(row);
}

/**
 * Pays or cancels a pending order. Only a pending order that has not expired changes; whatever the
 * outcome, the order as it now stands is returned.
 */
export function resolvePaymentOrder(
  ctx: AppContext,
  orderId: string,
  status: 'paid' | 'canceled',
): PaymentOrder | undefined {
  const order = getPaymentOrder(ctx, orderId);
  if (order?.status !== 'pending') return order;
  settle(ctx, orderId, status);
  return getPaymentOrder(ctx, orderId);
}

/** Arms the expiry timer of every pending order (at start-up: orders outlive a restart). */
export function armPendingOrders(ctx: AppContext): void {
  const rows = ctx.db.prepare("SELECT id, expires_at FROM payment_orders WHERE status = 'pending'").all() as Pick<
    OrderRow,
    'id' | 'expires_at'
  >[];
  for (const row of rows) armExpiry(ctx, row.id, row.expires_at);
}

export function stopPaymentTimers(ctx: AppContext): void {
  for (const timer of ctx.paymentTimers.values()) clearTimeout(timer);
  ctx.paymentTimers.clear();
}

/** setTimeout holds at most about 24.8 days; a later expiry re-arms when this delay runs out. */
const MAX_TIMER_MS = 2 ** 31 - 1;

function armExpiry(ctx: AppContext, orderId: string, expiresAt: string): void {
  clearTimeout(ctx.paymentTimers.get(orderId));
  const delay = Math.min(Math.max(0, Date.parse(expiresAt) - Date.now()), MAX_TIMER_MS);
  const timer = setTimeout(() => {
    ctx.paymentTimers.delete(orderId);
    try {
      const order = getPaymentOrder(ctx, orderId);
      // A timer may fire a moment early, or before a far expiry: wait again.
      if (order?.status === 'pending') armExpiry(ctx, orderId, order.expiresAt);
    } catch (err) {
      ctx.log(`payment order ${orderId}: expiry failed: ${(err as Error).message}`);
    }
  }, delay);
  timer.unref();
  ctx.paymentTimers.set(orderId, timer);
}

/**
 * Moves a pending order to `status` and stores its one `payment_gate_resolution` record in the same
 * transaction. The `WHERE status = 'pending'` guard makes the first transition win: a pay racing an
 * expiry or a second click never yields two records. Paying requires the order not to be past due.
 */
function settle(ctx: AppContext, orderId: string, status: Exclude<PaymentStatus, 'pending'>): void {
  const now = nowIso();
  const due = status === 'expired' ? 'expires_at <= ?' : 'expires_at > ?';
  const record = immediate(ctx.db, () => {
    const changed = ctx.db
      .prepare(
        `UPDATE payment_orders SET status = ?, resolved_at = ? WHERE id = ? AND status = 'pending' AND ${due}
         RETURNING conversation_id`,
      )
      .get(status, now, orderId, now) as { conversation_id: string } | undefined;
    return (
      changed &&
      insertRecord(ctx.db, changed.conversation_id, {
        sender: 'system',
        event: 'payment_gate_resolution',
        raw: { type: 'payment_gate_resolution', orderId, status },
      })
    );
  });
  // Published only once committed, as appendRecord does for a record of its own.
  if (record) ctx.hub.publish(record);
  clearTimeout(ctx.paymentTimers.get(orderId));
  ctx.paymentTimers.delete(orderId);
}

function orderRow(ctx: AppContext, orderId: string): OrderRow | undefined {
  return ctx.db.prepare('SELECT * FROM payment_orders WHERE id = ?').get(orderId) as OrderRow | undefined;
}

function toOrder(row: OrderRow): PaymentOrder {
  return {
    id: row.id,
    conversationId: row.conversation_id,
    userId: row.user_id,
    agentId: row.agent_id,
    amountCny: row.amount_fen / 100,
    title: row.title,
    ...(row.description !== null && { description: row.description }),
    status: row.status,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
  };
}
