import type { PaymentStatusResult } from '@svc/agent-sdk/protocol';
import { z } from 'zod';
import { security, userHook } from '../http/auth.js';
import { notFound } from '../http/errors.js';
import type { AppContext } from '../services/context.js';
import type { ZodApp } from './route-module.js';

/** The status of a payment order, for the user it was made for (the pay page itself is pay-page.ts). */
export default function paymentsRoutes(app: ZodApp, ctx: AppContext) {
  app.addHook('onRequest', userHook(ctx.db));

  app.get(
    '/payments/:orderId/status',
    {
      schema: {
        tags: ['payments'],
        summary: 'paymentStatus',
        security: security.user,
        params: z.object({ orderId: z.string() }),
        response: {
          200: z.object({
            status: z.enum(['pending', 'paid', 'expired', 'canceled']),
            amountCny: z.number().optional(),
          }),
        },
      },
    },
    async (req): Promise<PaymentStatusResult> => {
      const order = await ctx.payments.get(req.params.orderId);
      if (!order || order.userId !== req.caller.userId) throw notFound('order not found');
      return { status: order.status, amountCny: order.amountCny };
    },
  );
}
