import type { ConnectionState } from '../client/record-stream.js';
import { compareRecordIds } from '../protocol/records.js';
import type { ChatState } from './chat-state.js';
import { readError } from './chat-state.js';
import { afterTask } from './schedule.js';

/** Records of a history page applied per task: about 10 ms on a slow phone. */
const HISTORY_SLICE = 500;

/**
 * Reads the conversation shown from the service: its latest page of history, then its live records from the
 * stream (opened again after a send when it had ended), and older pages on demand. One per conversation shown.
 */
export class ConversationReader {
  #hasMore = false;
  #loading = false;
  /** The latest page is being read: the stream opens after it. */
  #loadingLatest = false;
  /** The signal of the stream being read. */
  #stream?: AbortSignal;

  readonly #state: ChatState;
  readonly #historyTurns: number | undefined;

  /** `historyTurns`: turns per page (the service's default is 10). */
  constructor(state: ChatState, historyTurns?: number) {
    this.#state = state;
    this.#historyTurns = historyTurns;
  }

  get hasMore(): boolean {
    return this.#hasMore;
  }

  get loading(): boolean {
    return this.#loading;
  }

  /** The conversation shown was just cleared: reads its latest page, then its live records. */
  latest(): Promise<void> {
    this.#loadingLatest = true;
    return this.#page(undefined);
  }

  /** Prepends the page of history before the oldest record shown, while `hasMore`. */
  async older(): Promise<void> {
    const before = this.#state.log.firstId;
    if (!this.#state.conversationId || !this.#hasMore || this.#loading || !before) return;
    await this.#page(before);
  }

  async #page(before: string | undefined): Promise<void> {
    const state = this.#state;
    const conversationId = state.conversationId!;
    const { signal } = state;
    this.#loading = true;
    state.changed();
    try {
      const page = await state.api.history(conversationId, {
        before,
        includeThinking: true,
        ...(this.#historyTurns ? { turns: this.#historyTurns } : {}),
        signal,
      });
      if (signal.aborted) return;
      this.#hasMore = page.hasMore;
      const records = [...page.entries].sort((a, b) => compareRecordIds(a.id, b.id));
      // A long page in slices, a task each, newest first (the log is order-independent): the end of the
      // conversation shows at once and no task blocks the page for the whole history. The first slice too
      // waits for a task: the page may have come in the task that mounts the chat.
      const long = records.length > HISTORY_SLICE;
      for (let end = records.length; end > 0; end -= HISTORY_SLICE) {
        if (long) {
          await new Promise<void>((next) => afterTask(next));
          if (signal.aborted) return;
        }
        state.apply(records.slice(Math.max(0, end - HISTORY_SLICE), end), false);
      }
      // Who holds it now, also when the record that said so is on an older page.
      if (page.handoff && state.log.handoff.adopt(page.handoff)) state.changed();
      if (before === undefined) {
        this.#loadingLatest = false;
        // An open turn is replayed from its start: history leaves out the deltas streamed so far.
        void this.live(state.log.turn.open ? state.log.turn.start : undefined);
      }
    } catch (err) {
      if (signal.aborted) return;
      // A conversation that is gone (or never was this user's) is forgotten: the next message starts anew.
      if (before === undefined && readError(err).status === 404) state.adopt(null);
      state.fail(err);
    } finally {
      if (!signal.aborted) {
        this.#loading = false;
        this.#loadingLatest = false;
        state.changed();
      }
    }
  }

  /** Reads the live records of the conversation unless already reading; resumes after `cursor` or the newest record. */
  async live(cursor?: string): Promise<void> {
    const state = this.#state;
    const { conversationId } = state;
    if (this.#stream || this.#loadingLatest || !conversationId || state.disposed) return;
    const { signal } = state;
    this.#stream = signal;
    // Aborted, the stream is another conversation's (the state shows a new one): nothing of it is applied.
    const reading = () => this.#stream === signal && !signal.aborted;
    state.setConnection('connecting');
    const onConnectionChange = (connection: ConnectionState) => {
      if (reading()) state.setConnection(connection);
    };
    try {
      const lastEventId = cursor ?? state.log.lastId;
      const records = state.api.stream(conversationId, { lastEventId, signal, onConnectionChange });
      for await (const record of records) {
        if (!reading()) break;
        // A record proves the connection is open, whatever the client reported.
        state.setConnection('open');
        state.apply([record], true);
      }
    } catch (err) {
      if (reading()) state.fail(err);
    } finally {
      if (reading()) state.setConnection('idle');
      if (this.#stream === signal) this.#stream = undefined;
    }
  }
}
