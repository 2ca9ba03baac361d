import { randomUUID } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { SLICE_BYTES, sseFrame } from '../../server/http/sse.js';
import type { ChatStreamRecord } from '../../src/protocol/record-types.js';
import { readTurn, send, sessionToken } from './conversation.js';
import { startTestServer, type TestServer } from './server.js';

/** Cursor before every record: reading after it replays a conversation from its start. */
export const FROM_START = 'e000000000000000';

/**
 * Appends agent messages of `recordBytes` of text to a conversation until its records take `totalBytes`,
 * through the one record path (a runtime's messages, since a visitor's are 64 KB at most). Returns them.
 */
export async function fillConversation(
  server: TestServer,
  conversationId: string,
  recordBytes: number,
  totalBytes: number,
): Promise<ChatStreamRecord[]> {
  const text = 'y'.repeat(recordBytes);
  const records: ChatStreamRecord[] = [];
  while (records.length * recordBytes < totalBytes) {
    records.push(
      ...(await server.ctx.records.append(conversationId, {
        sender: 'agent',
        event: 'message',
        agentId: 'agent_echo',
        raw: {
          type: 'assistant',
          agentId: 'agent_echo',
          message: { id: `m_${randomUUID()}`, role: 'assistant', content: [{ type: 'text', text }] },
        },
      })),
    );
  }
  return records;
}

/**
 * The bytes the service writes for one record on a stream: its SSE frame, in HTTP/1.1 chunks of at most
 * `SLICE_BYTES` (each with its size in hex and two line ends: 7 bytes on a 1.4 KB frame, which a socket's bound of
 * one frame must count).
 */
export function frameBytes(record: ChatStreamRecord): number {
  const length = Buffer.byteLength(sseFrame(record));
  let bytes = 0;
  for (let at = 0; at < length; at += SLICE_BYTES) {
    const size = Math.min(SLICE_BYTES, length - at);
    bytes += size.toString(16).length + 2 + size + 2;
  }
  return bytes;
}

/** A record stream opened on a raw socket whose reader reads nothing until told to. */
export interface StalledReader {
  /** The client's port: the service's socket of this stream has it as its remote port. */
  port: number;
  /** Starts reading; resolves with the ids of the records received once `lastId` has arrived. */
  readUntil(lastId: string): Promise<string[]>;
  /** Starts reading; resolves with the ids of the records received whole once the service has closed the connection. */
  readToEnd(): Promise<string[]>;
  close(): void;
}

/** Opens a stream of `conversationId` after `after` and reads nothing: a visitor whose tab stopped reading. */
export async function openStalled(
  server: TestServer,
  conversationId: string,
  token: string,
  after = FROM_START,
): Promise<StalledReader> {
  const { hostname, port } = new URL(server.url);
  const socket: Socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.on('error', () => {
    // The service closing a stream that fell behind may reset it: readToEnd and readUntil hear of it by `close`.
  });
  socket.pause();
  // What arrived, decoded as it came (records are large: nothing is rescanned); a record counts once its event
  // is whole (its blank line arrived), as a client reads it.
  const chunks: string[] = [];
  const decode = chunkedBody();
  const wholeIds = () =>
    [...chunks.join('').matchAll(/^id: (e\d{15})\nevent: record\ndata: .*\n\n/gm)].map((match) => match[1]!);
  socket.write(
    `GET /api/v2/conversations/${conversationId}/stream?lastEventId=${after} HTTP/1.1\r\n` +
      `host: ${hostname}:${port}\r\nauthorization: Bearer ${token}\r\n\r\n`,
  );
  return {
    port: socket.localPort!,
    readUntil(lastId) {
      return new Promise((resolve, reject) => {
        const line = `id: ${lastId}\n`;
        // The last bytes seen (what a chunk boundary may have cut), and whether the id line has arrived.
        let tail = '';
        let seen = false;
        const onData = (chunk: Buffer) => {
          const body = decode(chunk);
          chunks.push(body);
          let text = tail + body;
          if (!seen) {
            const at = text.indexOf(line);
            seen = at >= 0;
            if (!seen) {
              tail = text.slice(-line.length);
              return;
            }
            text = text.slice(at);
          }
          tail = text.slice(-1);
          if (!text.includes('\n\n')) return;
          socket.pause();
          socket.off('data', onData);
          resolve(wholeIds());
        };
        socket.on('data', onData);
        socket.once('close', () => reject(new Error(`the stream closed before ${lastId}`)));
        socket.resume();
      });
    },
    readToEnd() {
      return new Promise((resolve) => {
        socket.on('data', (chunk: Buffer) => chunks.push(decode(chunk)));
        socket.once('close', () => resolve(wholeIds()));
        socket.resume();
      });
    },
    close: () => socket.destroy(),
  };
}

/**
 * Decodes a response as it arrives, a piece at a time: its headers are skipped and its chunked body (each
 * write of the service is a chunk, a large record several) given back as the text a client reads (latin1).
 */
function chunkedBody(): (piece: Buffer) => string {
  let state: 'head' | 'size' | 'data' | 'crlf' | 'end' = 'head';
  let pending = '';
  let left = 0;
  return (piece) => {
    const text = piece.toString('latin1');
    let out = '';
    let i = 0;
    while (i < text.length && state !== 'end') {
      if (state === 'data') {
        const take = Math.min(left, text.length - i);
        out += text.slice(i, i + take);
        i += take;
        left -= take;
        if (left === 0) [state, left] = ['crlf', 2];
      } else if (state === 'crlf') {
        const take = Math.min(left, text.length - i);
        i += take;
        left -= take;
        if (left === 0) state = 'size';
      } else {
        // The headers end with a blank line, a chunk's size line with CRLF.
        const end = state === 'head' ? '\r\n\r\n' : '\r\n';
        const at = (pending + text.slice(i)).indexOf(end);
        if (at < 0) {
          pending += text.slice(i);
          break;
        }
        const line = (pending + text.slice(i)).slice(0, at);
        i += at + end.length - pending.length;
        pending = '';
        if (state === 'head') state = 'size';
        else {
          left = Number.parseInt(line, 16);
          state = left > 0 ? 'data' : 'end';
        }
      }
    }
    return out;
  };
}

/** What the service's sockets hold in their write buffers, watched at every write. */
export interface BufferWatch {
  /** The most any socket of a client port held after a write. */
  most(port: number): number;
  /** Resolves once `ready()` holds after a write, or once a socket held more than `limit` bytes. */
  until(ready: () => boolean, limit: number): Promise<void>;
  /** Whether the socket of a client port holds at least its high-water mark (its writer waits for drain). */
  full(port: number): boolean;
  /** The bytes the service has written to the socket of a client port (headers and framing included). */
  written(port: number): number;
  highWaterMark(): number;
  stop(): void;
}

/**
 * Watches the sockets the service accepts from now on: after every write, how many bytes each one buffers
 * (Node's `writableLength`: what the service holds for a reader that has not taken it yet).
 */
export function watchBuffers(server: TestServer): BufferWatch {
  const most = new Map<number, number>();
  const written = new Map<number, number>();
  const sockets = new Map<number, Socket>();
  let check = () => {};
  let hwm = 0;
  const onConnection = (socket: Socket) => {
    const port = socket.remotePort!;
    sockets.set(port, socket);
    hwm = socket.writableHighWaterMark;
    const write = socket.write;
    socket.write = function (this: Socket, ...args: Parameters<Socket['write']>) {
      const result = write.apply(this, args);
      const [chunk] = args;
      written.set(
        port,
        (written.get(port) ?? 0) + (typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length),
      );
      most.set(port, Math.max(most.get(port) ?? 0, socket.writableLength));
      check();
      return result;
    } as Socket['write'];
  };
  server.app.server.on('connection', onConnection);
  return {
    most: (port) => most.get(port) ?? 0,
    full: (port) => {
      const socket = sockets.get(port);
      return !!socket && socket.writableLength >= socket.writableHighWaterMark;
    },
    written: (port) => written.get(port) ?? 0,
    highWaterMark: () => hwm,
    until(ready, limit) {
      return new Promise((resolve) => {
        check = () => {
          if (ready() || [...most.values()].some((bytes) => bytes > limit)) {
            check = () => {};
            resolve();
          }
        };
      });
    },
    stop: () => server.app.server.off('connection', onConnection),
  };
}

/**
 * Runs `run` on a service of its own whose heartbeats are far apart (a stream full from one to the next would
 * be closed; stream.test.ts covers that), with a visitor's session token; closes the service after.
 */
export async function withSlowReaderServer(run: (server: TestServer, token: string) => Promise<void>): Promise<void> {
  const server = await startTestServer({ heartbeatMs: 10 * 60_000 });
  try {
    await run(server, (await sessionToken(server)).token);
  } finally {
    await server.close();
  }
}

/** A new conversation of the visitor's after one turn, filled as `fillConversation` does: its id and the records added. */
export async function filledConversation(
  server: TestServer,
  token: string,
  recordBytes: number,
  totalBytes: number,
): Promise<{ conversationId: string; filled: ChatStreamRecord[] }> {
  const sent = await send(server, token, { message: 'fill', targetAgentIds: ['agent_echo'], newConversation: true });
  await readTurn(server, token, sent.conversationId, sent.userEventId!);
  const filled = await fillConversation(server, sent.conversationId, recordBytes, totalBytes);
  return { conversationId: sent.conversationId, filled };
}

/** What a check of stalled readers is given. */
export interface StalledReaders {
  readers: StalledReader[];
  watch: BufferWatch;
  /** How much the process's RSS has grown since just before the readers opened, in MB. */
  rssGrowthMb(): number;
}

/**
 * Opens a stalled reader of a conversation after each cursor of `starts`, the service's sockets watched, and
 * runs `check`; then closes the readers and waits until the service has let them all go.
 */
export async function withStalledReaders(
  server: TestServer,
  conversationId: string,
  token: string,
  starts: string[],
  check: (stalled: StalledReaders) => Promise<void>,
): Promise<void> {
  const watch = watchBuffers(server);
  const rssBefore = process.memoryUsage().rss;
  const readers = await Promise.all(starts.map((start) => openStalled(server, conversationId, token, start)));
  try {
    await check({ readers, watch, rssGrowthMb: () => (process.memoryUsage().rss - rssBefore) / 2 ** 20 });
  } finally {
    for (const reader of readers) reader.close();
    watch.stop();
  }
  await server.readersGone(conversationId);
}
