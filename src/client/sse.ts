import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { linkSignal } from './abort.js';
import { AbortError, ApiConnectionError, SvcSdkError } from './errors.js';
import type { Call, HttpClient } from './http.js';

export type SseMessage = EventSourceMessage;

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
