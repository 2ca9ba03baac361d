import type { PaymentStatus } from '@svc/agent-sdk/protocol';
import type { Db } from './db.js';
import { nowIso, randomId } from './ids.js';

/**
 * Payment orders an agent asks a user to pay (`payment_orders`); amounts are kept in fen so no float ever
 * rounds money.
 */

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
  /** The conversation's id as read beside the order: null once it was deleted. */
  live_conversation?: string | null;
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
  /** Its conversation was deleted (which canceled it if it was pending): its page and status answer 410. */
  conversationDeleted?: true;
}

export type NewPaymentOrder = Pick<
  PaymentOrder,
  'conversationId' | 'userId' | 'agentId' | 'amountCny' | 'title' | 'description' | 'expiresAt'
>;

/** A pending order as it will be stored (its amount checked by server/services/payment-orders.ts: whole fen). */
export function newPaymentOrder(o: NewPaymentOrder): PaymentOrder {
  const amountCny = Math.round(o.amountCny * 100) / 100;
  return { ...o, id: randomId('ord'), amountCny, status: 'pending', createdAt: nowIso() };
}

export async function insertPaymentOrder(db: Db, o: PaymentOrder): Promise<void> {
  await db.run(
    `INSERT INTO payment_orders (id, conversation_id, user_id, agent_id, amount_fen, title, description, status,
       expires_at, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)`,
    o.id,
    o.conversationId,
    o.userId,
    o.agentId,
    Math.round(o.amountCny * 100),
    o.title,
    o.description ?? null,
    o.expiresAt,
    o.createdAt,
  );
}

/** An order as stored (a pending order past its expiry is still `pending` here: see server/services/payment-orders.ts). */
export async function paymentOrderById(db: Db, orderId: string): Promise<PaymentOrder | undefined> {
  const row = await db.get<OrderRow>(
    `SELECT payment_orders.*, conversations.id AS live_conversation FROM payment_orders
     LEFT JOIN conversations ON conversations.id = payment_orders.conversation_id WHERE payment_orders.id = ?`,
    orderId,
  );
  return row && toOrder(row);
}

/** The pending orders due by `dueBy` (an ISO time; all of them without it). */
export async function pendingPaymentOrders(db: Db, dueBy?: string): Promise<Pick<PaymentOrder, 'id' | 'expiresAt'>[]> {
  const rows = await db.all<Pick<OrderRow, 'id' | 'expires_at'>>(
    "SELECT id, expires_at FROM payment_orders WHERE status = 'pending' AND expires_at <= ?",
    dueBy ?? '9999',
  );
  return rows.map((row) => ({ id: row.id, expiresAt: row.expires_at }));
}

/**
 * Moves a pending order to `status` and returns its conversation id; undefined when it was not pending,
 * or (paying, cancelling) already past due, or (expiring) not yet due. The `WHERE status = 'pending'`
 * guard makes the first transition win: a pay racing an expiry or a second click changes nothing.
 */
export async function settlePaymentOrder(
  db: Db,
  orderId: string,
  status: Exclude<PaymentStatus, 'pending'>,
): Promise<string | undefined> {
  const now = nowIso();
  const due = status === 'expired' ? 'expires_at <= ?' : 'expires_at > ?';
  const changed = await db.get<{ conversation_id: string }>(
    `UPDATE payment_orders SET status = ?, resolved_at = ? WHERE id = ? AND status = 'pending' AND ${due}
     RETURNING conversation_id`,
    status,
    now,
    orderId,
    now,
  );
  return changed?.conversation_id;
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
    ...(row.live_conversation === null && { conversationDeleted: true as const }),
  };
}
