import type { ChatApi } from '../../src/chat/chat-api.js';
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

/** A hand-driven `ChatApi`: sends answer with a stored user record unless a test queues something else. */
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

const nextTask = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Resolves once the records already handed to the store are applied and its notification has run: the
 * notification is queued behind the first task, so two tasks are awaited.
 */
export async function settle(): Promise<void> {
  await nextTask();
  await nextTask();
}
