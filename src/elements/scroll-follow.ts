import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { ChatStore } from '../chat/chat-store.js';
import { isAtEnd } from '../internal/at-end.js';

/** Distance from the top under which older messages are loaded. */
const HISTORY_PX = 200;
/** Space kept above a card shown from its top. */
const CARD_MARGIN_PX = 8;

/** What the controller needs of the chat's panel: its list (`part="messages"`) and the store shown in it. */
export interface ScrollHost extends ReactiveControllerHost {
  readonly renderRoot: ParentNode;
  /** The conversation's history paging, and whether a reply runs. */
  readonly store?: ChatStore;
}

/**
 * Keeps the conversation where the reader wants it: at the end while they are there (also when a row grows
 * after it rendered: markdown renders, a card draws itself, an image loads), still when older messages are
 * put above what they read, and otherwise where they scrolled, with `awayFromEnd` set so the chat can offer
 * a jump to new text. A card taller than the view that ends the conversation shows from its top.
 * Older messages load when the reader nears the top, or when a page of history does not fill the list.
 *
 * Only the reader's own scrolling stops the chat following: a move up, away from the end (or on below a card
 * shown from its top). The `scroll` event of a position the chat set itself comes a frame later, when rows
 * may have grown below it: judged by where the list then was, it read as the reader leaving the end (a
 * restored conversation opened thousands of pixels above its newest message). The browser's own moves
 * (scroll anchoring, off while the chat follows; a position clamped or rounded) are not the reader's either.
 */
export class ScrollFollowController implements ReactiveController {
  /** New content arrived while the reader was above the end. */
  awayFromEnd = false;
  #follow = true;
  /** The list's position when last seen: a scroll event's move is measured from it. */
  #lastTop = 0;
  /** The chat shows a card from its top: reading on below it is the reader's move too. */
  #atCard = false;
  #restoreFrom?: { height: number; top: number };
  readonly #grown = new ResizeObserver(() => {
    const list = this.#list;
    if (this.#follow && list) this.#toEnd(list);
  });

  constructor(private readonly host: ScrollHost) {
    host.addController(this);
  }

  /** The scrolling list, once rendered. */
  get #list(): HTMLElement | null {
    return this.host.renderRoot.querySelector('[part~=messages]');
  }

  /** Follows the end from the next render on (the visitor sent a message, or opened the chat). */
  follow(): void {
    this.#follow = true;
  }

  /** The list's `scroll` listener. */
  readonly onScroll = (): void => {
    const list = this.#list;
    if (!list) return;
    // Within a pixel: Firefox keeps fractional positions, and may round one once rows change.
    const moved = list.scrollTop - this.#lastTop;
    this.#lastTop = list.scrollTop;
    if (isAtEnd(list)) this.#follow = true;
    else if (moved <= -1 || (moved >= 1 && this.#atCard)) {
      this.#follow = false;
      list.style.overflowAnchor = '';
    }
    if (this.#follow && this.awayFromEnd) {
      this.awayFromEnd = false;
      this.host.requestUpdate();
    }
    this.#loadOlderNearTop(list);
  };

  /** Scrolls to the end and follows it again. */
  readonly jumpToEnd = (): void => {
    const list = this.#list;
    this.#follow = true;
    if (this.awayFromEnd) {
      this.awayFromEnd = false;
      this.host.requestUpdate();
    }
    if (list) this.#toEnd(list);
  };

  /** Shows the end of the conversation, or the top of a card ending it that is taller than the view. */
  #toEnd(list: HTMLElement): void {
    const view = list.getBoundingClientRect();
    const card = list.lastElementChild?.querySelector('[part~=card]');
    const cardTop = card ? card.getBoundingClientRect().top - view.top + list.scrollTop - CARD_MARGIN_PX : Infinity;
    const end = list.scrollHeight - list.clientHeight;
    list.scrollTop = card && card.getBoundingClientRect().height > list.clientHeight ? Math.min(cardTop, end) : end;
    this.#lastTop = list.scrollTop;
    this.#atCard = this.#lastTop < end - 1;
    // While it follows, the chat places the list itself: scroll anchoring would move it as rows above grow,
    // and such a move could not be told from the reader's.
    list.style.overflowAnchor = 'none';
  }

  hostUpdate(): void {
    // Decided before the render that shows the new content, so the jump button comes with it (set after the
    // render, it would take a second update).
    if (!this.#follow && this.host.store?.running) this.awayFromEnd = true;
  }

  hostUpdated(): void {
    const list = this.#list;
    if (!list) return;
    if (this.#restoreFrom && !this.host.store?.loadingHistory) {
      list.scrollTop = this.#restoreFrom.top + (list.scrollHeight - this.#restoreFrom.height);
      this.#lastTop = list.scrollTop;
      this.#restoreFrom = undefined;
    } else if (this.#follow) {
      this.#toEnd(list);
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
    const { store } = this.host;
    if (list.scrollTop > HISTORY_PX || !store?.hasMoreHistory || store.loadingHistory || this.#restoreFrom) return;
    this.#restoreFrom = { height: list.scrollHeight, top: list.scrollTop };
    void store.loadOlder();
  }
}
