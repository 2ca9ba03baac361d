import type { PaymentStatusResult } from '@svc/agent-sdk/protocol';
import { z } from 'zod';
import { security, USER_REFUSALS, userHook } from '../http/auth.js';
import { gone, notFound } from '../http/errors.js';
import { described } from '../http/openapi.js';
import type { AppContext } from '../services/context.js';
import type { ZodApp } from './route-module.js';

/** What an order whose conversation was deleted answers. */
const ORDER_GONE = 'the conversation of this order was deleted';

/** The status of a payment order, for the user it was made for (the pay page itself is pay-page.ts). */
export default function paymentsRoutes(app: ZodApp, ctx: AppContext) {
  app.addHook('onRequest', userHook(ctx.db));

  app.get(
    '/payments/:orderId/status',
    {
      schema: {
        tags: ['payments'],
        operationId: 'paymentStatus',
        summary: 'Read the status of a payment order',
        description:
          'An order a `payment_gate` record asked the user to pay (`payment.orderId`). It is settled once: paid, ' +
          'canceled, or expired; a `payment_gate_resolution` record tells the conversation.',
        security: security.user,
        params: z.object({ orderId: z.string() }),
        response: {
          200: described(
            'The status of the order, and its amount in yuan.',
            z.object({
              status: z.enum(['pending', 'paid', 'expired', 'canceled']),
              amountCny: z.number().optional(),
            }),
            { status: 'pending', amountCny: 3 },
          ),
        },
        refusals: [
          USER_REFUSALS,
          {
            404: { 'order not found': "No such order, or it is not the caller's." },
            410: { [ORDER_GONE]: 'The conversation that asked for it was deleted (a pending order was canceled).' },
          },
        ],
      },
    },
    async (req): Promise<PaymentStatusResult> => {
      const order = await ctx.payments.get(req.params.orderId);
      if (!order || order.userId !== req.caller.userId) throw notFound('order not found');
      if (order.conversationDeleted) throw gone(ORDER_GONE);
      return { status: order.status, amountCny: order.amountCny };
    },
  );
}
