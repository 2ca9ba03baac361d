import type { PaymentStatus } from '../../src/client/types.js';
import { nowIso, randomId } from '../ids.js';
import type { Db } from './db.js';

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

export type NewPaymentOrder = Pick<
  PaymentOrder,
  'conversationId' | 'userId' | 'agentId' | 'amountCny' | 'title' | 'description' | 'expiresAt'
>;

/** Stores a pending order (its amount checked by server/payments.ts: whole fen). */
export function insertPaymentOrder(db: Db, o: NewPaymentOrder): PaymentOrder {
  const amountFen = Math.round(o.amountCny * 100);
  const id = randomId('ord');
  const createdAt = nowIso();
  db.prepare(
    `INSERT INTO payment_orders (id, conversation_id, user_id, agent_id, amount_fen, title, description, status,
       expires_at, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)`,
  ).run(id, o.conversationId, o.userId, o.agentId, amountFen, o.title, o.description ?? null, o.expiresAt, createdAt);
  return { ...o, id, amountCny: amountFen / 100, status: 'pending', createdAt };
}

/** An order as stored (a pending order past its expiry is still `pending` here: see server/payments.ts). */
export function paymentOrderById(db: Db, orderId: string): PaymentOrder | undefined {
  const row = db.prepare('SELECT * FROM payment_orders WHERE id = ?').get(orderId) as OrderRow | undefined;
  return row && toOrder(row);
}

export function pendingPaymentOrders(db: Db): Pick<PaymentOrder, 'id' | 'expiresAt'>[] {
  const rows = db.prepare("SELECT id, expires_at FROM payment_orders WHERE status = 'pending'").all() as Pick<
    OrderRow,
    'id' | 'expires_at'
  >[];
  return rows.map((row) => ({ id: row.id, expiresAt: row.expires_at }));
}

/**
 * Moves a pending order to `status` and returns its conversation id; undefined when it was not pending,
 * or (paying, cancelling) already past due, or (expiring) not yet due. The `WHERE status = 'pending'`
 * guard makes the first transition win: a pay racing an expiry or a second click changes nothing.
 */
export function settlePaymentOrder(
  db: Db,
  orderId: string,
  status: Exclude<PaymentStatus, 'pending'>,
): string | undefined {
  const now = nowIso();
  const due = status === 'expired' ? 'expires_at <= ?' : 'expires_at > ?';
  const changed = db
    .prepare(
      `UPDATE payment_orders SET status = ?, resolved_at = ? WHERE id = ? AND status = 'pending' AND ${due}
       RETURNING conversation_id`,
    )
    .get(status, now, orderId, now) as { conversation_id: string } | undefined;
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
  };
}
