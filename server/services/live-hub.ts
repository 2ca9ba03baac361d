import type { ChatStreamRecord } from '@svc/agent-sdk/protocol';

/** A live reader of one conversation (an open stream). */
export interface Subscriber {
  record(record: ChatStreamRecord): void;
  /** Ends the reader (the service is stopping, or the database failed under it). */
  close(): void;
}

/** Reads up to `limit` committed records of a conversation after a cursor (a row id), oldest first. */
export type ReadRecords = (conversationId: string, after: number, limit: number) => Promise<ChatStreamRecord[]>;

/** Records read per database query while a conversation's readers catch up. */
const PAGE = 200;

interface Reader {
  subscriber: Subscriber;
  /** The row id of the last record it was given; undefined until its starting point is known. */
  cursor: number | undefined;
}

interface Conversation {
  readers: Set<Reader>;
  /** A read is under way; `again` asks for one more once it is done. */
  reading: boolean;
  again: boolean;
}

const rowIdOf = (record: ChatStreamRecord) => Number(record.id.slice(1));

/**
 * Hands each open stream of a conversation the records committed to it, each once and in order. A wake-up
 * (a commit on this instance, a notification from another) makes it read the table after the cursors of
 * the conversation's readers: records always come from the database, so a missed or repeated wake-up
 * loses or doubles nothing, and each reader resumes exactly where its cursor stands. Only record-log.ts uses it.
 */
export class LiveHub {
  private readonly byConversation = new Map<string, Conversation>();

  /** `onError` hears of a reader that failed on a record (that reader is closed, the others still get it). */
  constructor(
    private readonly read: ReadRecords,
    private readonly onError: (err: unknown) => void,
  ) {}

  /**
   * Adds a reader after the cursor `after` (a row id); `start` gives it later when it must be read first.
   * Returns the unsubscribe function.
   */
  subscribe(conversationId: string, after: number | Promise<number>, subscriber: Subscriber): () => void {
    let conversation = this.byConversation.get(conversationId);
    if (!conversation) {
      conversation = { readers: new Set(), reading: false, again: false };
      this.byConversation.set(conversationId, conversation);
    }
    const reader: Reader = { subscriber, cursor: typeof after === 'number' ? after : undefined };
    conversation.readers.add(reader);
    if (reader.cursor !== undefined) this.wake(conversationId);
    else {
      void Promise.resolve(after).then(
        (cursor) => {
          reader.cursor = cursor;
          this.wake(conversationId);
        },
        (err) => this.fail(conversationId, reader, err),
      );
    }
    const readers = conversation.readers;
    return () => {
      readers.delete(reader);
      if (readers.size === 0 && this.byConversation.get(conversationId)?.readers === readers) {
        this.byConversation.delete(conversationId);
      }
    };
  }

  /** Something was committed to the conversation: its readers read on. */
  wake(conversationId: string): void {
    const conversation = this.byConversation.get(conversationId);
    if (!conversation) return;
    if (conversation.reading) {
      conversation.again = true;
      return;
    }
    conversation.reading = true;
    void this.catchUp(conversationId, conversation).finally(() => {
      conversation.reading = false;
    });
  }

  /** Every conversation's readers read on (wake-ups may have been lost). */
  wakeAll(): void {
    for (const conversationId of this.byConversation.keys()) this.wake(conversationId);
  }

  private async catchUp(conversationId: string, conversation: Conversation): Promise<void> {
    do {
      conversation.again = false;
      const cursors = [...conversation.readers].flatMap((r) => (r.cursor === undefined ? [] : [r.cursor]));
      if (cursors.length === 0) return;
      let records: ChatStreamRecord[];
      try {
        records = await this.read(conversationId, Math.min(...cursors), PAGE);
      } catch (err) {
        for (const reader of [...conversation.readers]) this.fail(conversationId, reader, err);
        return;
      }
      for (const record of records) {
        const id = rowIdOf(record);
        for (const reader of [...conversation.readers]) {
          if (reader.cursor === undefined || reader.cursor >= id) continue;
          reader.cursor = id;
          try {
            reader.subscriber.record(record);
          } catch (err) {
            this.fail(conversationId, reader, err);
          }
        }
      }
      if (records.length === PAGE) conversation.again = true;
    } while (conversation.again);
  }

  /** A reader that cannot go on is told and dropped; the others go on. */
  private fail(conversationId: string, reader: Reader, err: unknown): void {
    this.onError(err);
    this.byConversation.get(conversationId)?.readers.delete(reader);
    reader.subscriber.close();
  }

  /** Number of open readers of a conversation. */
  readers(conversationId: string): number {
    return this.byConversation.get(conversationId)?.readers.size ?? 0;
  }

  closeAll(): void {
    const all = [...this.byConversation.values()].flatMap((c) => [...c.readers]);
    this.byConversation.clear();
    for (const reader of all) reader.subscriber.close();
  }
}
