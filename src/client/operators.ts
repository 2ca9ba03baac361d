import { backoff, retryDelay } from '../protocol/retry.js';
import type {
  ChatStreamRecord,
  HandoffResult,
  HistoryOptions,
  HistoryResult,
  MessagePart,
  OperatorMessageRequest,
  OperatorQueue,
} from '../protocol/types.js';
import { sleep } from './abort.js';
import type { RequestOptions, SvcClientConfig } from './config.js';
import { type HttpClient, httpOf, path } from './http.js';
import { type IdempotencyOptions, sendCall } from './idempotency.js';
import { type RecordStreamOptions, streamRecords } from './record-stream.js';
import { CLIENT_RETRY } from './retry-policy.js';
import { readSse } from './sse.js';

export interface QueueStreamOptions {
  signal?: AbortSignal;
  /** Open the stream again after a cut or its end (e.g. the token expired and was renewed). Default true. */
  reconnect?: boolean;
}

/**
 * A person of the site's staff (docs/protocol.md "A person in the conversation"), with an operator's session token
 * (`ot_…`, from `workspaces.mintOperatorSession` on the site's backend) as its `apiKey` or `getToken`: the live
 * queue of its workspace, the conversations it takes, releases and closes, and its messages to their visitors.
 * Not part of the visitor's widget: `<svc-inbox>` uses it.
 */
export class OperatorInbox {
  readonly http: HttpClient;

  constructor(http: HttpClient | SvcClientConfig) {
    this.http = httpOf(http);
  }

  /** The workspace's waiting conversations (newest request first), those this operator holds, and the missed ones. */
  async queue(opts: RequestOptions = {}): Promise<OperatorQueue> {
    return this.http.json({ ...opts, method: 'GET', path: '/operators/queue' });
  }

  /**
   * The queue at once and after every change, on any instance of the service: each value is the whole queue, so a
   * reconnect (after the wait of `retry.ts`) loses nothing and needs no cursor.
   */
  async *queueStream(opts: QueueStreamOptions = {}): AsyncGenerator<OperatorQueue, void, undefined> {
    const { signal, reconnect = true } = opts;
    let failures = 0;
    for (;;) {
      let delay: number | undefined;
      try {
        for await (const event of readSse(this.http, { path: '/operators/queue/stream' }, { signal })) {
          if (event.event !== 'queue') continue;
          failures = 0;
          yield JSON.parse(event.data) as OperatorQueue;
        }
        if (!reconnect) return;
        delay = backoff(failures);
      } catch (err) {
        delay = reconnect ? retryDelay(err, failures, CLIENT_RETRY) : undefined;
        if (delay === undefined) throw err;
      }
      failures++;
      await sleep(delay, signal);
    }
  }

  /** A page of a conversation's history, and who holds it (`handoff`). */
  async history(conversationId: string, opts: HistoryOptions & RequestOptions = {}): Promise<HistoryResult> {
    const { before, turns, maxEntries, includeThinking, ...request } = opts;
    return this.http.json({
      ...request,
      method: 'GET',
      path: path`/operators/conversations/${conversationId}/history`,
      query: { before, turns, maxEntries, includeThinking },
    });
  }

  /** A conversation's records as they come, resuming after a cut like `chat.stream`. */
  stream(conversationId: string, opts: RecordStreamOptions = {}): AsyncGenerator<ChatStreamRecord, void, undefined> {
    return streamRecords(this.http, path`/operators/conversations/${conversationId}/stream`, opts);
  }

  /** Takes a waiting conversation; another operator's take first is a `ConflictError` (409). */
  take(conversationId: string, opts: RequestOptions = {}): Promise<HandoffResult> {
    return this.#hold(conversationId, 'take', opts);
  }

  /** Gives the conversation back to its agents, which read what was said. */
  release(conversationId: string, opts: RequestOptions = {}): Promise<HandoffResult> {
    return this.#hold(conversationId, 'release', opts);
  }

  /** Closes the matter; the agents answer what the visitor writes next. */
  close(conversationId: string, opts: RequestOptions = {}): Promise<HandoffResult> {
    return this.#hold(conversationId, 'close', opts);
  }

  /** Writes to the visitor of a conversation this operator holds (under an `Idempotency-Key`, like `chat.send`). */
  async send(
    conversationId: string,
    message: string | OperatorMessageRequest,
    opts: IdempotencyOptions = {},
  ): Promise<{ conversationId: string; message: ChatStreamRecord }> {
    const body: { message: string; parts?: MessagePart[] } = typeof message === 'string' ? { message } : message;
    return this.http.json({
      ...sendCall(opts),
      method: 'POST',
      path: path`/operators/conversations/${conversationId}/messages`,
      body,
    });
  }

  #hold(conversationId: string, action: 'take' | 'release' | 'close', opts: RequestOptions): Promise<HandoffResult> {
    return this.http.json({
      ...opts,
      method: 'POST',
      path: path`/operators/conversations/${conversationId}/${action}`,
    });
  }
}
