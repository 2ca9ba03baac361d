import { html, nothing } from 'lit';
import { AsyncDirective } from 'lit/async-directive.js';
import { type ChildPart, type DirectiveResult, directive } from 'lit/directive.js';
import { repeat } from 'lit/directives/repeat.js';
import { isAtEnd } from './at-end.js';

/** Rows rendered beyond each edge of the view, in pixels: a flick shows rows, not blank space. */
const OVERSCAN_PX = 1200;
/**
 * The overscan grows to its full size by this much a task, after the first paint: the first render of a long
 * conversation renders (and parses the markdown of) only the rows in view, so the newest message shows without
 * one long task for the rows around it (docs/performance.md, long conversations).
 */
const OVERSCAN_STEP_PX = 300;
/** Height assumed for a row not rendered yet; measured rows replace it. */
const ESTIMATE_PX = 90;
/** Rows shown before the list has a size (the first render): the newest. */
const FIRST_ROWS = 20;
/**
 * Lists up to this long render whole: cheap enough, and the browser's find-in-page and the reader's
 * selection see every message of an ordinary conversation.
 */
const RENDER_ALL = 100;

type Key<T> = (item: T) => string;
type Template<T> = (item: T) => unknown;

/** What the list's host tells the directive, and is told by it. */
export interface VirtualListOptions {
  /**
   * Whether the list is kept at its end now (a chat following new messages): the view then renders from the
   * end. Asked at every render, the directive's own after a scroll included.
   */
  followsEnd?: () => boolean;
  /**
   * Called after the directive rendered other rows on its own (after a scroll, a row measured, a step of
   * overscan), which no update of the host sees: rows came and went, and the content's height changed (the
   * browser may have clamped the list to a shorter end).
   */
  rendered?: () => void;
}

/**
 * Renders only the rows of a long list that are in view of its scrolling parent, plus overscan, between two
 * spacers that stand for the rest (design.md "History": 5,000 messages were 30,000 elements and 1.7 s; a
 * row's markdown is parsed when it first comes into view). Rows keep their measured heights, so the
 * scrollbar and positions stay right; Chromium's scroll anchoring keeps the view still when rows above
 * it are measured. Each item's template must render exactly one element.
 *
 * Use it as the only content of the scrolling element's child part: `${virtualList(items, key, template)}`.
 */
class VirtualList<T> extends AsyncDirective {
  // Set by every render, before anything reads them.
  #items!: readonly T[];
  #key!: Key<T>;
  #template!: Template<T>;
  #options: VirtualListOptions = {};
  #range!: [number, number];
  readonly #heights = new Map<string, number>();
  #part?: ChildPart;
  #list?: HTMLElement;
  #measureQueued?: boolean;
  /** The overscan now: none until the first rows painted, then growing to `OVERSCAN_PX`. */
  #overscan = 0;
  #growing?: boolean;
  readonly #onScroll = () => this.#reflow();

  render(items: readonly T[], key: Key<T>, template: Template<T>, options: VirtualListOptions = {}): unknown {
    this.#items = items;
    this.#key = key;
    this.#template = template;
    this.#options = options;
    return this.#view();
  }

  override update(
    part: ChildPart,
    [items, key, template, options]: [readonly T[], Key<T>, Template<T>, VirtualListOptions?],
  ): unknown {
    if (!this.#part) {
      // A part keeps its place, so the scrolling element is the same for the directive's life.
      this.#part = part;
      this.#list = part.parentNode as HTMLElement;
      this.reconnected();
    }
    this.#measureSoon();
    return this.render(items, key, template, options);
  }

  protected override disconnected(): void {
    this.#list?.removeEventListener('scroll', this.#onScroll);
  }

  protected override reconnected(): void {
    this.#list?.addEventListener('scroll', this.#onScroll, { passive: true });
  }

  #height(item: T): number {
    return this.#heights.get(this.#key(item)) ?? ESTIMATE_PX;
  }

  /** The rows that cover the view plus overscan: from the end while the view is there, else by position. */
  #visibleRange(): [number, number] {
    const items = this.#items;
    const list = this.#list;
    if (items.length <= RENDER_ALL) return [0, items.length];
    if (!list?.clientHeight) return [Math.max(0, items.length - FIRST_ROWS), items.length];
    // Following the end, the view renders from it even when rows just measured above moved the list off it
    // (the chat puts it back, told by `rendered`).
    if (this.#options.followsEnd?.() || isAtEnd(list)) {
      let start = items.length;
      for (let filled = 0; start > 0 && filled < list.clientHeight + this.#overscan; )
        filled += this.#height(items[--start]);
      return [start, items.length];
    }
    const top = list.scrollTop - this.#overscan;
    const bottom = list.scrollTop + list.clientHeight + this.#overscan;
    let start = 0;
    let offset = 0;
    while (start < items.length && offset + this.#height(items[start]) < top) offset += this.#height(items[start++]);
    let end = start;
    while (end < items.length && offset < bottom) offset += this.#height(items[end++]);
    return [start, end];
  }

  /** The rows the view needs now, between their spacers. */
  #view(): unknown {
    this.#range = this.#visibleRange();
    const [start, end] = this.#range;
    const spacer = (from: number, to: number) => {
      let height = 0;
      for (let i = from; i < to; i++) height += this.#height(this.#items[i]);
      // A property binding sets the style through the CSSOM, which a strict CSP allows (a `style` attribute it
      // would block), without the weight of `styleMap`.
      return height
        ? html`<div class="virtual-spacer" aria-hidden="true" .style=${`height:${height}px;flex:none`}></div>`
        : nothing;
    };
    return html`${spacer(0, start)}${repeat(this.#items.slice(start, end), this.#key, this.#template)}${spacer(end, this.#items.length)}`;
  }

  /** After Lit has put the rows in place (and before the browser paints), their heights are read. */
  #measureSoon(): void {
    if (this.#measureQueued) return;
    this.#measureQueued = true;
    queueMicrotask(() => {
      this.#measureQueued = false;
      if (this.#measure()) this.#reflow();
      this.#growOverscan();
    });
  }

  /** Records the height of each rendered row (the gap after it included); true when one changed. */
  #measure(): boolean {
    const part = this.#part;
    const list = this.#list;
    if (!part || !list?.isConnected) return false;
    const gap = Number.parseFloat(getComputedStyle(list).rowGap) || 0;
    const rows: Element[] = [];
    for (let node = part.startNode?.nextSibling; node && node !== part.endNode; node = node.nextSibling) {
      if (node instanceof HTMLElement && !node.classList.contains('virtual-spacer')) rows.push(node);
    }
    const [start, end] = this.#range;
    const items = this.#items.slice(start, end);
    if (rows.length !== items.length) return false;
    let changed = false;
    rows.forEach((row, i) => {
      const key = this.#key(items[i]);
      const height = (row as HTMLElement).offsetHeight + gap;
      if (this.#heights.get(key) !== height) {
        this.#heights.set(key, height);
        changed = true;
      }
    });
    return changed;
  }

  /** Renders again when the rows needed for the view (or the spacers' heights) changed. */
  #reflow(): void {
    if (!this.isConnected) return;
    const [start, end] = this.#range;
    this.setValue(this.#view());
    if (this.#range[0] !== start || this.#range[1] !== end) this.#options.rendered?.();
    this.#measureSoon();
  }

  /** Once the rows in view painted, adds the overscan a step a task (each step renders a few rows). */
  #growOverscan(): void {
    if (this.#growing || this.#overscan >= OVERSCAN_PX || this.#items.length <= RENDER_ALL || !this.#list?.clientHeight)
      return;
    this.#growing = true;
    // A frame, then a task: the step comes after the paint of what is there.
    requestAnimationFrame(() =>
      setTimeout(() => {
        this.#growing = false;
        this.#overscan = Math.min(OVERSCAN_PX, this.#overscan + OVERSCAN_STEP_PX);
        this.#reflow();
      }),
    );
  }
}

/**
 * `${virtualList(messages, (m) => m.key, (m) => renderMessage(m, view), { followsEnd, rendered })}` inside the
 * scrolling element (`VirtualListOptions`).
 */
export const virtualList = directive(VirtualList) as <T>(
  items: readonly T[],
  key: Key<T>,
  template: Template<T>,
  options?: VirtualListOptions,
) => DirectiveResult<typeof VirtualList>;
