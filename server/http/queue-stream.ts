import type { FastifyReply } from 'fastify';
import type { AppContext } from '../services/context.js';
import { type OperatorCaller, operatorKey } from './auth.js';
import { errorText } from './errors.js';
import { EXPIRED, openEventStream, whenExpired } from './sse.js';

/** The event of a queue stream: the whole queue, as `GET /operators/queue` answers it. */
export const queueFrame = (queue: unknown) => `event: queue\ndata: ${JSON.stringify(queue)}\n\n`;

/**
 * Answers with an operator's queue as Server-Sent Events: the queue at once, then again whenever it may have
 * changed (a request, a take, a message, on any instance: services/operator-queue.ts), each event the whole queue,
 * so a reader that missed one misses nothing and needs no cursor. A read under way when a change comes is followed
 * by one more; while the socket is full nothing is written, and the queue is read again once it drains. Counted
 * among the operator's streams; ends when the operator's token expires (`expired` last), when the service stops
 * or drains, and refused by a draining instance (503).
 */
export function sendQueueStream(ctx: AppContext, reply: FastifyReply, operator: OperatorCaller): void {
  ctx.drain.refuseWork();
  const res = openEventStream(ctx, reply, operatorKey(operator.identity));
  if (!res) return;
  let reading = false;
  let again = false;
  const send = async (): Promise<void> => {
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    try {
      do {
        again = false;
        if (res.writableNeedDrain) return;
        const queue = await ctx.queues.read(operator.workspaceId, operator.identity.id);
        if (res.writableEnded) return;
        if (!res.write(queueFrame(queue))) return;
      } while (again);
    } catch (err) {
      ctx.logError(`an operator's queue stream failed: ${errorText(err)}`);
      res.end();
    } finally {
      reading = false;
    }
  };
  const stopWatching = ctx.queues.watch(operator.workspaceId, () => void send());
  const expiry = whenExpired(operator.expiresAt, () => res.end(EXPIRED));
  res.on('drain', () => void send());
  res.on('close', () => {
    stopWatching();
    clearTimeout(expiry);
  });
  void send();
}
