/**
 * The beats of an interval are written in this many batches, one every `intervalMs / SLOTS` (117 ms at 15 s):
 * 10,000 streams beating each on its own timer woke the process 667 times a second to write one ping each
 * (7 % of a core at idle, docs/performance.md §6); a batch of ~80 pings holds the loop about a millisecond.
 */
const SLOTS = 128;

/** The streams beating every `intervalMs`, a slot each, and the one timer that walks the slots while any beats. */
class Wheel {
  readonly #slots: Set<() => void>[] = Array.from({ length: SLOTS }, () => new Set());
  #at = 0;
  #size = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(readonly intervalMs: number) {}

  /**
   * `beat` every interval, the first time after a random part of it (from a half to a whole): streams opened
   * together (thousands of visitors resuming on this instance when another drains) beat spread over half an
   * interval, not all in one batch.
   */
  add(beat: () => void): () => void {
    const slot = this.#slots[(this.#at + SLOTS / 2 + 1 + Math.floor((Math.random() * SLOTS) / 2)) % SLOTS]!;
    slot.add(beat);
    if (this.#size++ === 0) this.#timer = setInterval(() => this.#tick(), this.intervalMs / SLOTS);
    return () => {
      if (slot.delete(beat) && --this.#size === 0) clearInterval(this.#timer);
    };
  }

  #tick(): void {
    this.#at = (this.#at + 1) % SLOTS;
    // A beat may end its own stream or another of this slot: a Set skips what is deleted while it is walked.
    for (const beat of this.#slots[this.#at]!) beat();
  }
}

const wheels = new Map<number, Wheel>();

/** Calls `beat` every `intervalMs` until the returned function is called (its stream closed). */
export function beating(beat: () => void, intervalMs: number): () => void {
  let wheel = wheels.get(intervalMs);
  if (!wheel) {
    wheel = new Wheel(intervalMs);
    wheels.set(intervalMs, wheel);
  }
  return wheel.add(beat);
}
