import type { ConversationSummary, ConversationList as ListPage } from '../protocol/types.js';
import { afterTask } from './schedule.js';

/** What the list needs of the client: exactly this subset of `SvcClient#chat` (tests hand in a fake). */
export interface ConversationListApi {
  listConversations(opts?: { cursor?: string; limit?: number; signal?: AbortSignal }): Promise<ListPage>;
  renameConversation(conversationId: string, title: string): Promise<ConversationSummary>;
  deleteConversation(conversationId: string): Promise<void>;
}

/** Conversations asked for per page. */
const PAGE = 30;

/**
 * The visitor's conversations, newest first, as a chat's list shows them (docs/protocol.md "Conversation
 * list"): pages read on demand, renames and deletions applied once the service has done them. No DOM.
 * Read the getters and `subscribe` (called at most once per task).
 */
export class ConversationListState {
  readonly #api: ConversationListApi;
  readonly #listeners = new Set<() => void>();
  #items: ConversationSummary[] = [];
  #cursor: string | null = null;
  #loaded = false;
  #loading = false;
  #error: unknown = null;
  /** What `error` failed to do. */
  #failed: 'read' | 'rename' | 'delete' | null = null;
  #scope = new AbortController();
  #notifying = false;

  constructor(api: ConversationListApi) {
    this.#api = api;
  }

  get items(): readonly ConversationSummary[] {
    return this.#items;
  }

  /** The first page has arrived (an empty list then means there are none). */
  get loaded(): boolean {
    return this.#loaded;
  }

  get loading(): boolean {
    return this.#loading;
  }

  /** Older conversations wait on the service. */
  get hasMore(): boolean {
    return this.#cursor !== null;
  }

  /** The last failure (its `message` and `status`, as the client throws them), until the next success. */
  get error(): unknown {
    return this.#error;
  }

  /** What the last failure failed to do: read the list, rename or delete a conversation. */
  get failed(): 'read' | 'rename' | 'delete' | null {
    return this.#error === null ? null : this.#failed;
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  };

  /** Reads the first page again (the list may have changed anywhere: another tab, a new message). */
  async refresh(): Promise<void> {
    this.#scope.abort();
    this.#scope = new AbortController();
    await this.#read(undefined, this.#scope.signal);
  }

  /** Appends the next page, while `hasMore`. */
  async loadMore(): Promise<void> {
    if (this.#loading || this.#cursor === null) return;
    await this.#read(this.#cursor, this.#scope.signal);
  }

  async rename(conversationId: string, title: string): Promise<boolean> {
    try {
      const renamed = await this.#api.renameConversation(conversationId, title);
      this.#items = this.#items.map((c) => (c.id === conversationId ? renamed : c));
      this.#error = null;
      return true;
    } catch (err) {
      this.#error = err;
      this.#failed = 'rename';
      return false;
    } finally {
      this.#changed();
    }
  }

  /** Deletes a conversation; one already gone (404) leaves the list as well. */
  async delete(conversationId: string): Promise<boolean> {
    try {
      await this.#api.deleteConversation(conversationId);
    } catch (err) {
      if ((err as { status?: unknown }).status !== 404) {
        this.#error = err;
        this.#failed = 'delete';
        this.#changed();
        return false;
      }
    }
    this.#items = this.#items.filter((c) => c.id !== conversationId);
    this.#error = null;
    this.#changed();
    return true;
  }

  dispose(): void {
    this.#scope.abort();
    this.#listeners.clear();
  }

  async #read(cursor: string | undefined, signal: AbortSignal): Promise<void> {
    this.#loading = true;
    this.#changed();
    try {
      const page = await this.#api.listConversations({ ...(cursor ? { cursor } : {}), limit: PAGE, signal });
      if (signal.aborted) return;
      // A page after a conversation moved to the top can repeat none: keep each id once.
      const seen = new Set(cursor ? this.#items.map((c) => c.id) : []);
      const fresh = page.conversations.filter((c) => !seen.has(c.id));
      this.#items = cursor ? [...this.#items, ...fresh] : fresh;
      this.#cursor = page.nextCursor;
      this.#loaded = true;
      this.#error = null;
    } catch (err) {
      if (!signal.aborted) {
        this.#error = err;
        this.#failed = 'read';
      }
    } finally {
      if (!signal.aborted) {
        this.#loading = false;
        this.#changed();
      }
    }
  }

  #changed(): void {
    if (this.#notifying) return;
    this.#notifying = true;
    afterTask(() => {
      this.#notifying = false;
      for (const listener of [...this.#listeners]) listener();
    });
  }
}
