import { setImmediate } from 'node:timers/promises';
import type { ChatStreamRecord } from '@svc/agent-sdk/protocol';

/** A live reader of one conversation (an open stream). */
export interface Subscriber {
  /**
   * Takes one record; false when it can take no more for now (its socket is full): it is handed nothing
   * until its follower's `resume`, and the table is not read for it meanwhile.
   */
  record(record: ChatStreamRecord): boolean;
  /** Ends the reader (the service is stopping, or the database failed under it). */
  close(): void;
}

/** A subscription: `stop` ends it, `resume` hands a reader that was full the records after its cursor again. */
export interface Follower {
  stop(): void;
  resume(): void;
}

/** What one read of the table gave: records in order, and whether more were left for the next read. */
export interface RecordPage {
  records: ChatStreamRecord[];
  more: boolean;
}

/**
 * Reads the committed records of a conversation after a cursor (a row id), oldest first, a page at a time;
 * a record `held` gives is taken from there rather than read again (no `held`: nothing after the cursor is).
 */
export type ReadRecords = (
  conversationId: string,
  after: number,
  page: PageSize,
  held?: (rowId: number) => ChatStreamRecord | undefined,
) => Promise<RecordPage>;

export interface PageSize {
  records: number;
  /** What the page's records take as JSON, at most (beyond its first record). */
  bytes: number;
}

/**
 * One read of the table while a conversation's readers catch up: 200 records, or fewer that take 256 KB. The
 * bytes bound what a read holds in memory, and what a slow reader that takes a little at a time makes the
 * service read for it.
 */
const PAGE: PageSize = { records: 200, bytes: 256 * 1024 };

interface Reader {
  subscriber: Subscriber;
  /** The row id of the last record it was given; undefined until its starting point is known. */
  cursor: number | undefined;
  /** It said it was full: nothing is read or handed to it until it resumes. */
  full: boolean;
}

interface Conversation {
  readers: Set<Reader>;
  /**
   * The records read for its readers, by row id, while something holds them (a stream writing one): readers
   * that reach a record at different moments share one read of it (a record may take 4 MB).
   */
  read: Map<number, WeakRef<ChatStreamRecord>>;
  /** A read is under way; `again` asks for one more once it is done. */
  reading: boolean;
  again: boolean;
}

const rowIdOf = (record: ChatStreamRecord) => Number(record.id.slice(1));

/** Whether a record after the row id `after` was read (at every page read: no copy of the ids is made). */
function holdsAfter(read: Map<number, unknown>, after: number): boolean {
  for (const id of read.keys()) if (id > after) return true;
  return false;
}

/** Forgets a record read once nothing holds it. */
const forgetRead = new FinalizationRegistry<{ read: Map<number, WeakRef<ChatStreamRecord>>; id: number }>(
  ({ read, id }) => {
    if (!read.get(id)?.deref()) read.delete(id);
  },
);

/**
 * Hands each open stream of a conversation the records committed to it, each once and in order. A wake-up
 * (a commit on this instance, a notification from another) makes it read the table after the cursors of
 * the conversation's readers: records always come from the database, so a missed or repeated wake-up
 * loses or doubles nothing, and each reader resumes exactly where its cursor stands. A reader that is full
 * waits at its cursor, holding nothing, until it resumes. Only record-log.ts uses it.
 */
export class LiveHub {
  private readonly byConversation = new Map<string, Conversation>();

  /** `onError` hears of a reader that failed on a record (that reader is closed, the others still get it). */
  constructor(
    private readonly read: ReadRecords,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Adds a reader after the cursor `after` (a row id), or after the one `after` resolves to. */
  subscribe(conversationId: string, after: number | Promise<number>, subscriber: Subscriber): Follower {
    let conversation = this.byConversation.get(conversationId);
    if (!conversation) {
      conversation = { readers: new Set(), read: new Map(), reading: false, again: false };
      this.byConversation.set(conversationId, conversation);
    }
    const reader: Reader = { subscriber, cursor: typeof after === 'number' ? after : undefined, full: false };
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
    return {
      stop: () => {
        readers.delete(reader);
        if (readers.size === 0 && this.byConversation.get(conversationId)?.readers === readers) {
          this.byConversation.delete(conversationId);
        }
      },
      resume: () => {
        if (!reader.full || !readers.has(reader)) return;
        reader.full = false;
        this.wake(conversationId);
      },
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
    void this.catchUp(conversationId, conversation);
  }

  /**
   * Records this instance committed to the conversation, in order, after the record `previous` (a row id, the
   * conversation's newest before them): a reader whose cursor stands at `previous` is handed them without a
   * read of the table, since within a conversation ids grow in commit order and nothing can come between. A
   * reader behind reads as at a wake-up (taking these from memory); while a read is under way one more follows.
   */
  published(conversationId: string, previous: number, records: ChatStreamRecord[]): void {
    const conversation = this.byConversation.get(conversationId);
    if (!conversation || records.length === 0) return;
    if (conversation.reading) {
      conversation.again = true;
      return;
    }
    for (const record of records) this.keep(conversation, record);
    const newest = rowIdOf(records.at(-1)!);
    let behind = false;
    for (const reader of [...conversation.readers]) {
      if (reader.cursor === undefined || reader.full) continue;
      if (reader.cursor !== previous) {
        behind ||= reader.cursor < newest;
        continue;
      }
      for (const record of records) {
        if (reader.full || !conversation.readers.has(reader)) break;
        this.hand(conversationId, reader, record);
      }
    }
    if (behind) this.wake(conversationId);
  }

  /** Every conversation's readers read on (wake-ups may have been lost). */
  wakeAll(): void {
    for (const conversationId of this.byConversation.keys()) this.wake(conversationId);
  }

  /** Reads until no reader that takes records is behind; `reading` is cleared as it returns (no wake-up is lost). */
  private async catchUp(conversationId: string, conversation: Conversation): Promise<void> {
    try {
      await this.readPages(conversationId, conversation);
    } finally {
      conversation.reading = false;
    }
  }

  private async readPages(conversationId: string, conversation: Conversation): Promise<void> {
    for (let first = true; first || conversation.again; first = false) {
      // A turn of the event loop between reads (not before the first: a new record goes out at once): SQLite
      // answers at once, and a conversation with many readers taking a little at a time would otherwise keep
      // every other request waiting.
      if (!first) await setImmediate();
      conversation.again = false;
      const cursors = [...conversation.readers].flatMap((r) => (r.cursor === undefined || r.full ? [] : [r.cursor]));
      if (cursors.length === 0) return;
      let page: RecordPage;
      try {
        const after = Math.min(...cursors);
        // Records after the cursor are held only when a reader ahead read them: the common case (readers
        // together at the end) then reads its page in one query.
        const held = holdsAfter(conversation.read, after)
          ? (id: number) => conversation.read.get(id)?.deref()
          : undefined;
        page = await this.read(conversationId, after, PAGE, held);
      } catch (err) {
        for (const reader of [...conversation.readers]) this.fail(conversationId, reader, err);
        return;
      }
      for (const record of page.records) {
        const id = rowIdOf(record);
        this.keep(conversation, record);
        for (const reader of [...conversation.readers]) {
          if (reader.cursor === undefined || reader.full || reader.cursor >= id) continue;
          this.hand(conversationId, reader, record);
        }
      }
      if (page.more) conversation.again = true;
    }
  }

  /** Keeps a record read or published while something holds it, for the readers that reach it later. */
  private keep(conversation: Conversation, record: ChatStreamRecord): void {
    const id = rowIdOf(record);
    if (conversation.read.get(id)?.deref()) return;
    conversation.read.set(id, new WeakRef(record));
    forgetRead.register(record, { read: conversation.read, id });
  }

  /** Hands a reader its next record. */
  private hand(conversationId: string, reader: Reader, record: ChatStreamRecord): void {
    reader.cursor = rowIdOf(record);
    try {
      reader.full = !reader.subscriber.record(record);
    } catch (err) {
      this.fail(conversationId, reader, err);
    }
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

  /** The conversations with readers now. */
  conversations(): string[] {
    return [...this.byConversation.keys()];
  }

  /** Ends every reader of a conversation (it was deleted). */
  end(conversationId: string): void {
    const conversation = this.byConversation.get(conversationId);
    this.byConversation.delete(conversationId);
    for (const reader of conversation?.readers ?? []) reader.subscriber.close();
  }

  closeAll(): void {
    const all = [...this.byConversation.values()].flatMap((c) => [...c.readers]);
    this.byConversation.clear();
    for (const reader of all) reader.subscriber.close();
  }
}
