import type { ChatStreamRecord } from '../src/client/types.js';
import { errorText } from './errors.js';
import { LiveHub, type Subscriber } from './live-hub.js';
import { type Db, immediate } from './store/db.js';
import { cursorOf, insertRecord, lastRecordId, type NewRecord, recordsAfter } from './store/records.js';

/** Appends one record inside a `RecordLog.write` transaction and returns it as stored. */
export type AppendRecord = (conversationId: string, record: NewRecord) => ChatStreamRecord;

/**
 * The one way a record enters a conversation, and the one way to read records live. A record is stored
 * in a transaction and published to the conversation's open streams only once that transaction has
 * committed, so a reader never sees a record that a rollback undid, nor misses one that was stored.
 */
export class RecordLog {
  private readonly hub: LiveHub;

  /** `logError` hears of a stream that failed on a record it was sent (that stream is closed). */
  constructor(
    private readonly db: Db,
    logError: (line: string) => void,
  ) {
    this.hub = new LiveHub((err) => logError(`a record stream failed: ${errorText(err)}`));
  }

  /**
   * Runs `write` in one `BEGIN IMMEDIATE` transaction, with `append` to store records beside whatever
   * else it changes (a turn, a payment order); publishes every appended record once committed.
   */
  write<T>(write: (append: AppendRecord) => T): T {
    const appended: ChatStreamRecord[] = [];
    const result = immediate(this.db, () =>
      write((conversationId, record) => {
        const stored = insertRecord(this.db, conversationId, record);
        appended.push(stored);
        return stored;
      }),
    );
    for (const record of appended) this.hub.publish(record);
    return result;
  }

  /** Stores and publishes one record. */
  append(conversationId: string, record: NewRecord): ChatStreamRecord {
    return this.write((append) => append(conversationId, record));
  }

  /**
   * Hands `reader` every record after the cursor `after` (a rowid; undefined: only new ones), then every
   * new record as it is published, each once and in order. It subscribes before reading the backlog and
   * drops live records the backlog already held, so there is no gap and no duplicate. Returns the
   * unsubscribe function.
   */
  follow(conversationId: string, after: number | undefined, reader: Subscriber): () => void {
    let replaying = true;
    const held: ChatStreamRecord[] = [];
    let lastSent = '';
    const send = (record: ChatStreamRecord) => {
      // Ids are fixed-width, so comparing them as strings compares them as numbers.
      if (record.id <= lastSent) return;
      lastSent = record.id;
      reader.record(record);
    };
    const unsubscribe = this.hub.subscribe(conversationId, {
      record: (record) => (replaying ? held.push(record) : send(record)),
      close: () => reader.close(),
    });
    lastSent = cursorOf(after ?? lastRecordId(this.db, conversationId));
    if (after !== undefined) for (const record of recordsAfter(this.db, conversationId, after)) send(record);
    replaying = false;
    for (const record of held.splice(0)) send(record);
    return unsubscribe;
  }

  /** Number of open readers of a conversation. */
  readers(conversationId: string): number {
    return this.hub.readers(conversationId);
  }

  /** Ends every reader (the service is stopping). */
  closeAll(): void {
    this.hub.closeAll();
  }
}
