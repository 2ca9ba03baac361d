import type {
  HistoryResult,
  InterruptResult,
  TrainingSendRequest,
  TrainingSendResult,
} from '../protocol/conversation-types.js';
import type { ChatStreamRecord } from '../protocol/record-types.js';
import { linkSignal } from './abort.js';
import type { RequestOptions, SvcClientConfig } from './config.js';
import { SvcSdkError } from './errors.js';
import { type HttpClient, httpOf, path } from './http.js';
import { type IdempotencyOptions, sendCall } from './idempotency.js';
import { type RecordStreamOptions, readTurn, streamRecords, type TurnReadOptions } from './record-stream.js';

export interface TrainingStreamOptions extends RecordStreamOptions {
  /** Replay the last N turns before going live. */
  turns?: number;
}

/**
 * Training mode (spec 4.3): talking to an agent during development, as its workspace's owner or with
 * the workspace key. Each (agent, caller) pair has one training conversation.
 */
export class TrainingChat {
  readonly http: HttpClient;

  constructor(
    http: HttpClient | SvcClientConfig,
    readonly agentId: string,
  ) {
    this.http = httpOf(http);
    if (!agentId) throw new SvcSdkError('training() needs an agent id: pass one, or set agentId in the client config.');
  }

  /** Sends a message to the training conversation (under an `Idempotency-Key`, like `chat.send`); the reply is read from `stream`. */
  async send(message: string | TrainingSendRequest, opts: IdempotencyOptions = {}): Promise<TrainingSendResult> {
    const body = typeof message === 'string' ? { message } : message;
    return this.http.json({ ...sendCall(opts), method: 'POST', path: path`/agents/${this.agentId}/dev/send`, body });
  }

  /** The training record stream, long-lived and reconnecting like `chat.stream`. */
  async *stream(opts: TrainingStreamOptions = {}): AsyncGenerator<ChatStreamRecord, void, undefined> {
    const { turns, ...streamOptions } = opts;
    yield* streamRecords(this.http, path`/agents/${this.agentId}/messages/stream`, {
      ...streamOptions,
      firstQuery: { turns },
    });
  }

  /**
   * Sends, then yields the reply's records through the end of the turn. The send returns no cursor, so
   * the stream is opened at the live tail first and the message is sent once it is open.
   */
  async *runTurn(
    message: string | TrainingSendRequest,
    opts: TurnReadOptions = {},
  ): AsyncGenerator<ChatStreamRecord, void, undefined> {
    const controller = new AbortController();
    const unlink = linkSignal(opts.signal, controller);
    let opened!: () => void;
    const open = new Promise<void>((resolve) => {
      opened = resolve;
    });
    const records = readTurn(
      (signal) => this.stream({ signal, onConnectionChange: (state) => state === 'open' && opened() }),
      { ...opts, signal: controller.signal },
    );
    // The first read opens the connection; it settles only with the first record, after the send.
    const first = records.next();
    first.catch(() => {});
    try {
      await Promise.race([open, first]);
      await this.send(message, { signal: opts.signal });
      for (let next = await first; !next.done; next = await records.next()) {
        // The user's own message is not part of the reply, as with `chat.runTurn`.
        if (next.value.raw.type !== 'user') yield next.value;
      }
    } finally {
      // Aborting ends a read still in flight; only then can the generator be closed.
      controller.abort();
      unlink();
      await records.return();
    }
  }

  /** The training conversation's history, a page before the cursor `before`. */
  async messages(opts: RequestOptions & { before?: string } = {}): Promise<HistoryResult> {
    const { before, ...request } = opts;
    return this.http.json({
      ...request,
      method: 'GET',
      path: path`/agents/${this.agentId}/messages/history`,
      query: { before },
    });
  }

  /** Stops the running training reply. */
  async interrupt(opts: RequestOptions = {}): Promise<InterruptResult> {
    return this.http.json({ ...opts, method: 'POST', path: path`/agents/${this.agentId}/dev/interrupt` });
  }
}
