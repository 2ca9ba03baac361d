import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { backoff, retryDelay } from '../protocol/retry.js';
import { linkSignal, sleep } from './abort.js';
import { AbortError, ApiConnectionError, SvcSdkError } from './errors.js';
import type { Call, HttpClient } from './http.js';
import { CLIENT_RETRY } from './retry-policy.js';

export type SseMessage = EventSourceMessage;

/** What a stream is opened with: the request, and its `Last-Event-ID`. */
export type SseRequest = Omit<Call, 'method' | 'signal'> & { lastEventId?: string };

export interface SseOptions {
  /** Sent as `Last-Event-ID`. */
  lastEventId?: string;
  signal?: AbortSignal;
  /** Called once the response headers arrived: the server is now sending. */
  onOpen?: () => void;
}

/**
 * The one SSE reader: a streaming `fetch` (never `EventSource`, which cannot send `Authorization`),
 * bytes to events with `eventsource-parser`, comments skipped. An event is yielded only at its closing
 * blank line, so a partial event at a cut is dropped (and re-read after a resume). Breaking out of the
 * loop aborts the request. The loop ends quietly when the server closes the stream, throws
 * `ApiConnectionError` when the connection breaks and `AbortError` when the caller's signal aborts.
 */
export async function* readSse(
  http: HttpClient,
  call: Omit<Call, 'method' | 'signal'>,
  options: SseOptions = {},
): AsyncGenerator<SseMessage, void, undefined> {
  const controller = new AbortController();
  const unlink = linkSignal(options.signal, controller);
  const headers: Record<string, string> = { ...call.headers, accept: 'text/event-stream' };
  if (options.lastEventId) headers['last-event-id'] = options.lastEventId;
  try {
    const res = await http.stream({ ...call, method: 'GET', headers, signal: controller.signal });
    const type = res.headers.get('content-type') ?? '';
    if (!type.startsWith('text/event-stream') || !res.body) {
      throw new SvcSdkError(`Expected an event stream, got ${type || 'no content type'} (HTTP ${res.status})`);
    }
    options.onOpen?.();
    const pending: SseMessage[] = [];
    const parser = createParser({ onEvent: (event) => pending.push(event) });
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      parser.feed(decoder.decode(value, { stream: true }));
      while (pending.length > 0) yield pending.shift()!;
    }
  } catch (err) {
    if (options.signal?.aborted) throw new AbortError();
    if (err instanceof SvcSdkError) throw err;
    throw new ApiConnectionError(`stream interrupted: ${(err as Error)?.message ?? String(err)}`, { cause: err });
  } finally {
    controller.abort();
    unlink();
  }
}

export interface ReconnectingSseOptions {
  signal?: AbortSignal;
  /** Open the stream again after a cut or its end. Default true. */
  reconnect?: boolean;
  /** `open` each time the response headers arrived, `reconnecting` before each wait to open the stream again. */
  onConnectionChange?: (state: 'open' | 'reconnecting') => void;
}

/**
 * The one reconnect loop on top of {@link readSse} (record streams, the operators' queue): yields the events named
 * in `events` (`undefined`: an event without a name), and opens the stream again after a cut (after the wait of
 * `retry.ts`, by CLIENT_RETRY) or after the server ended it (a backoff): both waits grow with the opens since the
 * last event yielded. `request` is asked at every open, so a caller resumes from its cursor. Errors that are not
 * worth another try (auth, lookup, an abort) are thrown, as is any error without `reconnect`.
 */
export async function* readSseReconnecting(
  http: HttpClient,
  request: () => SseRequest,
  events: readonly (string | undefined)[],
  options: ReconnectingSseOptions = {},
): AsyncGenerator<SseMessage, void, undefined> {
  const { signal, reconnect = true, onConnectionChange } = options;
  let failures = 0;
  for (;;) {
    let delay: number | undefined;
    try {
      const { lastEventId, ...call } = request();
      for await (const event of readSse(http, call, {
        lastEventId,
        signal,
        onOpen: () => onConnectionChange?.('open'),
      })) {
        if (!events.includes(event.event)) continue;
        failures = 0;
        yield event;
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
