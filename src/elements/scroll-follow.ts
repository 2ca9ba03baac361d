import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { isAtEnd } from '../internal/at-end.js';

/** Distance from the top under which older messages are loaded. */
const HISTORY_PX = 200;

/** What the controller needs of the conversation: its history paging and whether a reply runs. */
export interface ScrollSource {
  /** The scrolling list, once rendered. */
  list(): HTMLElement | null;
  hasMoreHistory(): boolean;
  loadingHistory(): boolean;
  loadOlder(): void;
  running(): boolean;
}

/**
 * Keeps the conversation where the reader wants it: at the end while they are there (also when a row grows
 * after it rendered: a card draws itself, an image loads), still when older messages are put above what they
 * read, and otherwise where they scrolled, with `awayFromEnd` set so the chat can offer a jump to new text.
 * Older messages load when the reader nears the top, or when a page of history does not fill the list.
 */
export class ScrollFollowController implements ReactiveController {
  /** New content arrived while the reader was above the end. */
  awayFromEnd = false;
  #follow = true;
  #restoreFrom?: { height: number; top: number };
  readonly #grown = new ResizeObserver(() => this.#follow && this.jumpToEnd());

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly source: ScrollSource,
  ) {
    host.addController(this);
  }

  /** Follows the end from the next render on (the visitor sent a message, or opened the chat). */
  follow(): void {
    this.#follow = true;
  }

  /** The list's `scroll` listener. */
  readonly onScroll = (): void => {
    const list = this.source.list();
    if (!list) return;
    this.#follow = isAtEnd(list);
    if (this.#follow && this.awayFromEnd) {
      this.awayFromEnd = false;
      this.host.requestUpdate();
    }
    this.#loadOlderNearTop(list);
  };

  /** Scrolls to the end and follows it again. */
  readonly jumpToEnd = (): void => {
    const list = this.source.list();
    this.#follow = true;
    if (this.awayFromEnd) {
      this.awayFromEnd = false;
      this.host.requestUpdate();
    }
    list?.scrollTo({ top: list.scrollHeight });
  };

  hostUpdate(): void {
    // Decided before the render that shows the new content, so the jump button comes with it (set after the
    // render, it would take a second update).
    if (!this.#follow && this.source.running()) this.awayFromEnd = true;
  }

  hostUpdated(): void {
    const list = this.source.list();
    if (!list) return;
    if (this.#restoreFrom && !this.source.loadingHistory()) {
      list.scrollTop = this.#restoreFrom.top + (list.scrollHeight - this.#restoreFrom.height);
      this.#restoreFrom = undefined;
    } else if (this.#follow) {
      list.scrollTop = list.scrollHeight;
    }
    this.#grown.disconnect();
    for (const row of list.children) this.#grown.observe(row);
    // A page of history that does not fill the list cannot be scrolled up: fetch the next one.
    if (list.scrollHeight <= list.clientHeight) this.#loadOlderNearTop(list);
  }

  hostDisconnected(): void {
    this.#grown.disconnect();
  }

  /** Near the top of what is loaded, older messages are fetched and put above, keeping the view in place. */
  #loadOlderNearTop(list: HTMLElement): void {
    const { source } = this;
    if (list.scrollTop > HISTORY_PX || !source.hasMoreHistory() || source.loadingHistory() || this.#restoreFrom) {
      return;
    }
    this.#restoreFrom = { height: list.scrollHeight, top: list.scrollTop };
    source.loadOlder();
  }
}
