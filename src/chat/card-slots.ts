import type { CardAnswer } from '../protocol/card-answers.js';
import { compareRecordIds } from '../protocol/records.js';
import type { ConnectorSetupRequest, InfoCollectPayload } from '../protocol/types.js';
import { type CardSlot, compareEntries, type Entry } from './message-entry.js';

type Card = { entry: Entry; slot: CardSlot<InfoCollectPayload | ConnectorSetupRequest>; kind: CardAnswer['kind'] };

/**
 * The cards of the log's replies and the answers to them (`toolAction` messages), matched whichever arrives
 * first: by `toolUseId` when the answer names one, else the latest unanswered card of its kind before it.
 */
export class CardSlots {
  readonly #entries = new Set<Entry>();
  readonly #answers: CardAnswer[] = [];

  readonly #touch: (entry: Entry) => void;

  /** `touch`: a reply whose card got or lost its answer (its snapshot is made again). */
  constructor(touch: (entry: Entry) => void) {
    this.#touch = touch;
  }

  /** A card answer was applied, live or from history. */
  answer(answer: CardAnswer): void {
    this.#answers.push(answer);
    this.#match();
  }

  /** A reply's cards were set (an `assistant` record): they are matched from now on. */
  cardsChanged(entry: Entry): void {
    const had = this.#entries.delete(entry);
    const has = entry.infoCollect.length > 0 || entry.connectorSetup.length > 0;
    if (has) this.#entries.add(entry);
    if (had || has) this.#match();
  }

  /** Recomputed as a whole, since answers and cards arrive in any order. */
  #match(): void {
    const cards: Card[] = [...this.#entries]
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
}
