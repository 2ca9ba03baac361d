import { createParser } from 'eventsource-parser';
import type { ChatStreamRecord } from '../../src/protocol/types.js';

/** A live SSE response read with streaming fetch and eventsource-parser, as the client reads it. */
export interface SseReader {
  status: number;
  headers: Headers;
  /** Records in the order they were dispatched (at their blank line). */
  records: ChatStreamRecord[];
  /** The `id:` of each dispatched event. */
  ids: (string | undefined)[];
  /** Comment lines (`connected`, `ping`), without the leading colon and space. */
  comments: string[];
  /** Events other than records (e.g. `expired`), as they came. */
  others: { event?: string; data: string }[];
  /** Resolves when the server ends the response or it is aborted. */
  ended: Promise<void>;
  /** Waits until `done(records)` holds (checked at each event, a record or another); rejects after `timeoutMs`. */
  waitFor(done: (records: ChatStreamRecord[]) => boolean, timeoutMs?: number): Promise<ChatStreamRecord[]>;
  /** Waits for the first `result` record (the end of a turn) and returns the records up to it. */
  untilResult(timeoutMs?: number): Promise<ChatStreamRecord[]>;
  close(): void;
}

export interface OpenOptions {
  token?: string;
  /** Sent as the `Last-Event-ID` header. */
  lastEventIdHeader?: string;
}

/** Opens `url` as a record stream. Throws (with the body) unless the answer is 200. */
export async function openSse(url: string, options: OpenOptions = {}): Promise<SseReader> {
  const controller = new AbortController();
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.lastEventIdHeader) headers['last-event-id'] = options.lastEventIdHeader;
  const res = await fetch(url, { headers, signal: controller.signal });
  if (res.status !== 200 || !res.body) {
    throw new Error(`stream answered ${res.status}: ${await res.text()}`);
  }
  const records: ChatStreamRecord[] = [];
  const ids: (string | undefined)[] = [];
  const comments: string[] = [];
  const others: { event?: string; data: string }[] = [];
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const waiter of [...waiters]) waiter();
  };
  const parser = createParser({
    onEvent(event) {
      if (event.event !== 'record') {
        others.push({ event: event.event, data: event.data });
        notify();
        return;
      }
      ids.push(event.id);
      records.push(JSON.parse(event.data));
      notify();
    },
    onComment(comment) {
      comments.push(comment.trim());
      notify();
    },
  });
  let finished = false;
  const ended = (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        parser.feed(decoder.decode(chunk, { stream: true }));
      }
    } catch {
      // Aborted by close(): the records read so far stay.
    } finally {
      finished = true;
      notify();
    }
  })();

  const waitFor: SseReader['waitFor'] = (done, timeoutMs = 10000) =>
    new Promise((resolve, reject) => {
      const check = () => {
        if (done(records)) {
          cleanup();
          resolve(records);
        } else if (finished) {
          cleanup();
          reject(new Error(`stream ended after ${records.length} records`));
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out after ${records.length} records: ${records.map((r) => r.raw.type).join(' ')}`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });

  return {
    status: res.status,
    headers: res.headers,
    records,
    ids,
    comments,
    others,
    ended,
    waitFor,
    async untilResult(timeoutMs) {
      await waitFor((all) => all.some((r) => r.raw.type === 'result'), timeoutMs);
      return records.slice(0, records.findIndex((r) => r.raw.type === 'result') + 1);
    },
    close: () => controller.abort(),
  };
}
