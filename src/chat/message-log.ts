import { readCardAnswer } from '../protocol/card-answers.js';
import type { MessagePart } from '../protocol/conversation-types.js';
import { extractOperatorMessage } from '../protocol/handoff.js';
import type {
  AssistantDeltaRawEvent,
  AssistantRawEvent,
  ChatStreamRecord,
  ResultRawEvent,
  UserRawEvent,
} from '../protocol/record-types.js';
import { compareRecordIds, extractText } from '../protocol/records.js';
import { CardSlots } from './card-slots.js';
import type { ChatMessage, MessageFields } from './chat-message.js';
import { HandoffTracker } from './handoff-tracker.js';
import { LatestTurn } from './latest-turn.js';
import {
  compareEntries,
  createEntry,
  createMessage,
  type Entry,
  NONE,
  orNone,
  snapshot,
  updated,
} from './message-entry.js';
import { PaymentCards } from './payment-cards.js';
import { readReply } from './reply-content.js';
import { TurnIndex } from './turn-index.js';

/** The user's message as shown before the service has stored it. */
export type LocalMessage = Pick<MessageFields, 'parts' | 'senderName' | 'senderAvatar'> & { text: string };

/** The notice of a failed turn whose `result` carries no readable error. */
export const TURN_FAILED = 'The agent could not finish its reply.';

/** What a turn's `result` says failed: the service's sentence, else {@link TURN_FAILED}; nothing unless it failed. */
export const turnFailure = (raw: ResultRawEvent): string | undefined =>
  raw.subtype === 'error' ? raw.error || TURN_FAILED : undefined;

/**
 * Records → the list of messages a UI renders, and the state of the latest turn. Applying a record is
 * idempotent (an id applied once is ignored) and order-independent: every message sits at the position of
 * the record that created it, links between records (card answers, payment resolutions) are resolved
 * whichever arrives first, and only the newest records move the turn and the agents' statuses, so a page of
 * older history can be applied after the live records.
 */
export class MessageLog {
  readonly #order: Entry[] = [];
  #sorted = true;
  readonly #byId = new Map<string, Entry>();
  /** The unsent messages, oldest first (`#matchLocal` adopts the oldest); apart, so a history page does not scan every message per user record. */
  readonly #locals = new Set<Entry>();
  readonly #applied = new Set<string>();
  #firstId?: string;
  #lastId?: string;
  readonly #turns = new TurnIndex();
  readonly #cards = new CardSlots((entry) => this.#touch(entry));
  readonly #payments = new PaymentCards();
  #localCount = 0;
  #list?: readonly ChatMessage[];
  /** The state of the latest turn (whether it runs, the agents' statuses), moved by the newest records only. */
  readonly turn = new LatestTurn();
  /** Who answers: the agents, nobody yet while a person is asked for, or a person (`operator_…` records). */
  readonly handoff = new HandoffTracker();
  /** Turns a later user record asked again in place of (`raw.replaces`): not shown. */
  readonly #replaced = new Set<string>();

  /** The oldest record applied: the cursor of the next older history page. */
  get firstId(): string | undefined {
    return this.#firstId;
  }

  /** The newest record applied: where a stream resumes. */
  get lastId(): string | undefined {
    return this.#lastId;
  }

  /** The messages in order; the same array until something changes. */
  get messages(): readonly ChatMessage[] {
    if (!this.#list) {
      if (!this.#sorted) this.#order.sort(compareEntries);
      this.#sorted = true;
      const shown = this.#replaced.size
        ? this.#order.filter(({ message }) => !message.turnId || !this.#replaced.has(message.turnId))
        : this.#order;
      this.#list = Object.freeze(shown.map((entry) => snapshot(entry, this.#payments.card)));
    }
    return this.#list;
  }

  /** A reply with this id streams and shows text already: a delta to it only adds text. */
  streamsText(messageId: string): boolean {
    const entry = this.#byId.get(messageId);
    return !!entry?.message.streaming && !!(entry.chunks || entry.message.text);
  }

  /**
   * Applies one record; false when its id was applied before. `localId` names the unsent message this
   * user record stores (from the send's result); without it a user record adopts the oldest unsent message
   * with the same content, so a record that the stream delivers before the send returns is not shown twice.
   */
  apply(record: ChatStreamRecord, localId?: string): boolean {
    if (this.#applied.has(record.id)) {
      const local = this.#local(localId);
      if (local) this.#remove(local);
      return false;
    }
    const newest = this.#lastId === undefined || compareRecordIds(record.id, this.#lastId) > 0;
    this.#markApplied(record.id);
    this.turn.heard(record);
    const raw = record.raw;
    switch (raw.type) {
      case 'user':
        if (newest) this.turn.begin(record.id);
        this.#applyUser(record, raw, localId);
        break;
      case 'agent_status':
        if (newest) this.turn.status(raw.agentId, raw.status);
        break;
      case 'assistant_delta':
        this.#applyDelta(record, raw);
        break;
      case 'assistant':
        this.#applyReply(record, raw);
        break;
      case 'attachment':
        this.#addAgentEntry(record, record.id, raw.agentId, { attachment: raw.file });
        break;
      case 'payment_gate':
        this.#payments.add(
          this.#addAgentEntry(record, record.id, raw.agentId, { payment: this.#payments.card(raw.payment) }),
        );
        break;
      case 'payment_gate_resolution': {
        const card = this.#payments.resolve(record, raw);
        if (card) this.#touch(card);
        break;
      }
      case 'result':
        if (newest) this.turn.end(raw);
        this.#applyResult(record, raw);
        break;
      case 'operator_message':
        this.#applyOperatorMessage(record);
        break;
      default:
        this.handoff.see(record);
    }
    return true;
  }

  /** Shows the user's message at once, last; returns its local id. */
  addLocal(message: LocalMessage): string {
    const n = ++this.#localCount;
    const id = `local-${n}`;
    const entry = createEntry(
      createMessage({
        id,
        role: 'user',
        status: 'sending',
        text: message.text,
        parts: message.parts ?? [],
        senderName: message.senderName,
        senderAvatar: message.senderAvatar,
        timestamp: new Date().toISOString(),
      }),
      '',
      n,
      true,
    );
    this.#locals.add(entry);
    this.#insert(entry);
    return id;
  }

  /**
   * The service stored local message `localId` as record `recordId` without handing back the record.
   * False when that record is already shown (the local copy is dropped).
   */
  confirm(localId: string, recordId: string): boolean {
    const entry = this.#local(localId);
    if (!entry) return false;
    if (this.#applied.has(recordId)) {
      this.#remove(entry);
      return false;
    }
    this.#markApplied(recordId);
    this.#byId.delete(localId);
    this.#locals.delete(entry);
    Object.assign(entry, { at: recordId, n: 0, local: false });
    this.#update(entry, { id: recordId, status: 'sent' });
    this.#sorted = false;
    return true;
  }

  /** Sent, waiting for the stream to deliver the stored record. */
  markSent(localId: string): void {
    const entry = this.#local(localId);
    if (entry) this.#update(entry, { status: 'sent' });
  }

  /**
   * The message stays where it is now, after the newest record, while later records go below it. False
   * when the message is no longer local: the stream showed it as stored after all.
   */
  markFailed(localId: string, error: string): boolean {
    return this.#moveLocal(localId, { status: 'failed', error }, this.#lastId ?? '');
  }

  /** A failed message is sent again: it goes last again. False unless it had failed. */
  markRetrying(localId: string): boolean {
    return (
      this.#local(localId)?.message.status === 'failed' &&
      this.#moveLocal(localId, { status: 'sending', error: undefined })
    );
  }

  /** What the agents replied in the turn `record` (its `result`) belongs to. */
  turnText(record: ChatStreamRecord): string {
    return this.#turns
      .replies(record)
      .sort(compareEntries)
      .map((entry) => snapshot(entry, this.#payments.card).text)
      .filter(Boolean)
      .join('\n\n');
  }

  #applyUser(record: ChatStreamRecord, raw: UserRawEvent, localId: string | undefined): void {
    this.#turns.addUser(record);
    if (raw.replaces && !this.#replaced.has(raw.replaces)) {
      // Regenerated or edited: the turn it replaces is left out, whether it was applied before or comes later.
      this.#replaced.add(raw.replaces);
      this.#list = undefined;
    }
    if (raw.toolAction) {
      // A card action: not a message of its own, it answers a card.
      const answer = readCardAnswer(raw, record.id);
      if (answer) this.#cards.answer(answer);
      return;
    }
    const text = extractText(record);
    const local = localId !== undefined ? this.#local(localId) : this.#matchLocal(text, raw.parts);
    if (local) this.#remove(local);
    const { turnId, timestamp } = record;
    const { parts = NONE, senderName, senderAvatar } = raw;
    const key = local?.message.key ?? record.id;
    const message = { id: record.id, key, role: 'user', turnId, timestamp, text, parts, status: 'sent' } as const;
    this.#insert(createEntry(createMessage({ ...message, senderName, senderAvatar }), record.id), false);
  }

  #applyDelta(record: ChatStreamRecord, raw: AssistantDeltaRawEvent): void {
    const entry =
      this.#byId.get(raw.messageId) ?? this.#addAgentEntry(record, raw.messageId, raw.agentId, { streaming: true });
    // A late delta must not append to the final text.
    if (!entry.message.streaming) return;
    if (entry.chunks) entry.chunks.push(raw.text);
    else entry.chunks = [raw.text];
    this.#touch(entry);
  }

  #applyReply(record: ChatStreamRecord, raw: AssistantRawEvent): void {
    const content = readReply(record);
    const entry = this.#byId.get(raw.message.id) ?? this.#addAgentEntry(record, raw.message.id, raw.agentId, {});
    entry.chunks = undefined;
    entry.infoCollect = orNone(content.infoCollect.map((request) => ({ request })));
    entry.connectorSetup = orNone(content.connectorSetup.map((request) => ({ request })));
    this.#update(entry, {
      text: content.text,
      blocks: orNone(content.blocks),
      blocksBeforeText: content.blocksBeforeText,
      delegations: orNone(content.delegations),
      suggestions: orNone(content.suggestions),
      streaming: false,
    });
    // The cards' snapshots come from their slots.
    this.#touch(entry);
    this.#cards.cardsChanged(entry);
  }

  #applyResult(record: ChatStreamRecord, raw: ResultRawEvent): void {
    const entries = this.#turns.replies(record);
    for (const entry of entries) {
      if (entry.message.streaming) this.#update(entry, { streaming: false });
    }
    if (raw.subtype === 'success') return;
    // The notice goes on the turn's last reply; a turn that failed before replying gets a system row.
    const target = entries.sort(compareEntries).at(-1) ?? this.#addNotice(record, raw);
    this.#update(target, raw.subtype === 'error' ? { error: turnFailure(raw) } : { interrupted: true });
  }

  /** A person's message: a row of its own, with their name and picture. */
  #applyOperatorMessage(record: ChatStreamRecord): void {
    const said = extractOperatorMessage(record);
    if (!said) return;
    const { operator, text, parts } = said;
    const { turnId, timestamp } = record;
    const fields = { id: record.id, role: 'agent', turnId, timestamp, text, parts: orNone(parts), operator } as const;
    const message = createMessage({ ...fields, senderName: operator.name, senderAvatar: operator.avatarUrl });
    this.#insert(createEntry(message, record.id), false);
  }

  /** The row of a turn that failed or stopped before any reply: by the turn's first agent, as it was heard. */
  #addNotice(record: ChatStreamRecord, raw: ResultRawEvent): Entry {
    const agentId = raw.agentIds?.[0];
    const { turnId, timestamp } = record;
    const senderName = agentId ? this.turn.agentNames[agentId] : undefined;
    const message = createMessage({ id: record.id, role: 'system', turnId, timestamp, agentId, senderName });
    return this.#insert(createEntry(message, record.id), false);
  }

  #addAgentEntry(
    record: ChatStreamRecord,
    id: string,
    agentId: string,
    fields: Partial<Pick<ChatMessage, 'attachment' | 'payment' | 'streaming'>>,
  ): Entry {
    const { agentName: senderName, turnId, timestamp } = record;
    const entry = createEntry(
      createMessage({ id, role: 'agent', agentId, senderName, turnId, timestamp, ...fields }),
      record.id,
    );
    this.#turns.addReply(record, entry);
    return this.#insert(entry);
  }

  #markApplied(recordId: string): void {
    this.#applied.add(recordId);
    if (this.#firstId === undefined || compareRecordIds(recordId, this.#firstId) < 0) this.#firstId = recordId;
    if (this.#lastId === undefined || compareRecordIds(recordId, this.#lastId) > 0) this.#lastId = recordId;
  }

  /** `indexed`: found by id later (replies and their deltas by message id, unsent messages by local id). */
  #insert(entry: Entry, indexed = true): Entry {
    if (indexed) this.#byId.set(entry.message.id, entry);
    const last = this.#order.at(-1);
    if (last && compareEntries(entry, last) < 0) this.#sorted = false;
    this.#order.push(entry);
    this.#list = undefined;
    return entry;
  }

  #remove(entry: Entry): void {
    this.#order.splice(this.#order.indexOf(entry), 1);
    this.#byId.delete(entry.message.id);
    this.#locals.delete(entry);
    this.#list = undefined;
  }

  /** Something the snapshot derives from changed. */
  #touch(entry: Entry): void {
    entry.stale = true;
    this.#list = undefined;
  }

  /** Fields of the message changed: a new snapshot. */
  #update(entry: Entry, fields: Partial<ChatMessage>): void {
    updated(entry, fields);
    this.#list = undefined;
  }

  #local(localId: string | undefined): Entry | undefined {
    const entry = localId === undefined ? undefined : this.#byId.get(localId);
    return entry?.local ? entry : undefined;
  }

  /** `at`: where it stays from now on (a failed message); without it, it goes last again. */
  #moveLocal(localId: string, fields: Partial<ChatMessage>, at?: string): boolean {
    const entry = this.#local(localId);
    if (!entry) return false;
    this.#sorted = false;
    if (at !== undefined) entry.at = at;
    entry.n = ++this.#localCount;
    this.#update(entry, fields);
    return true;
  }

  #matchLocal(text: string, parts: MessagePart[] | undefined): Entry | undefined {
    const key = JSON.stringify(parts ?? []);
    for (const entry of this.#locals) {
      if (entry.message.text === text && JSON.stringify(entry.message.parts) === key) return entry;
    }
    return undefined;
  }
}
