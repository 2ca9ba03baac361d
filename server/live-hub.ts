import type { ChatStreamRecord } from '../src/client/types.js';

/** A live reader of one conversation (an open stream). */
export interface Subscriber {
  record(record: ChatStreamRecord): void;
  /** Ends the reader (the service is shutting down). */
  close(): void;
}

/**
 * Fans each committed record out to the open streams of its conversation; only records.ts publishes.
 * In memory: one process.
 */
export class LiveHub {
  private readonly byConversation = new Map<string, Set<Subscriber>>();

  /** `onError` hears of a reader that failed on a record; that reader is closed, the others still get it. */
  constructor(private readonly onError: (err: unknown) => void) {}

  /** Returns the unsubscribe function. */
  subscribe(conversationId: string, subscriber: Subscriber): () => void {
    let set = this.byConversation.get(conversationId);
    if (!set) {
      set = new Set();
      this.byConversation.set(conversationId, set);
    }
    set.add(subscriber);
    return () => {
      set.delete(subscriber);
      if (set.size === 0 && this.byConversation.get(conversationId) === set) this.byConversation.delete(conversationId);
    };
  }

  publish(record: ChatStreamRecord): void {
    const set = record.conversationId ? this.byConversation.get(record.conversationId) : undefined;
    if (!set) return;
    for (const subscriber of [...set]) {
      try {
        subscriber.record(record);
      } catch (err) {
        // A record is published after its transaction committed: a failing reader must not undo the writer.
        this.onError(err);
        subscriber.close();
      }
    }
  }

  /** Number of open readers of a conversation. */
  readers(conversationId: string): number {
    return this.byConversation.get(conversationId)?.size ?? 0;
  }

  closeAll(): void {
    for (const set of [...this.byConversation.values()]) for (const subscriber of [...set]) subscriber.close();
    this.byConversation.clear();
  }
}
