import type { ConnectionState } from '../client/record-stream.js';
import type { ChatStreamRecord, ResultRawEvent } from '../protocol/record-types.js';
import type { ChatApi } from './chat-api.js';
import type { ChatStoreEvents } from './chat-store.js';
import { Emitter } from './emitter.js';
import { MessageLog, turnFailure } from './message-log.js';
import { PageToolCalls } from './page-tool-calls.js';
import { afterTask } from './schedule.js';

/**
 * The conversation a `ChatStore` shows, and the records applied to it: its message log, its id, the stream's
 * connection, the last error, and the notifications of every change. The store's parts (sending, the outbox,
 * reading the conversation, feedback) read and change it; only `apply` turns records into state.
 */
export class ChatState {
  readonly events = new Emitter<ChatStoreEvents>();
  readonly #listeners = new Set<() => void>();
  conversationId: string | null = null;
  log = new MessageLog();
  /** The calls of the page's tools in the conversation, and their answers. */
  pageTools = new PageToolCalls();
  connection: ConnectionState = 'idle';
  /** The last error, readable. */
  error: string | null = null;
  /** Grows with every change. */
  version = 0;
  /** Every change since the last notification only added streamed text to replies that show text already. */
  streamedOnly = false;
  disposed = false;
  #notifying = false;
  /**
   * Aborted when another conversation is shown and by `dispose`: every request and the stream of the
   * conversation shown before, whose results are then dropped.
   */
  #scope = new AbortController();

  constructor(readonly api: ChatApi) {}

  /** The signal of every request about the conversation shown. */
  get signal(): AbortSignal {
    return this.#scope.signal;
  }

  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /**
   * Applies records (the log moves the turn and the agents' statuses); a live one that ends the turn is told.
   * `localId`: the unsent message the records' user record stores.
   */
  apply(records: readonly ChatStreamRecord[], live: boolean, localId?: string): void {
    let streamed = true;
    for (const record of records) {
      const { raw } = record;
      streamed &&= raw.type === 'assistant_delta' && this.log.streamsText(raw.messageId);
      const applied = this.log.apply(record, localId);
      if (applied) this.pageTools.apply(record);
      // A `result` ends the turn shown only as the newest record; an older one is history.
      if (applied && live && raw.type === 'result' && this.log.lastId === record.id) {
        this.#turnComplete(record, raw);
      }
    }
    this.changed(streamed);
  }

  #turnComplete(record: ChatStreamRecord, raw: ResultRawEvent): void {
    const error = turnFailure(raw);
    if (error) {
      this.error = error;
      this.events.emit('error', { message: error, cause: raw });
    }
    this.events.emit('turn-complete', {
      // Live records come from a send or the stream, both of a known conversation.
      conversationId: this.conversationId!,
      turnId: record.turnId,
      subtype: raw.subtype,
      text: this.log.turnText(record),
      ...(error ? { error } : {}),
    });
  }

  /** Resolves once no reply runs in the conversation shown, or the chat left it. */
  replyEnded(): Promise<void> {
    const { signal } = this;
    return new Promise((resolve) => {
      const check = () => {
        if (this.log.turn.open && !signal.aborted) return;
        unsubscribe();
        signal.removeEventListener('abort', check);
        resolve();
      };
      const unsubscribe = this.subscribe(check);
      signal.addEventListener('abort', check);
      check();
    });
  }

  /** Shows conversation `conversationId` (`null`: none yet) from scratch: what was asked about the one before is dropped. */
  clear(conversationId: string | null): void {
    this.#abort();
    this.log = new MessageLog();
    this.pageTools = new PageToolCalls();
    this.connection = 'idle';
    this.error = null;
    this.adopt(conversationId);
    this.changed();
  }

  /** Aborts every request and the stream; the state stays readable but changes no more. */
  dispose(): void {
    this.disposed = true;
    this.#abort();
    this.#listeners.clear();
    this.events.clear();
  }

  #abort(): void {
    this.#scope.abort();
    this.#scope = new AbortController();
  }

  adopt(conversationId: string | null): void {
    if (this.conversationId === conversationId) return;
    this.conversationId = conversationId;
    this.events.emit('conversation-change', { conversationId });
  }

  setConnection(state: ConnectionState): void {
    if (this.connection === state) return;
    this.connection = state;
    this.changed();
  }

  fail(err: unknown): void {
    const error = readError(err);
    this.error = error.message;
    this.events.emit('error', { ...error, cause: err });
    this.changed();
  }

  /** `streamed`: the change only added streamed text (`streamedOnly`, for the changes of one notification). */
  changed(streamed = false): void {
    this.version++;
    this.streamedOnly = streamed && (!this.#notifying || this.streamedOnly);
    if (this.#notifying || this.disposed) return;
    this.#notifying = true;
    afterTask(() => {
      this.#notifying = false;
      if (this.disposed) return;
      for (const listener of [...this.#listeners]) listener();
    });
  }
}

/** The client's errors carry `message` (the service's `detail`) and `status`. */
export function readError(err: unknown): { message: string; status?: number } {
  const { message, status } = (typeof err === 'object' && err !== null ? err : {}) as {
    message?: unknown;
    status?: unknown;
  };
  return {
    message: typeof message === 'string' && message ? message : String(err),
    ...(typeof status === 'number' ? { status } : {}),
  };
}
