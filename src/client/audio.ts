import type { RequestOptions } from './config.js';
import { type HttpClient, path } from './http.js';

/** One cached audio: the bytes and, when the caller made one, an object URL for an `<audio>` element. */
export interface AudioEntry {
  blob: Blob;
  url?: string;
}

/**
 * An LRU cache of spoken replies (spec section 6, capacity 10 by default). Whatever it evicts or clears
 * is released: object URLs it holds are revoked, so a long conversation does not pin audio in memory.
 */
export class MessageAudioCache<K = string> {
  readonly #entries = new Map<K, AudioEntry>();

  constructor(readonly capacity = 10) {}

  get size(): number {
    return this.#entries.size;
  }

  /** The entry for `key`, now the most recently used. */
  get(key: K): AudioEntry | undefined {
    const entry = this.#entries.get(key);
    if (entry) {
      this.#entries.delete(key);
      this.#entries.set(key, entry);
    }
    return entry;
  }

  /** Stores `entry` as the most recently used; evicts (and releases) the least recently used beyond capacity. */
  set(key: K, entry: AudioEntry): this {
    const previous = this.#entries.get(key);
    this.#entries.delete(key);
    if (previous && previous.url !== entry.url) release(previous);
    this.#entries.set(key, entry);
    while (this.#entries.size > this.capacity) {
      const [oldestKey, oldest] = this.#entries.entries().next().value!;
      this.#entries.delete(oldestKey);
      release(oldest);
    }
    return this;
  }

  /** Removes and releases every entry. */
  clear(): void {
    for (const entry of this.#entries.values()) release(entry);
    this.#entries.clear();
  }
}

function release(entry: AudioEntry): void {
  if (entry.url?.startsWith('blob:')) URL.revokeObjectURL(entry.url);
}

/**
 * The spoken form of an agent's reply as audio bytes, from `POST …/audio/stream` (the low-level function
 * behind `chat.messageAudio`). Retried when safe: speech is cached per message, so asking twice is harmless.
 */
export async function downloadMessageAudio(
  http: HttpClient,
  agentId: string,
  conversationId: string,
  messageId: string,
  opts: RequestOptions = {},
): Promise<Blob> {
  return http.blob({
    ...opts,
    method: 'POST',
    path: path`/agents/${agentId}/messages/${messageId}/audio/stream`,
    body: { conversationId },
    idempotent: true,
  });
}
