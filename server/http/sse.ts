import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { ChatStreamRecord } from '@svc/agent-sdk/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../services/context.js';
import { lastRecordId, parseCursor, startOfLastTurns } from '../store/record-rows.js';
import { isTurnRunning } from '../store/turn-rows.js';
import { badRequest, tooMany } from './errors.js';
import { beating } from './heartbeats.js';

/** Where a stream starts: after a cursor (a rowid), at the last `turns` turns, or (neither) at the live tail. */
export interface StreamStart {
  conversationId: string;
  after?: number;
  turns?: number;
}

/** How long a caller turned away for holding too many streams waits: one of them has to close first. */
const STREAMS_RETRY_MS = 5000;
/** The refusal of a stream to a caller that holds `limit` open ones. */
export const tooManyStreams = (limit: number) => `too many open streams (limit ${limit} per user)`;
/** Why a stream whose credential expired ends: a client renews its token and resumes from its cursor. */
export const EXPIRED_DETAIL = 'the session token expired';
/** The last event of such a stream. */
export const EXPIRED = `event: expired\ndata: ${JSON.stringify({ detail: EXPIRED_DETAIL })}\n\n`;

/** The headers of a record stream, besides the CORS and safety headers of every reply. */
export const STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  // Reverse proxies (nginx) would otherwise buffer the stream.
  'x-accel-buffering': 'no',
} as const;

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

export const sseFrame = (record: ChatStreamRecord) =>
  `id: ${record.id}\nevent: record\ndata: ${JSON.stringify(record)}\n\n`;

/**
 * A frame larger than this is written a slice at a time, the next once the socket has taken the last: a
 * stream that stopped reading holds its socket's high-water mark and one slice, not a whole record (up to a
 * turn's 4 MB).
 */
export const SLICE_BYTES = 64 * 1024;

/**
 * The frames of records, by record: the streams of a conversation writing the same record share one copy (made
 * once, not once a reader: a reply to 1,000 readers of a conversation was 1,000 JSON.stringify calls a record),
 * which goes with the record once no stream holds it (a stream holds a large record while it writes it, so the hub
 * hands the same record, not a new read of it, to the streams that reach it meanwhile: live-hub.ts).
 */
const frames = new WeakMap<ChatStreamRecord, string | Buffer>();

/** The frame of a record: a string, or a Buffer when larger than a slice (written a slice at a time). */
function frameOf(record: ChatStreamRecord): string | Buffer {
  const shared = frames.get(record);
  if (shared) return shared;
  const text = sseFrame(record);
  // A UTF-8 byte is at least a third of a UTF-16 unit: shorter frames fit in a slice.
  const fits = text.length * 3 <= SLICE_BYTES || Buffer.byteLength(text) <= SLICE_BYTES;
  const frame = fits ? text : Buffer.from(text);
  frames.set(record, frame);
  return frame;
}

/** A record stream's query: its cursor (wins over `Last-Event-ID`) and, without one, how many last turns to replay. */
export interface StreamQuery {
  lastEventId?: string;
  turns?: number;
}

/**
 * What a record stream route answers: the request's cursor (a malformed one is refused before `find` looks the
 * conversation up and checks the caller's right to it), then the conversation's stream, counted as `owner`'s.
 */
export async function answerRecordStream(
  ctx: AppContext,
  req: FastifyRequest & { query: StreamQuery },
  reply: FastifyReply,
  find: () => Promise<{ id: string }>,
  owner: string,
  expiresAt?: string,
): Promise<void> {
  const after = resumeCursor(req, req.query.lastEventId);
  const conversation = await find();
  await sendRecordStream(
    ctx,
    reply,
    { conversationId: conversation.id, after, turns: req.query.turns },
    owner,
    expiresAt,
  );
}

/**
 * Answers with a conversation's record stream as Server-Sent Events: `: connected` at once, the replay,
 * then live records (RecordLog.follow), with a `: ping` comment every `ctx.heartbeatMs`. It ends when the
 * client leaves, the service stops, or the credential it was opened with expires (`expiresAt`): at once
 * when no reply is running, else right after that reply's `result` (a reply begun within the session is
 * heard to its end, and nothing after it), with an `expired` event last; or when its socket takes nothing
 * for a heartbeat interval (a reader that stopped reading; it resumes from its cursor).
 *
 * Refused before it opens: by a draining instance (503, the client resumes elsewhere), a cursor past the
 * conversation's newest record (400, a reader that would never hear anything), and an `owner` already holding
 * `quotas.streamsPerUser` streams (429). A draining instance also ends the streams it has open.
 */
export async function sendRecordStream(
  ctx: AppContext,
  reply: FastifyReply,
  start: StreamStart,
  owner: string,
  expiresAt?: string,
) {
  ctx.drain.refuseWork();
  const { conversationId } = start;
  if (start.after !== undefined && start.after > (await lastRecordId(ctx.db, conversationId))) {
    throw badRequest('lastEventId is past the newest record of this conversation');
  }
  const after = start.after ?? (start.turns ? await startOfLastTurns(ctx.db, conversationId, start.turns) : undefined);
  // From here on nothing waits until the stream is set up and its `close` is heard: a client that left while
  // the database answered (its `close` already went by) holds nothing.
  const res = openEventStream(ctx, reply, owner);
  if (!res) return;
  /** A large frame partly written (its record held meanwhile), and what ends the stream once it is whole (the `expired` event). */
  let pending: { record: ChatStreamRecord; frame: Buffer; offset: number } | undefined;
  let endAfterFrame: string | undefined;
  const end = (last?: string) => {
    if (pending) endAfterFrame = last ?? '';
    else res.end(last);
  };
  /** Writes the rest of a large frame while the socket takes it; true once it is whole and the socket wants more. */
  const writePending = (): boolean => {
    while (pending) {
      const { frame, offset } = pending;
      const next = Math.min(frame.length, offset + SLICE_BYTES);
      const more = res.write(frame.subarray(offset, next));
      pending.offset = next;
      if (next === frame.length) {
        pending = undefined;
        if (endAfterFrame !== undefined) {
          res.end(endAfterFrame);
          return false;
        }
      }
      if (!more) return false;
    }
    return true;
  };
  let expired = false;
  const expiry = whenExpired(expiresAt, () => {
    expired = true;
    isTurnRunning(ctx.db, conversationId).then(
      (running) => running || end(EXPIRED),
      () => end(EXPIRED),
    );
  });
  // Records are read from the table only as fast as the socket takes them: at most its high-water mark and
  // a slice of the record being written wait in the service (docs/protocol.md "stream").
  const follower = ctx.records.follow(conversationId, after, {
    record: (record) => {
      const frame = frameOf(record);
      let more: boolean;
      if (typeof frame === 'string') more = res.write(frame);
      else {
        pending = { record, frame, offset: 0 };
        more = writePending();
      }
      if (!expired || record.raw.type !== 'result') return more;
      end(EXPIRED);
      return false;
    },
    close: () => end(),
  });
  res.on('drain', () => {
    if (writePending()) follower.resume();
  });
  res.on('close', () => {
    clearTimeout(expiry);
    follower.stop();
  });
}

/**
 * Opens an event stream on `reply`, counted as one of `owner`'s open streams until it closes: the stream's headers,
 * `: connected` at once, a `: ping` comment every `ctx.heartbeatMs`, and its end once its reader has gone. A reader
 * whose socket took nothing from one heartbeat to the next has fallen behind: it is closed (a record stream's reader
 * resumes from its cursor when it reads again); a full socket gets no ping. Undefined when the client left already;
 * past the owner's open streams, refused (429).
 */
export function openEventStream(ctx: AppContext, reply: FastifyReply, owner: string): ServerResponse | undefined {
  if (reply.request.raw.socket.destroyed) {
    reply.hijack();
    return undefined;
  }
  const release = ctx.streams.open(owner, () => reply.raw.end());
  if (!release) {
    throw tooMany(tooManyStreams(ctx.quotas.streamsPerUser), STREAMS_RETRY_MS);
  }
  reply.hijack();
  const res = reply.raw;
  // The CORS and safety headers set on every reply, and the stream's own.
  res.writeHead(200, { ...(reply.getHeaders() as OutgoingHttpHeaders), ...STREAM_HEADERS });
  res.write(': connected\n\n');
  let stalled = false;
  const stopBeating = beating(() => {
    if (!res.writableNeedDrain) {
      stalled = false;
      res.write(': ping\n\n');
    } else if (stalled) res.destroy();
    else stalled = true;
  }, ctx.heartbeatMs);
  res.on('drain', () => {
    stalled = false;
  });
  // A reader sends nothing after its request: the end of what it sends means it has gone (the server answers
  // half-closed clients, server/http/app.ts, so without this a stream would outlive its reader until a write failed).
  const socket = reply.request.raw.socket;
  const gone = () => res.end();
  socket.once('end', gone);
  res.on('close', () => {
    socket.off('end', gone);
    stopBeating();
    release();
  });
  return res;
}

/** Calls `expired` when a stream's credential stops working (`expiresAt`; none: never). Returns its timer. */
export function whenExpired(expiresAt: string | undefined, expired: () => void): NodeJS.Timeout | undefined {
  // Session tokens live a day at most: well within what a timer holds.
  return expiresAt === undefined ? undefined : setTimeout(expired, Math.max(0, Date.parse(expiresAt) - Date.now()));
}
