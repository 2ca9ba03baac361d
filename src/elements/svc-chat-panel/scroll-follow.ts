import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { ChatStore } from '../../chat/chat-store.js';
import { isAtEnd } from '../../internal/at-end.js';

/** Distance from the top under which older messages are loaded. */
const HISTORY_PX = 200;
/** Space kept above a card shown from its top, or above the question of a long reply. */
const CARD_MARGIN_PX = 8;
/** A question taller than this part of the view is not kept in view over its reply: the reply's start is. */
const QUESTION_SHARE = 1 / 3;

/** What the controller needs of the chat's panel: its list (`part="messages"`) and the store shown in it. */
export interface ScrollHost extends ReactiveControllerHost {
  readonly renderRoot: ParentNode;
  /** The conversation's history paging, and whether a reply runs. */
  readonly store?: ChatStore;
}

/** Who places the conversation's list, and where: the states of {@link ScrollFollowController}. */
export type FollowState =
  /** The chat keeps the list at its end as rows come and grow. */
  | 'following'
  /** As `following`, for a reply the visitor asked for: until its question would leave the top of the view. */
  | 'following-reply'
  /** A card taller than the view ends the conversation: the chat shows it from its top. */
  | 'at-card'
  /** The chat stopped at a long reply's question: the reply reads from its start until the reader goes on. */
  | 'held'
  /** The reader's own place, above the end: the chat leaves the list there. */
  | 'reading';

/** What moves the controller from one state to another. */
export type FollowEvent =
  /**
   * The visitor sent a message, opened the chat or a conversation, or jumped to the end (a card shown from its
   * top stays so: the chat follows already).
   */
  | 'follow'
  /** A reply started while the chat followed, its question in view. */
  | 'reply'
  /** Placing the list: the question of the reply followed reached the top of the view. */
  | 'question-at-top'
  /** Placing the list: a card taller than the view ends the conversation, shown from its top. */
  | 'tall-card'
  /** Placing the list: the end is shown (no tall card ends the conversation any more). */
  | 'end-shown'
  /** The reader scrolled down from a card shown from its top. */
  | 'read-on'
  /** The reader scrolled up, away from the end. */
  | 'scrolled-up'
  /** The reader scrolled to the end (held: past where the chat stopped). */
  | 'scrolled-to-end';

/** Every move: from a state, by an event, to a state. An event a state does not list leaves it as it is. */
export const FOLLOW_TRANSITIONS: Readonly<Record<FollowState, Partial<Record<FollowEvent, FollowState>>>> = {
  following: { reply: 'following-reply', 'tall-card': 'at-card', 'scrolled-up': 'reading' },
  'following-reply': {
    follow: 'following',
    'question-at-top': 'held',
    'tall-card': 'at-card',
    'scrolled-up': 'reading',
  },
  'at-card': {
    'end-shown': 'following',
    'read-on': 'reading',
    'scrolled-up': 'reading',
  },
  held: { follow: 'following', 'scrolled-up': 'reading', 'scrolled-to-end': 'following' },
  reading: { follow: 'following', 'scrolled-to-end': 'following' },
};

/**
 * Keeps the conversation where the reader wants it, a state machine ({@link FOLLOW_TRANSITIONS}): at the end
 * while they are there (also when a row grows after it rendered: markdown renders, a card draws itself, an image
 * loads), still when older messages are put above what they read, and otherwise where they scrolled, with
 * `awayFromEnd` set so the chat can offer a jump to new text. A card taller than the view that ends the
 * conversation shows from its top. A reply the visitor asked for while at the end is followed only until their
 * question (or, below a tall question, the reply's start) would leave the top of the view: the chat then stays
 * put, so the reply reads from its start, until the reader goes to the end themselves (or jumps there).
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
  #state: FollowState = 'following';
  /** The list's position when last seen: a scroll event's move is measured from it. */
  #lastTop = 0;
  /**
   * The message (its key) whose card the chat last showed from its top: once the reader reads on below the top,
   * its end is followed, also when the virtual list renders its row again.
   */
  #cardOf?: string;
  /** Where the chat stopped (`held`): the browser may move the list back there (scroll anchoring), the reader goes past. */
  #heldTop = 0;
  /** A reply ran at the last update: the start of the next one is where the hold is decided. */
  #wasRunning = false;
  #restoreFrom?: { height: number; top: number };
  /** The frame asked for to follow rows that grew. */
  #growFrame = 0;
  readonly #grown = new ResizeObserver(() => {
    // In the next frame, not in this callback: moving the list brings rows into view that only then take their
    // size (`content-visibility`), which the browser would report as a ResizeObserver loop error.
    this.#growFrame ||= requestAnimationFrame(() => {
      this.#growFrame = 0;
      const list = this.#list;
      if (list) this.#keepPlace(list);
    });
  });

  constructor(private readonly host: ScrollHost) {
    host.addController(this);
  }

  /** The scrolling list, once rendered. */
  get #list(): HTMLElement | null {
    return this.host.renderRoot.querySelector('[part~=messages]');
  }

  get state(): FollowState {
    return this.#state;
  }

  /** The chat keeps the list at its end (not the reader's place above it, nor a long reply's question). */
  get following(): boolean {
    return this.#state !== 'held' && this.#state !== 'reading';
  }

  #on(event: FollowEvent): void {
    this.#state = FOLLOW_TRANSITIONS[this.#state][event] ?? this.#state;
  }

  /** Follows the end from the next render on (the visitor sent a message, or opened the chat). */
  follow(): void {
    this.#on('follow');
  }

  /**
   * The virtual list rendered rows on its own, with no update of the panel: the list keeps its place, and the
   * rows it added are watched as they grow. Placed now, not at the `scroll` event a frame later: rows that
   * came in shorter than estimated may have clamped the list to a shorter end, and by that event rows may have
   * grown again, which made the browser's move read as the reader's (WebKit stopped following, 205 px above
   * the end of a long conversation). A move up the reader made since the chat placed the list (it is neither
   * there nor at the list's end) is theirs: the `scroll` event judges it.
   */
  readonly rowsChanged = (): void => {
    const list = this.#list;
    if (!list) return;
    if (list.scrollTop >= Math.min(this.#lastTop, list.scrollHeight - list.clientHeight) - 1) this.#keepPlace(list);
    this.#observeRows(list);
  };

  /** The list's `scroll` listener. */
  readonly onScroll = (): void => {
    const list = this.#list;
    if (!list) return;
    // Within a pixel: Firefox keeps fractional positions, and may round one once rows change.
    const moved = list.scrollTop - this.#lastTop;
    // The browser's move, not the reader's: the list's content got shorter (a reply's tail may, as it renders)
    // and the list came up to its new end.
    const clamped = moved < 0 && this.#lastTop > list.scrollHeight - list.clientHeight + 1;
    this.#lastTop = list.scrollTop;
    // Down from a card the chat showed from its top: the reader reads on, and the chat no longer brings it back.
    if (moved >= 1) this.#on('read-on');
    // Held at a question, the list is the chat's own until the reader moves down to the end, past where it
    // stopped (scroll anchoring brings a clamped list back there as the reply grows again: the browser's move).
    const held = this.#state === 'held';
    if (isAtEnd(list) && !(held && (moved < 1 || list.scrollTop <= this.#heldTop + 1))) this.#on('scrolled-to-end');
    else if (!clamped && moved <= -1) this.#on('scrolled-up');
    if (!this.following) list.style.overflowAnchor = '';
    if (this.following && this.awayFromEnd) {
      this.awayFromEnd = false;
      this.host.requestUpdate();
    }
    this.#loadOlderNearTop(list);
  };

  /** Scrolls to the end and follows it again. */
  readonly jumpToEnd = (): void => {
    const list = this.#list;
    this.#on('follow');
    if (this.awayFromEnd) {
      this.awayFromEnd = false;
      this.host.requestUpdate();
    }
    if (list) this.#toEnd(list);
  };

  /**
   * Shows the end of the conversation, or the top of a card ending it that is taller than the view (until the
   * reader reads on below it), or, for a long reply, its question at the top of the view (and from then on
   * stops following).
   */
  #toEnd(list: HTMLElement): void {
    // The reader moved down from a card shown from its top, and the `scroll` event of their move is still to come
    // (an update or a row's growth came first): their move is judged now, before the chat places the list over it.
    if (this.#state === 'at-card' && list.scrollTop >= this.#lastTop + 1) {
      this.onScroll();
      if (!this.following) return;
    }
    const view = list.getBoundingClientRect();
    const card = list.lastElementChild?.querySelector('[part~=card]');
    const cardTop = card ? card.getBoundingClientRect().top - view.top + list.scrollTop - CARD_MARGIN_PX : Infinity;
    const end = list.scrollHeight - list.clientHeight;
    const newest = this.host.store?.messages.at(-1)?.key;
    const fromTop =
      !!card &&
      card.getBoundingClientRect().height > list.clientHeight &&
      (newest !== this.#cardOf || this.#state === 'at-card');
    if (fromTop) this.#cardOf = newest;
    let top = fromTop ? Math.min(cardTop, end) : end;
    const question = card ? undefined : this.#questionTop(list, view);
    if (question !== undefined && question < top - 1) {
      // Never up: a question that already left the top keeps the list where it is.
      top = Math.max(question, Math.min(list.scrollTop, top));
      this.#on('question-at-top');
    }
    list.scrollTop = top;
    this.#lastTop = list.scrollTop;
    if (this.#state === 'held') this.#heldTop = this.#lastTop;
    else this.#on(fromTop && this.#lastTop < end - 1 ? 'tall-card' : 'end-shown');
    // While it follows, the chat places the list itself: scroll anchoring would move it as rows above grow,
    // and such a move could not be told from the reader's. Held, the list keeps what it shows as rows above
    // it change.
    list.style.overflowAnchor = this.following ? 'none' : '';
  }

  /** Rows changed size: the list follows the end, or stays at the question it is held at. */
  #keepPlace(list: HTMLElement): void {
    if (this.following) this.#toEnd(list);
    // Held at a question, and clamped above it while the reply's tail was shorter: back to the question (what
    // scroll anchoring does, where the browser has it).
    else if (this.#state === 'held' && list.scrollTop < this.#heldTop - 1) {
      list.scrollTop = this.#heldTop;
      this.#lastTop = list.scrollTop;
    }
  }

  /** Every row is watched as it grows (markdown renders, a card draws itself, an image loads). */
  #observeRows(list: HTMLElement): void {
    this.#grown.disconnect();
    for (const row of list.children) this.#grown.observe(row);
  }

  /**
   * Where the list stops following the newest reply: its question (the visitor's newest message) at the top
   * of the view, or the reply's start below a question taller than a third of the view; undefined when the
   * reply is followed to its end.
   */
  #questionTop(list: HTMLElement, view: DOMRect, state = this.#state): number | undefined {
    if (state !== 'following-reply') return undefined;
    const question = [...list.querySelectorAll(':scope > [part~=message-user]')].at(-1);
    if (!question) return undefined;
    const box = question.getBoundingClientRect();
    const top = box.top - view.top + list.scrollTop;
    return (box.height > list.clientHeight * QUESTION_SHARE ? top + box.height : top) - CARD_MARGIN_PX;
  }

  hostUpdate(): void {
    // Decided before the render that shows the new content, so the jump button comes with it (set after the
    // render, it would take a second update).
    if (!this.following && this.host.store?.running) this.awayFromEnd = true;
  }

  hostUpdated(): void {
    const list = this.#list;
    if (!list) return;
    if (this.#restoreFrom && !this.host.store?.loadingHistory) {
      list.scrollTop = this.#restoreFrom.top + (list.scrollHeight - this.#restoreFrom.height);
      this.#lastTop = list.scrollTop;
      this.#restoreFrom = undefined;
    } else if (this.following) {
      this.#toEnd(list);
    }
    // A reply that starts while the chat follows (the visitor asked, or asked again) is followed until its
    // question reaches the top; the question is in view then, the chat having just shown it.
    const running = !!this.host.store?.running;
    if (running && !this.#wasRunning && this.following) {
      const at = this.#questionTop(list, list.getBoundingClientRect(), 'following-reply');
      if (at !== undefined && at >= list.scrollTop - CARD_MARGIN_PX - 1) this.#on('reply');
      // The reply asked again is followed to its end when its question is out of view.
      else if (this.#state === 'following-reply') this.#on('follow');
    }
    this.#wasRunning = running;
    this.#observeRows(list);
    // A page of history that does not fill the list cannot be scrolled up: fetch the next one.
    if (list.scrollHeight <= list.clientHeight) this.#loadOlderNearTop(list);
  }

  hostDisconnected(): void {
    this.#grown.disconnect();
    cancelAnimationFrame(this.#growFrame);
    this.#growFrame = 0;
  }

  /** Near the top of what is loaded, older messages are fetched and put above, keeping the view in place. */
  #loadOlderNearTop(list: HTMLElement): void {
    const { store } = this.host;
    if (list.scrollTop > HISTORY_PX || !store?.hasMoreHistory || store.loadingHistory || this.#restoreFrom) return;
    this.#restoreFrom = { height: list.scrollHeight, top: list.scrollTop };
    void store.loadOlder();
  }
}
