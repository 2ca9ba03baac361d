type Listener<T> = (detail: T) => void;

/** A typed event emitter: `on` returns the function that removes the listener. */
export class Emitter<Events extends object> {
  readonly #listeners = new Map<keyof Events, Set<Listener<never>>>();

  on<K extends keyof Events>(type: K, listener: Listener<Events[K]>): () => void {
    const set = this.#listeners.get(type) ?? new Set();
    this.#listeners.set(type, set);
    set.add(listener);
    return () => {
      set.delete(listener);
    };
  }

  emit<K extends keyof Events>(type: K, detail: Events[K]): void {
    const set = this.#listeners.get(type) as Set<Listener<Events[K]>> | undefined;
    // A copy: a listener may remove itself or others.
    for (const listener of [...(set ?? [])]) listener(detail);
  }

  clear(): void {
    this.#listeners.clear();
  }
}
