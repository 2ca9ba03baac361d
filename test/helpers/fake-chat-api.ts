import type { ChatApi } from '../../src/chat/chat-api.js';
import { HttpClient } from '../../src/client/http.js';
import type {
  ChatStreamRecord,
  HistoryOptions,
  HistoryResult,
  InterruptResult,
  SendRequest,
  SendResult,
} from '../../src/protocol/types.js';
import { CONVERSATION } from './records.js';

/** An error as the client throws it: `status` and `message` (the service's `detail`). */
export function apiError(status: number, message: string): Error & { status: number } {
  return Object.assign(new Error(message), { status });
}

type StreamOptions = NonNullable<Parameters<ChatApi['stream']>[1]>;

/**
 * One stream the store opened. Records pushed together arrive as one network chunk would from the real
 * client: yielded one by one, with the microtask hops of `for await` between them.
 */
export class FakeStream implements AsyncIterable<ChatStreamRecord> {
  readonly #queue: ChatStreamRecord[] = [];
  #wake?: () => void;
  #error?: unknown;

  constructor(
    readonly conversationId: string,
    readonly options: StreamOptions = {},
  ) {
    options.signal?.addEventListener('abort', () => this.#wake?.());
  }

  get aborted(): boolean {
    return this.options.signal?.aborted ?? false;
  }

  push(...records: ChatStreamRecord[]): void {
    this.#queue.push(...records);
    this.#wake?.();
  }

  /** The client gave up (a non-transient error). */
  fail(error: unknown): void {
    this.#error = error;
    this.#wake?.();
  }

  connection(state: 'open' | 'reconnecting'): void {
    this.options.onConnectionChange?.(state);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<ChatStreamRecord> {
    for (;;) {
      // The client ends quietly when its signal aborts.
      if (this.aborted) return;
      const next = this.#queue.shift();
      if (next) {
        yield next;
        continue;
      }
      if (this.#error) throw this.#error;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }
}

/**
 * A hand-driven `ChatApi` (the store's tests in Node, the chat's in browsers, the benchmarks): sends answer with
 * a stored user record unless a test queues something else; history pages are handed over as queued; each
 * stream the store opens is a {@link FakeStream} the test pushes records into. No network: what a benchmark on
 * it measures is the widget.
 */
export class FakeChatApi implements ChatApi {
  readonly sent: SendRequest[] = [];
  /** The `Idempotency-Key` of each send, in order. */
  readonly keys: (string | undefined)[] = [];
  readonly streams: FakeStream[] = [];
  readonly historyCalls: { conversationId: string; options: HistoryOptions }[] = [];
  readonly interrupts: string[] = [];
  /** Answers of the next sends, in order; a function can hold the answer back or fail. */
  readonly sendAnswers: ((req: SendRequest) => Promise<SendResult>)[] = [];
  readonly historyPages: (HistoryResult | Error)[] = [];
  interruptAnswer: InterruptResult = { interrupted: true, turnId: 't_1' };
  #nextRecord = 1;
  /** What the chat's panel reads of a real client besides the calls: the service's address (this page's). */
  http: { readonly baseUrl: string } = new HttpClient({ baseUrl: globalThis.location?.origin });
  readonly #opened = deferred<FakeStream>();

  /** `history`: the first page `history()` hands over (not kept: a real client's page is garbage once applied). */
  constructor(history?: ChatStreamRecord[]) {
    if (history) this.historyPages.push({ entries: history, hasMore: false });
  }

  /** Ids the default send answer gives the stored user record. */
  recordIdsFrom(n: number): void {
    this.#nextRecord = n;
  }

  send(req: SendRequest, opts: { idempotencyKey?: string } = {}): Promise<SendResult> {
    this.sent.push(req);
    this.keys.push(opts.idempotencyKey);
    const answer = this.sendAnswers.shift();
    if (answer) return answer(req);
    return Promise.resolve(storedAs(req, this.#nextRecord++));
  }

  stream(conversationId: string, options?: StreamOptions): AsyncIterable<ChatStreamRecord> {
    const stream = new FakeStream(conversationId, options);
    this.streams.push(stream);
    this.#opened.resolve(stream);
    return stream;
  }

  history(conversationId: string, options: HistoryOptions & { signal?: AbortSignal } = {}): Promise<HistoryResult> {
    const { signal: _signal, ...rest } = options;
    this.historyCalls.push({ conversationId, options: rest });
    const page = this.historyPages.shift() ?? { entries: [], hasMore: false };
    return page instanceof Error ? Promise.reject(page) : Promise.resolve(page);
  }

  interrupt(conversationId: string): Promise<InterruptResult> {
    this.interrupts.push(conversationId);
    return Promise.resolve(this.interruptAnswer);
  }

  get lastStream(): FakeStream {
    const stream = this.streams.at(-1);
    if (!stream) throw new Error('no stream was opened');
    return stream;
  }

  /** Hands `records` to the stream being read now, as one network read (the stream must be open). */
  push(records: ChatStreamRecord[]): void {
    this.lastStream.push(...records);
  }

  /**
   * Hands `records` to the stream once the store opened it, `perTask` at a time with a task boundary between
   * groups, as network reads reach the real client; resolves once every record was handed over.
   */
  async deliver(records: ChatStreamRecord[], perTask: number): Promise<void> {
    await this.#opened.promise;
    for (let i = 0; i < records.length; i += perTask) {
      this.push(records.slice(i, i + perTask));
      await nextTask();
    }
  }
}

/** The SendResult the service gives for `req` stored as record number `n` (docs/protocol.md, send). */
export function storedAs(req: SendRequest, n: number, turn = 't_1'): SendResult {
  const userEventId = `e${String(n).padStart(15, '0')}`;
  return {
    conversationId: req.conversationId ?? CONVERSATION,
    userEventId,
    userMessage: {
      id: userEventId,
      seq: n,
      timestamp: '2026-11-21T10:00:00.000Z',
      sessionId: req.conversationId ?? CONVERSATION,
      conversationId: req.conversationId ?? CONVERSATION,
      turnId: turn,
      sender: 'user',
      event: 'message',
      raw: {
        type: 'user',
        message: { role: 'user', content: [{ type: 'text', text: req.message }] },
        ...(req.parts ? { parts: req.parts } : {}),
        ...(req.metadata ? { metadata: req.metadata } : {}),
        ...(req.toolAction ? { toolAction: true } : {}),
        ...(req.senderName ? { senderName: req.senderName } : {}),
      },
    },
    results: [{ agentId: 'agent_echo', msgId: 'm_1', streamId: turn }],
  };
}

/** A promise with its resolve and reject, to hold an answer back. */
export function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * A task boundary: `setImmediate` in Node, a message to itself in a browser (a zero `setTimeout` is clamped to
 * 4 ms after a few nested calls).
 */
export function nextTask(): Promise<void> {
  if (typeof setImmediate === 'function') return new Promise((resolve) => setImmediate(resolve));
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => resolve();
    channel.port2.postMessage(null);
  });
}

/**
 * Resolves once the records already handed to the store are applied and its notification has run: the
 * notification is queued behind the first task, so two tasks are awaited.
 */
export async function settle(): Promise<void> {
  await nextTask();
  await nextTask();
}
