import type { ChatStreamRecord } from '../protocol/record-types.js';
import { linkSignal } from './abort.js';
import { ApiConnectionError, ApiTimeoutError, SvcSdkError } from './errors.js';
import type { HttpClient, Query } from './http.js';
import { type ReconnectingSseOptions, readSseReconnecting } from './sse.js';

/**
 * Where the record stream of a conversation is: `connecting` to it, `open`, `reconnecting` (waiting to try
 * again after a cut), or `idle` (not read). A stream reports `open` and `reconnecting`; a `ChatStore` all four.
 */
export type ConnectionState = 'idle' | 'connecting' | 'open' | 'reconnecting';

export interface RecordStreamOptions extends ReconnectingSseOptions {
  /** Start after this record; without it the stream starts at the live tail. */
  lastEventId?: string;
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
 * The resume logic on top of the reconnecting SSE reader, in one place: a long-lived record stream that
 * reconnects with `Last-Event-ID` set to the id of the last record it yielded, so no record is lost, and that
 * drops any record whose id it already yielded, so none is repeated.
 */
export async function* streamRecords(
  http: HttpClient,
  path: string,
  options: RecordStreamOptions & {
    /** Sent until the first record is read, e.g. `turns` (a replay that a cursor makes moot). */
    firstQuery?: Query;
  } = {},
): AsyncGenerator<ChatStreamRecord, void, undefined> {
  let cursor = options.lastEventId;
  const seen = new Set<string>();
  const events = readSseReconnecting(
    http,
    () => ({ path, query: cursor === undefined ? options.firstQuery : undefined, lastEventId: cursor }),
    [undefined, 'record'],
    options,
  );
  for await (const event of events) {
    const record = parseRecord(event.data);
    if (seen.has(record.id)) continue;
    seen.add(record.id);
    if (seen.size > SEEN_IDS) seen.delete(seen.values().next().value!);
    // The cursor moves only when a record is dispatched to the caller, never on an `id:` line.
    cursor = record.id;
    yield record;
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
