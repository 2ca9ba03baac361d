import type { ChatApi } from '../../src/chat/chat-api.js';
import { HttpClient } from '../../src/client/http.js';
import type { ChatStreamRecord, HistoryResult, InterruptResult, SendResult } from '../../src/protocol/types.js';

/** A zero-delay task boundary (setTimeout would be clamped to 4 ms after a few nested calls). */
function nextTask(): Promise<void> {
  return new Promise((done) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => done();
    channel.port2.postMessage(null);
  });
}

/**
 * A ChatApi with a fixed history whose stream delivers the records handed to `deliver`, `perTask` at a
 * time with a task boundary between groups, as network chunks reach the real client. What it measures is
 * the widget, not the network.
 */
export class FakeChatApi implements ChatApi {
  /** What the panel reads of a real client besides the calls above: the service's address (this page's). */
  readonly http = new HttpClient({ baseUrl: location.origin });
  #stream?: { push(records: ChatStreamRecord[]): void };

  #history: ChatStreamRecord[];

  /** `history`: the page the first `history()` returns; later calls return none. */
  constructor(history: ChatStreamRecord[] = []) {
    this.#history = history;
  }

  async send(): Promise<SendResult> {
    throw new Error('the benchmark sends nothing');
  }

  async history(): Promise<HistoryResult> {
    // Handed over, not kept: a real client's page is garbage once the chat applied it, and the 15,000 records
    // kept here counted in the widget's heap.
    const entries = this.#history;
    this.#history = [];
    return { entries, hasMore: false };
  }

  async interrupt(): Promise<InterruptResult> {
    return { interrupted: false, reason: 'no reply is running' };
  }

  async *stream(_id: string, opts: { signal?: AbortSignal } = {}): AsyncGenerator<ChatStreamRecord> {
    const queue: ChatStreamRecord[][] = [];
    let wake: (() => void) | undefined;
    this.#stream = {
      push(records) {
        queue.push(records);
        wake?.();
      },
    };
    while (!opts.signal?.aborted) {
      const group = queue.shift();
      if (group) yield* group;
      else await new Promise<void>((done) => (wake = done));
    }
  }

  /** Hands `records` to the stream's reader now, as one network read (the stream must be open). */
  push(records: ChatStreamRecord[]): void {
    if (!this.#stream) throw new Error('no stream is open');
    this.#stream.push(records);
  }

  /** Resolves once every record was handed to the stream's reader. */
  async deliver(records: ChatStreamRecord[], perTask: number): Promise<void> {
    while (!this.#stream) await nextTask();
    for (let i = 0; i < records.length; i += perTask) {
      this.#stream.push(records.slice(i, i + perTask));
      await nextTask();
    }
  }
}

export { nextTask };
