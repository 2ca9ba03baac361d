import type { CardAnswer } from '../protocol/card-answers.js';
import { compareRecordIds } from '../protocol/records.js';
import type { ConnectorSetupRequest, InfoCollectPayload, PaymentGatePayload } from '../protocol/types.js';
import type { ChatMessage, PaymentCard } from './chat-message.js';

/** A card a reply asks for, and the answer matched to it (`card-slots.ts`). */
export interface CardSlot<Request> {
  request: Request;
  answer?: CardAnswer;
}

/**
 * One message of the log: the snapshot a UI reads, and what places and derives it. Fields a record sets replace
 * the snapshot at once (`updated`); what is derived (streamed text, card answers, a payment's status) marks it
 * `stale`, and it is made again at the next read (`snapshot`). A message's fields live in its snapshot only: a
 * history holds thousands of entries.
 */
export interface Entry {
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
export const NONE: readonly never[] = Object.freeze([]);
export const orNone = <T>(list: readonly T[]): readonly T[] => (list.length ? list : NONE);

/** The fields a record gives a new snapshot: its id and role, and any others. */
export type SnapshotFields = Pick<ChatMessage, 'id' | 'role'> & Partial<Omit<ChatMessage, 'id' | 'role'>>;

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
export const createMessage = (fields: SnapshotFields): ChatMessage =>
  Object.freeze({ ...BLANK, key: fields.id, ...fields });

export function createEntry(message: ChatMessage, at: string, n = 0, local = false): Entry {
  return { message, at, n, local, stale: false, chunks: undefined, infoCollect: NONE, connectorSetup: NONE };
}

/** The user's message while being sent stays last, after whatever streams in meanwhile. */
const floats = (entry: Entry) => entry.local && entry.message.status !== 'failed';

/** The order of the conversation: by the record that placed each message, unsent messages after. */
export function compareEntries(a: Entry, b: Entry): number {
  const floating = Number(floats(a)) - Number(floats(b));
  return floating || compareRecordIds(a.at, b.at) || a.n - b.n;
}

/** Fields of the message changed: a new snapshot. */
export function updated(entry: Entry, fields: Partial<ChatMessage>): void {
  entry.message = Object.freeze({ ...entry.message, ...fields });
}

/**
 * The entry's snapshot, made again first when something it derives from changed: the streamed text, its
 * cards' answers, and its payment's status (`paymentCard`).
 */
export function snapshot(entry: Entry, paymentCard: (gate: PaymentGatePayload) => PaymentCard): ChatMessage {
  if (!entry.stale) return entry.message;
  entry.stale = false;
  const { message, chunks } = entry;
  entry.chunks = undefined;
  entry.message = createMessage({
    ...message,
    text: chunks ? message.text + chunks.join('') : message.text,
    payment: message.payment && paymentCard(message.payment.gate),
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
