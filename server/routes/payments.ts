import type { FastifyInstance } from 'fastify';
import type { PaymentStatusResult } from '../../src/client/types.js';
import { requireUser } from '../auth.js';
import type { AppContext } from '../context.js';
import { notFound } from '../errors.js';
import { armPendingOrders, getPaymentOrder, stopPaymentTimers } from '../store/payments.js';

export default function paymentsRoutes(app: FastifyInstance, ctx: AppContext) {
  armPendingOrders(ctx);
  app.addHook('onClose', async () => stopPaymentTimers(ctx));

  app.get<{ Params: { orderId: string } }>('/payments/:orderId/status', async (req): Promise<PaymentStatusResult> => {
    const { userId } = requireUser(ctx.db, req);
    const order = getPaymentOrder(ctx, req.params.orderId);
    if (!order || order.userId !== userId) throw notFound('order not found');
    return { status: order.status, amountCny: order.amountCny };
  });
}
