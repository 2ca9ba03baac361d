import { compareRecordIds } from '../protocol/records.js';
import type {
  ChatStreamRecord,
  PaymentGatePayload,
  PaymentGateResolutionRawEvent,
  PaymentStatus,
} from '../protocol/types.js';
import type { PaymentCard } from './chat-message.js';
import type { Entry } from './message-entry.js';

/** The log's payment cards and the resolutions of their orders, matched whichever arrives first. */
export class PaymentCards {
  readonly #rows = new Map<string, Entry>();
  readonly #resolutions = new Map<string, { at: string; status: PaymentStatus }>();

  /** A card as it shows now: `pending` until its order's newest resolution says otherwise. */
  readonly card = (gate: PaymentGatePayload): PaymentCard => ({
    gate,
    status: this.#resolutions.get(gate.orderId)?.status ?? 'pending',
  });

  /** The row of a `payment_gate` record. */
  add(entry: Entry): Entry {
    const orderId = entry.message.payment?.gate.orderId;
    if (orderId) this.#rows.set(orderId, entry);
    return entry;
  }

  /** A `payment_gate_resolution`: the row of its card when it shows now another status, to be made again. */
  resolve(record: ChatStreamRecord, raw: PaymentGateResolutionRawEvent): Entry | undefined {
    const known = this.#resolutions.get(raw.orderId);
    if (known && compareRecordIds(known.at, record.id) > 0) return undefined;
    this.#resolutions.set(raw.orderId, { at: record.id, status: raw.status });
    return this.#rows.get(raw.orderId);
  }
}
