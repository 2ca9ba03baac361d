import { type CardAnswer, readCardAnswer } from '../protocol/card-answers.js';
import { compareRecordIds, extractText } from '../protocol/records.js';
import type {
  AgentStatus,
  AssistantDeltaRawEvent,
  AssistantRawEvent,
  ChatStreamRecord,
  ConnectorSetupRequest,
  InfoCollectPayload,
  MessagePart,
  PaymentGatePayload,
  PaymentGateResolutionRawEvent,
  PaymentStatus,
  ResultRawEvent,
  UserRawEvent,
} from '../protocol/types.js';
import type { ChatMessage, PaymentCard } from './chat-message.js';
import { readReply } from './reply-content.js';

/** The user's message as shown before the service has stored it. */
export interface LocalMessage {
  text: string;
  parts?: MessagePart[];
  senderName?: string;
  senderAvatar?: string;
}

interface CardSlot<Request> {
  request: Request;
  answer?: CardAnswer;
}

/**
 * One message: the snapshot a UI reads, and what places and derives it. Fields a record sets replace the
 * snapshot at once (`#update`); what is derived (streamed text, card answers, a payment's status) marks it
 * `stale`, and it is made again at the next read. A message's fields live in its snapshot only: a history
 * holds thousands of entries.
 */
interface Entry {
  message: ChatMessage;
  /** Position: the id of the record that created the message (a failed message: the newest record then). */
  at: string;
  /** Orders the user's unsent messages (n > 0) among themselves and after the record at `at` (n = 0). */
  n: number;
  /** Shown before the service stored it; reconciled with its record later. */
  local: boolean;
  stale: boolean;
  /** Deltas streamed since the text was last read: appending is O(delta), joined once per read. */
  chunks: string[] | undefined;
  infoCollect: readonly CardSlot<InfoCollectPayload>[];
  connectorSetup: readonly CardSlot<ConnectorSetupRequest>[];
}

/** One empty list for every message without blocks, parts or cards (a history holds thousands of them). */
const NONE: readonly never[] = Object.freeze([]);
const orNone = <T>(list: readonly T[]): readonly T[] => (list.length ? list : NONE);

type MessageFields = Pick<ChatMessage, 'id' | 'role'> & Partial<Omit<ChatMessage, 'id' | 'role'>>;

/** Every field of a snapshot, in one order (one shape for all of them), with its default. */
const BLANK: ChatMessage = {
  id: '',
  key: '',
  role: 'user',
  agentId: undefined,
  turnId: undefined,
  timestamp: undefined,
  senderName: undefined,
  senderAvatar: undefined,
  text: '',
  blocks: NONE,
  blocksBeforeText: 0,
  parts: NONE,
  attachment: undefined,
  payment: undefined,
  infoCollect: NONE,
  connectorSetup: NONE,
  delegations: NONE,
  suggestions: NONE,
  streaming: false,
  status: undefined,
  error: undefined,
  interrupted: false,
};

/** `fields` without `key`: the row is keyed by its first id. */
const createMessage = (fields: MessageFields): ChatMessage => Object.freeze({ ...BLANK, key: fields.id, ...fields });

function createEntry(message: ChatMessage, at: string, n = 0, local = false): Entry {
  return { message, at, n, local, stale: false, chunks: undefined, infoCollect: NONE, connectorSetup: NONE };
}

/** The user's message while being sent stays last, after whatever streams in meanwhile. */
const floats = (entry: Entry) => entry.local && entry.message.status !== 'failed';

function compareEntries(a: Entry, b: Entry): number {
  const floating = Number(floats(a)) - Number(floats(b));
  return floating || compareRecordIds(a.at, b.at) || a.n - b.n;
}

/** The notice of a failed turn whose `result` carries no readable error. */
export const TURN_FAILED = 'The agent could not finish its reply.';

const NO_STATUS: Readonly<Record<string, AgentStatus>> = Object.freeze({});

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
  /** Agent messages of each turn, for turn failures and the text of a finished turn. */
  readonly #turns = new Map<string, Entry[]>();
  /**
   * The user records by id, each with its turn: a record without `turnId` belongs to the latest one before
   * it, whichever order the records were applied in (a long history page goes newest slice first).
   */
  readonly #userTurns: { at: string; turn: string }[] = [];
  readonly #cardEntries = new Set<Entry>();
  readonly #answers: CardAnswer[] = [];
  readonly #gates = new Map<string, Entry>();
  readonly #resolutions = new Map<string, { at: string; status: PaymentStatus }>();
  #localCount = 0;
  #list?: readonly ChatMessage[];
  /** The latest turn runs: its user record was applied and its `result` was not. */
  #turnOpen = false;
  /** The user record that opened the latest turn: a stream resumed after it replays the turn's deltas. */
  #turnStart?: string;
  #agentStatus = NO_STATUS;
  #agentNames: Readonly<Record<string, string>> = Object.freeze({});
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

  /** A turn is open: its user record (or the send that stored it) arrived and its `result` did not. */
  get turnOpen(): boolean {
    return this.#turnOpen;
  }

  /** Where the open turn started: the id of its user record, if known. */
  get turnStart(): string | undefined {
    return this.#turnStart;
  }

  /** The latest status of each agent heard from; every one `idle` once a turn ends. */
  get agentStatus(): Readonly<Record<string, AgentStatus>> {
    return this.#agentStatus;
  }

  /** The display name of each agent heard from, by id (records carry it). */
  get agentNames(): Readonly<Record<string, string>> {
    return this.#agentNames;
  }

  /** The messages in order; the same array until something changes. */
  get messages(): readonly ChatMessage[] {
    if (!this.#list) {
      if (!this.#sorted) this.#order.sort(compareEntries);
      this.#sorted = true;
      const shown = this.#replaced.size
        ? this.#order.filter(({ message }) => !message.turnId || !this.#replaced.has(message.turnId))
        : this.#order;
      this.#list = Object.freeze(shown.map((entry) => this.#current(entry)));
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
    const { agentId, agentName } = record;
    if (agentId && agentName && this.#agentNames[agentId] !== agentName) {
      this.#agentNames = Object.freeze({ ...this.#agentNames, [agentId]: agentName });
    }
    const raw = record.raw;
    switch (raw.type) {
      case 'user':
        if (newest) this.openTurn(record.id);
        this.#applyUser(record, raw, localId);
        break;
      case 'agent_status':
        if (newest) this.#agentStatus = Object.freeze({ ...this.#agentStatus, [raw.agentId]: raw.status });
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
        this.#gates.set(
          raw.payment.orderId,
          this.#addAgentEntry(record, record.id, raw.agentId, { payment: this.#paymentCard(raw.payment) }),
        );
        break;
      case 'payment_gate_resolution':
        this.#applyResolution(record, raw);
        break;
      case 'result':
        if (newest) this.#endTurn(raw);
        this.#applyResult(record, raw);
        break;
    }
    return true;
  }

  /** A turn started whose user record is not applied yet: the service stored it as record `start`. */
  openTurn(start: string | undefined): void {
    this.#turnOpen = true;
    this.#turnStart = start;
  }

  /** Nothing runs any more, though no `result` said so (the service answered that no reply is running). */
  closeTurn(): void {
    this.#turnOpen = false;
  }

  #endTurn(raw: ResultRawEvent): void {
    this.#turnOpen = false;
    const agents = [...Object.keys(this.#agentStatus), ...(raw.agentIds ?? [])];
    this.#agentStatus = Object.freeze(Object.fromEntries(agents.map((id) => [id, 'idle' as const])));
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
    this.#setLocal(localId, { status: 'sent' });
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
    const entries = (this.#turns.get(this.#turnOf(record)) ?? []).sort(compareEntries);
    return entries
      .map((entry) => this.#current(entry).text)
      .filter(Boolean)
      .join('\n\n');
  }

  #applyUser(record: ChatStreamRecord, raw: UserRawEvent, localId: string | undefined): void {
    const at = this.#userTurnIndex(record.id);
    this.#userTurns.splice(at, 0, { at: record.id, turn: record.turnId ?? record.id });
    if (raw.replaces && !this.#replaced.has(raw.replaces)) {
      // Regenerated or edited: the turn it replaces is left out, whether it was applied before or comes later.
      this.#replaced.add(raw.replaces);
      this.#list = undefined;
    }
    if (raw.toolAction) {
      // A card action: not a message of its own, it answers a card.
      const answer = readCardAnswer(raw, record.id);
      if (answer) {
        this.#answers.push(answer);
        this.#resolveCards();
      }
      return;
    }
    const text = extractText(record);
    const local = localId !== undefined ? this.#local(localId) : this.#matchLocal(text, raw.parts);
    if (local) this.#remove(local);
    this.#insert(
      createEntry(
        createMessage({
          id: record.id,
          key: local?.message.key ?? record.id,
          role: 'user',
          turnId: record.turnId,
          timestamp: record.timestamp,
          text,
          parts: raw.parts ?? NONE,
          senderName: raw.senderName,
          senderAvatar: raw.senderAvatar,
          status: 'sent',
        }),
        record.id,
      ),
      false,
    );
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
    const hadCards = this.#cardEntries.delete(entry);
    const hasCards = entry.infoCollect.length > 0 || entry.connectorSetup.length > 0;
    if (hasCards) this.#cardEntries.add(entry);
    if (hadCards || hasCards) this.#resolveCards();
  }

  #applyResolution(record: ChatStreamRecord, raw: PaymentGateResolutionRawEvent): void {
    const known = this.#resolutions.get(raw.orderId);
    if (known && compareRecordIds(known.at, record.id) > 0) return;
    this.#resolutions.set(raw.orderId, { at: record.id, status: raw.status });
    const gate = this.#gates.get(raw.orderId);
    if (gate) this.#touch(gate);
  }

  #applyResult(record: ChatStreamRecord, raw: ResultRawEvent): void {
    const entries = this.#turns.get(this.#turnOf(record)) ?? [];
    for (const entry of entries) {
      if (entry.message.streaming) this.#update(entry, { streaming: false });
    }
    if (raw.subtype === 'success') return;
    // The notice goes on the turn's last reply; a turn that failed before replying gets a system row.
    const target =
      entries.sort(compareEntries).at(-1) ??
      this.#insert(
        createEntry(
          createMessage({
            id: record.id,
            role: 'system',
            turnId: record.turnId,
            timestamp: record.timestamp,
            // Whose reply failed: the turn's first agent, by the name it was heard with.
            agentId: raw.agentIds?.[0],
            senderName: raw.agentIds?.[0] ? this.#agentNames[raw.agentIds[0]] : undefined,
          }),
          record.id,
        ),
        false,
      );
    this.#update(target, raw.subtype === 'error' ? { error: raw.error || TURN_FAILED } : { interrupted: true });
  }

  #addAgentEntry(
    record: ChatStreamRecord,
    id: string,
    agentId: string,
    fields: Partial<Pick<ChatMessage, 'attachment' | 'payment' | 'streaming'>>,
  ): Entry {
    const entry = createEntry(
      createMessage({
        id,
        role: 'agent',
        agentId,
        senderName: record.agentName,
        turnId: record.turnId,
        timestamp: record.timestamp,
        ...fields,
      }),
      record.id,
    );
    const turn = this.#turnOf(record);
    const entries = this.#turns.get(turn);
    if (entries) entries.push(entry);
    else this.#turns.set(turn, [entry]);
    return this.#insert(entry);
  }

  /**
   * Matches every card answer to its card: by `toolUseId` when the answer names one, else the latest
   * unanswered card of its kind before it. Recomputed as a whole, since answers and cards arrive in any order.
   */
  #resolveCards(): void {
    type Card = { entry: Entry; slot: CardSlot<InfoCollectPayload | ConnectorSetupRequest>; kind: CardAnswer['kind'] };
    const cards: Card[] = [...this.#cardEntries]
      .sort(compareEntries)
      .flatMap((entry) => [
        ...entry.infoCollect.map((slot) => ({ entry, slot, kind: 'infoCollect' as const })),
        ...entry.connectorSetup.map((slot) => ({ entry, slot, kind: 'connectorSetup' as const })),
      ]);
    const answered = new Map<Card['slot'], CardAnswer>();
    const answers = [...this.#answers].sort((a, b) => compareRecordIds(a.at, b.at));
    for (const answer of answers) {
      const fits = (card: Card) =>
        card.kind === answer.kind &&
        (answer.kind !== 'connectorSetup' ||
          (card.slot.request as ConnectorSetupRequest).connectorTypeId === answer.connectorTypeId);
      const card = answer.toolUseId
        ? cards.find((c) => fits(c) && c.slot.request.toolUseId === answer.toolUseId)
        : cards.findLast((c) => fits(c) && !answered.has(c.slot) && compareRecordIds(c.entry.at, answer.at) < 0);
      if (card && !answered.has(card.slot)) answered.set(card.slot, answer);
    }
    for (const { entry, slot } of cards) {
      const answer = answered.get(slot);
      if (slot.answer === answer) continue;
      slot.answer = answer;
      this.#touch(entry);
    }
  }

  /** The entry's snapshot, made again first when something it derives from changed. */
  #current(entry: Entry): ChatMessage {
    if (!entry.stale) return entry.message;
    entry.stale = false;
    const { message, chunks } = entry;
    entry.chunks = undefined;
    entry.message = createMessage({
      ...message,
      text: chunks ? message.text + chunks.join('') : message.text,
      payment: message.payment && this.#paymentCard(message.payment.gate),
      infoCollect: orNone(
        entry.infoCollect.map(({ request, answer }) => ({
          request,
          answered: answer !== undefined,
          ...(answer?.kind === 'infoCollect'
            ? { answer: { action: answer.action, ...(answer.values ? { values: answer.values } : {}) } }
            : {}),
        })),
      ),
      connectorSetup: orNone(
        entry.connectorSetup.map(({ request, answer }) => ({ request, answered: answer !== undefined })),
      ),
    });
    return entry.message;
  }

  #paymentCard(gate: PaymentGatePayload): PaymentCard {
    return { gate, status: this.#resolutions.get(gate.orderId)?.status ?? 'pending' };
  }

  #turnOf(record: ChatStreamRecord): string {
    return record.turnId ?? this.#userTurns[this.#userTurnIndex(record.id) - 1]?.turn ?? '';
  }

  /** How many user records come before record `id` (a binary search: history arrives in thousands). */
  #userTurnIndex(id: string): number {
    let low = 0;
    let high = this.#userTurns.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (compareRecordIds(this.#userTurns[middle]!.at, id) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
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
    entry.message = Object.freeze({ ...entry.message, ...fields });
    this.#list = undefined;
  }

  #local(localId: string | undefined): Entry | undefined {
    const entry = localId === undefined ? undefined : this.#byId.get(localId);
    return entry?.local ? entry : undefined;
  }

  #setLocal(localId: string, fields: Partial<ChatMessage>): boolean {
    const entry = this.#local(localId);
    if (!entry) return false;
    this.#update(entry, fields);
    return true;
  }

  /** `at`: where it stays from now on (a failed message); without it, it goes last again. */
  #moveLocal(localId: string, fields: Partial<ChatMessage>, at?: string): boolean {
    const entry = this.#local(localId);
    if (!entry) return false;
    this.#sorted = false;
    if (at !== undefined) entry.at = at;
    entry.n = ++this.#localCount;
    return this.#setLocal(localId, fields);
  }

  #matchLocal(text: string, parts: MessagePart[] | undefined): Entry | undefined {
    const key = JSON.stringify(parts ?? []);
    for (const entry of this.#locals) {
      if (entry.message.text === text && JSON.stringify(entry.message.parts) === key) return entry;
    }
    return undefined;
  }
}
