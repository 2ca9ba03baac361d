import type { ChatStreamRecord } from '@svc/agent-sdk/protocol';
import { errorText } from '../http/errors.js';
import { deleteConversation, existingConversations } from '../store/conversation-rows.js';
import type { Db } from '../store/db.js';
import { insertRecord, lastRecordId, type NewRecord, recordsAfter } from '../store/record-rows.js';
import { type Follower, LiveHub, type Subscriber } from './live-hub.js';

/** Appends one record inside a `RecordLog.write` transaction and returns it as stored. */
export type AppendRecord = (conversationId: string, record: NewRecord) => Promise<ChatStreamRecord>;

/** The channel on which every instance hears which conversation gained records (the payload: its id). */
const CHANNEL = 'svc_records';
/** The channel on which every instance hears which conversation was deleted (the payload: its id). */
export const DELETED = 'svc_conversation_deleted';

/**
 * The one way a record enters a conversation, and the one way to read records live. A record is stored in
 * a transaction; once that has committed, every instance is told (Db.notify) and the readers of the
 * conversation read on from the table (LiveHub). So a reader never sees a record that a rollback undid,
 * nor misses one that was stored, whichever instance stored it.
 */
export class RecordLog {
  private readonly hub: LiveHub;
  private stopListening: (() => Promise<void>) | undefined;

  /**
   * `logError` hears of a stream that failed on a record it was sent (that stream is closed); `written` of
   * the records each write stored, once committed (the metrics count them).
   */
  constructor(
    private readonly db: Db,
    logError: (line: string) => void,
    private readonly written: (count: number) => void = () => {},
  ) {
    this.hub = new LiveHub(
      (conversationId, after, page, held) => recordsAfter(db, conversationId, after, page, held),
      (err) => logError(`a record stream failed: ${errorText(err)}`),
    );
  }

  /**
   * Starts hearing the records other instances (and this one) commit. Notifications sent while this instance
   * was not listening are lost, so once it is back every reader reads on from the table.
   */
  async listen(): Promise<void> {
    const stops = [
      await this.db.listen(CHANNEL, (conversationId) => this.hub.wake(conversationId)),
      await this.db.listen(DELETED, (conversationId) => this.hub.end(conversationId)),
    ];
    this.stopListening = async () => {
      for (const stop of stops) await stop();
    };
    this.db.liveness.watch({
      back: () => {
        this.hub.wakeAll();
        void this.endDeleted();
      },
    });
  }

  /**
   * Deletes a conversation with everything it owns (store/conversation-rows.ts) in one transaction, and tells
   * every instance once committed (DELETED): its readers end, and the instance running its turn stops it
   * (turns/registry.ts). `before` runs in the transaction before the rows go (a handoff's wait ends with it).
   * Resolves to the uploads whose files go too; undefined when there was no such conversation.
   */
  deleteConversation(
    conversationId: string,
    before?: (tx: Db) => Promise<void>,
  ): Promise<{ uploads: string[] } | undefined> {
    return this.db.transaction(async (tx) => {
      await before?.(tx);
      const deleted = await deleteConversation(tx, conversationId);
      if (deleted) await tx.notify(DELETED, conversationId);
      return deleted;
    });
  }

  /** Ends the readers of conversations deleted while this instance heard nothing (its connection was down). */
  private async endDeleted(): Promise<void> {
    const followed = this.hub.conversations();
    const existing = await existingConversations(this.db, followed).catch(() => undefined);
    for (const conversationId of followed) if (existing && !existing.has(conversationId)) this.hub.end(conversationId);
  }

  /**
   * Runs `write` in one write transaction, with `append` to store records beside whatever else it changes
   * (a turn, a payment order) through `tx`; the readers of every conversation it appended to hear of them
   * once committed.
   */
  async write<T>(write: (append: AppendRecord, tx: Db) => Promise<T>): Promise<T> {
    let stored = 0;
    const result = await this.db.transaction(async (tx) => {
      const touched = new Set<string>();
      stored = 0;
      return write(async (conversationId, record) => {
        const inserted = await insertRecord(tx, conversationId, record);
        stored++;
        if (!touched.has(conversationId)) {
          touched.add(conversationId);
          await tx.notify(CHANNEL, conversationId);
        }
        return inserted;
      }, tx);
    });
    if (stored) this.written(stored);
    return result;
  }

  /** Stores and publishes one record. */
  append(conversationId: string, record: NewRecord): Promise<ChatStreamRecord> {
    return this.write((append) => append(conversationId, record));
  }

  /**
   * Hands `reader` every record after the cursor `after` (a row id; undefined: only new ones), then every
   * new record as it is committed, each once and in order, as fast as it takes them (see Subscriber.record).
   */
  follow(conversationId: string, after: number | undefined, reader: Subscriber): Follower {
    return this.hub.subscribe(conversationId, after ?? lastRecordId(this.db, conversationId), reader);
  }

  /** Number of open readers of a conversation on this instance. */
  readers(conversationId: string): number {
    return this.hub.readers(conversationId);
  }

  /** Ends every reader (the service is stopping). */
  async closeAll(): Promise<void> {
    await this.stopListening?.();
    this.hub.closeAll();
  }
}
