import { compareRecordIds } from '../protocol/records.js';
import type { ChatStreamRecord } from '../protocol/types.js';
import type { Entry } from './message-entry.js';

/**
 * Which turn each record belongs to, and the agent messages of each turn, whatever order the records were
 * applied in (a long history page goes newest slice first): a record without `turnId` belongs to the turn of
 * the latest user record before it.
 */
export class TurnIndex {
  /** The user records by id, each with its turn. */
  readonly #users: { at: string; turn: string }[] = [];
  /** Agent messages of each turn, for turn failures and the text of a finished turn. */
  readonly #replies = new Map<string, Entry[]>();

  /** A user record: the start of its turn. */
  addUser(record: ChatStreamRecord): void {
    this.#users.splice(this.#userIndex(record.id), 0, { at: record.id, turn: record.turnId ?? record.id });
  }

  /** An agent message of the turn `record` belongs to. */
  addReply(record: ChatStreamRecord, entry: Entry): void {
    const turn = this.turnOf(record);
    const entries = this.#replies.get(turn);
    if (entries) entries.push(entry);
    else this.#replies.set(turn, [entry]);
  }

  /** The agent messages of the turn `record` belongs to, in the order they were applied. */
  replies(record: ChatStreamRecord): Entry[] {
    return this.#replies.get(this.turnOf(record)) ?? [];
  }

  turnOf(record: ChatStreamRecord): string {
    return record.turnId ?? this.#users[this.#userIndex(record.id) - 1]?.turn ?? '';
  }

  /** How many user records come before record `id` (a binary search: history arrives in thousands). */
  #userIndex(id: string): number {
    let low = 0;
    let high = this.#users.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (compareRecordIds(this.#users[middle]!.at, id) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
