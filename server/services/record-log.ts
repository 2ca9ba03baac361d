import type { ChatStreamRecord } from '@svc/agent-sdk/protocol';
import { errorText } from '../http/errors.js';
import { deleteConversation, existingConversations, lockConversation } from '../store/conversation-rows.js';
import type { Db } from '../store/db.js';
import { insertRecords, lastRecordId, type NewRecord, recordsAfter, type StoredRecords } from '../store/record-rows.js';
import { type Follower, LiveHub, type Subscriber } from './live-hub.js';

/** Appends records to a conversation inside a `RecordLog.write` transaction and returns them as stored. */
export type AppendRecords = (conversationId: string, ...records: NewRecord[]) => Promise<ChatStreamRecord[]>;

/** The channel on which every instance hears which conversation gained records (the payload: its id). */
const CHANNEL = 'svc_records';
/** The channel on which every instance hears which conversation was deleted (the payload: its id). */
export const DELETED = 'svc_conversation_deleted';

/**
 * The one way a record enters a conversation, and the one way to read records live. Records are stored by
 * one write (insertRecords: on PostgreSQL one call, the notification to the other instances in it), alone or
 * in a transaction with what changes beside them. Once that has committed, this instance's readers of the
 * conversation are handed the records (LiveHub.published), and the other instances' readers, woken by the
 * notification, read on from the table. So a reader never sees a record that a rollback undid, nor misses one
 * that was stored, whichever instance stored it: within a conversation ids grow in commit order
 * (record-rows.ts), and a reader reads after the last id it was given.
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
      // First, as every writer of the conversation does: a write under way commits before the rows go.
      if (!(await lockConversation(tx, conversationId))) return undefined;
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
   * Runs `write` in one transaction, with `append` to store records beside whatever else it changes (a turn,
   * a payment order) through `tx`; the readers of every conversation it appended to hear of them once
   * committed. What it checks of a conversation before it appends holds only under the conversation's lock
   * (lockConversation), taken before the check.
   */
  async write<T>(write: (append: AppendRecords, tx: Db) => Promise<T>): Promise<T> {
    /** What the transaction stored, by conversation: published once it has committed. */
    const stored = new Map<string, StoredRecords>();
    const result = await this.db.transaction(async (tx) => {
      stored.clear();
      return write(async (conversationId, ...records) => {
        if (!records.length) return [];
        const earlier = stored.get(conversationId);
        if (earlier) {
          const more = await insertRecords(tx, conversationId, records);
          earlier.records.push(...more.records);
          return more.records;
        }
        const first = await tx.notifyBy(CHANNEL, conversationId, (sent) =>
          insertRecords(tx, conversationId, records, sent),
        );
        stored.set(conversationId, { previous: first.previous, records: [...first.records] });
        return first.records;
      }, tx);
    });
    for (const [conversationId, written] of stored) this.publish(conversationId, written);
    return result;
  }

  /** Stores and publishes records of one conversation, in order, as one write (on PostgreSQL one round trip). */
  async append(conversationId: string, ...records: NewRecord[]): Promise<ChatStreamRecord[]> {
    if (!records.length) return [];
    const written = await this.db.notifyBy(CHANNEL, conversationId, (sent) =>
      insertRecords(this.db, conversationId, records, sent),
    );
    this.publish(conversationId, written);
    return written.records;
  }

  /** Hands committed records to this instance's readers, and counts them. */
  private publish(conversationId: string, written: StoredRecords): void {
    this.hub.published(conversationId, written.previous, written.records);
    this.written(written.records.length);
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
