import { backoff, retryDelay } from '../protocol/retry.js';
import type { ChatStreamRecord } from '../protocol/types.js';
import { linkSignal, sleep } from './abort.js';
import { ApiConnectionError, ApiTimeoutError, SvcSdkError } from './errors.js';
import type { HttpClient, Query } from './http.js';
import { CLIENT_RETRY } from './retry-policy.js';
import { readSse } from './sse.js';

/**
 * Where the record stream of a conversation is: `connecting` to it, `open`, `reconnecting` (waiting to try
 * again after a cut), or `idle` (not read). A stream reports `open` and `reconnecting`; a `ChatStore` all four.
 */
export type ConnectionState = 'idle' | 'connecting' | 'open' | 'reconnecting';

export interface RecordStreamOptions {
  /** Start after this record; without it the stream starts at the live tail. */
  lastEventId?: string;
  signal?: AbortSignal;
  /** Reconnect after a disconnect, resuming after the last record yielded. Default true. */
  reconnect?: boolean;
  onConnectionChange?: (state: Extract<ConnectionState, 'open' | 'reconnecting'>) => void;
}

export interface TurnReadOptions {
  /** Silence (no record) longer than this ends the wait with `ApiTimeoutError`. Default 180000. */
  idleTimeoutMs?: number;
  signal?: AbortSignal;
}

export const DEFAULT_IDLE_TIMEOUT_MS = 180_000;
/** How many yielded ids are remembered to drop a replayed duplicate. */
const SEEN_IDS = 2048;

/**
 * The resume logic on top of the SSE reader, in one place: a long-lived record stream that reconnects
 * (after the wait of `retry.ts`) with `Last-Event-ID` set to the id of the last record it yielded, so no
 * record is lost, and that drops any record whose id it already yielded, so none is repeated.
 */
export async function* streamRecords(
  http: HttpClient,
  path: string,
  options: RecordStreamOptions & {
    /** Sent until the first record is read, e.g. `turns` (a replay that a cursor makes moot). */
    firstQuery?: Query;
  } = {},
): AsyncGenerator<ChatStreamRecord, void, undefined> {
  const { signal, reconnect = true, onConnectionChange } = options;
  let cursor = options.lastEventId;
  /** Reconnects since the last record: the backoff grows with them. */
  let failures = 0;
  const seen = new Set<string>();
  for (;;) {
    let delay: number | undefined;
    try {
      const query = cursor === undefined ? options.firstQuery : undefined;
      const events = readSse(
        http,
        { path, query },
        { lastEventId: cursor, signal, onOpen: () => onConnectionChange?.('open') },
      );
      for await (const event of events) {
        if (event.event !== undefined && event.event !== 'record') continue;
        const record = parseRecord(event.data);
        failures = 0;
        if (seen.has(record.id)) continue;
        seen.add(record.id);
        if (seen.size > SEEN_IDS) seen.delete(seen.values().next().value!);
        // The cursor moves only when a record is dispatched to the caller, never on an `id:` line.
        cursor = record.id;
        yield record;
      }
      if (!reconnect) return;
      // A stream the server ended is opened again like one that was cut.
      delay = backoff(failures);
    } catch (err) {
      delay = reconnect ? retryDelay(err, failures, CLIENT_RETRY) : undefined;
      if (delay === undefined) throw err;
    }
    failures++;
    onConnectionChange?.('reconnecting');
    await sleep(delay, signal);
  }
}

/**
 * Reads records up to and including the `result` record that ends a turn, then stops. Silence longer
 * than `idleTimeoutMs` throws `ApiTimeoutError`; time the caller spends on a record does not count.
 */
export async function* readTurn(
  records: (signal: AbortSignal) => AsyncIterable<ChatStreamRecord>,
  options: TurnReadOptions = {},
): AsyncGenerator<ChatStreamRecord, void, undefined> {
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const controller = new AbortController();
  const unlink = linkSignal(options.signal, controller);
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, idleTimeoutMs);
  };
  try {
    arm();
    for await (const record of records(controller.signal)) {
      clearTimeout(timer);
      yield record;
      if (record.raw.type === 'result') return;
      arm();
    }
    throw new ApiConnectionError('the stream ended before the turn did');
  } catch (err) {
    if (timedOut && !options.signal?.aborted) {
      throw new ApiTimeoutError(`no record for ${idleTimeoutMs} ms while waiting for the end of the turn`);
    }
    throw err;
  } finally {
    clearTimeout(timer);
    unlink();
    controller.abort();
  }
}

function parseRecord(data: string): ChatStreamRecord {
  try {
    const record = JSON.parse(data) as ChatStreamRecord;
    if (typeof record?.id === 'string' && record.raw) return record;
  } catch {
    // Reported below.
  }
  throw new SvcSdkError(`The stream carried a malformed record: ${data.slice(0, 200)}`);
}
