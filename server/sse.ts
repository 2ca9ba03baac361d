import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ChatStreamRecord } from '../src/client/types.js';
import type { AppContext } from './context.js';
import { badRequest } from './errors.js';
import { parseCursor, startOfLastTurns } from './store/records.js';

/** Where a stream starts: after a cursor (a rowid), at the last `turns` turns, or (neither) at the live tail. */
export interface StreamStart {
  after?: number;
  turns?: number;
}

/**
 * The stream cursor of a request: the `lastEventId` query parameter wins over the `Last-Event-ID` header.
 * 400 `invalid lastEventId` for a malformed one.
 */
export function resumeCursor(req: FastifyRequest, lastEventId: string | undefined): number | undefined {
  const header = req.headers['last-event-id'];
  const cursor = lastEventId || (typeof header === 'string' && header !== '' ? header : undefined);
  if (cursor === undefined) return undefined;
  const rowid = parseCursor(cursor);
  if (rowid === undefined) throw badRequest('invalid lastEventId');
  return rowid;
}

const sseFrame = (record: ChatStreamRecord) => `id: ${record.id}\nevent: record\ndata: ${JSON.stringify(record)}\n\n`;

/**
 * Answers with a conversation's record stream as Server-Sent Events: `: connected` at once, the replay,
 * then live records (RecordLog.follow), with a `: ping` comment every `ctx.heartbeatMs`. It ends only
 * when the client leaves (or the service stops).
 */
export function sendRecordStream(ctx: AppContext, reply: FastifyReply, conversationId: string, start: StreamStart) {
  const after = start.after ?? (start.turns ? startOfLastTurns(ctx.db, conversationId, start.turns) : undefined);
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    // The CORS headers set on every reply.
    ...(reply.getHeaders() as OutgoingHttpHeaders),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    // Reverse proxies (nginx) would otherwise buffer the stream.
    'x-accel-buffering': 'no',
  });
  res.write(': connected\n\n');
  const heartbeat = setInterval(() => res.write(': ping\n\n'), ctx.heartbeatMs);
  const unfollow = ctx.records.follow(conversationId, after, {
    record: (record) => res.write(sseFrame(record)),
    close: () => res.end(),
  });
  res.on('close', () => {
    clearInterval(heartbeat);
    unfollow();
  });
}
