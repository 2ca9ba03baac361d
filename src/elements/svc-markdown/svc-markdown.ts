import type { PropertyValues } from 'lit';
import { hostList, imageAllowed } from '../../internal/safe-url.js';
import { SvcElement } from '../../internal/svc-element.js';
import { loadMarkdownEngine, markdownEngine } from './engine.js';
import type { StreamMarkdown, StreamMarkdownOptions } from './stream-markdown.js';
import styles from './svc-markdown.styles.js';

/**
 * @summary Renders markdown from an agent or a user safely: sanitized, links open in a new tab, and a reply
 * that streams in is rendered in time linear in its length.
 *
 * Set `text` to render a whole text, or feed a streaming reply with `appendText(delta)` and end it with `finish()`.
 * Under a Trusted Types policy, allow the policy names `dompurify` and `lit-html`.
 *
 * The renderer (marked and DOMPurify) loads on first use, in a module of its own; until it arrives, and if it
 * cannot load, the text shows as plain text. `updateComplete` waits for it.
 *
 * @csspart base - The rendered content.
 * @csspart copy - The copy button above each code block.
 *
 * @cssprop --svc-color-text - Text color.
 * @cssprop --svc-color-muted - Blockquotes and the copy button.
 * @cssprop --svc-color-link - Links.
 * @cssprop --svc-color-code-bg - Background of code and table headers.
 * @cssprop --svc-color-border - Table, rule, blockquote and button borders.
 * @cssprop --svc-font-mono - Font of code.
 * @cssprop --svc-radius-s - Corner radius of code blocks and the copy button.
 *
 * @fires svc-copy - A code block was copied to the clipboard; `detail: { text }`.
 */
export class SvcMarkdown extends SvcElement {
  static override styles = styles;

  static override properties = {
    text: { attribute: false, noAccessor: true },
    streaming: { type: Boolean, reflect: true },
    imageHosts: {
      attribute: 'image-hosts',
      noAccessor: true,
      converter: hostList,
    },
    copyLabel: { attribute: 'copy-label' },
    copiedLabel: { attribute: 'copied-label' },
    throttle: { type: Number },
  };

  /** True while a reply streams in (between the first `appendText` and `finish`). Reflected as `streaming`. */
  streaming = false;
  /** Label of the copy buttons. */
  copyLabel = 'Copy';
  /** Label a copy button shows for a moment after copying. */
  copiedLabel = 'Copied';
  /**
   * While text streams in, the least milliseconds between two renders; 0 renders at every animation frame. Each
   * render costs the page a frame's style, layout and paint however little it adds: the chat's replies render 30
   * times a second (docs/performance.md, paced streaming).
   */
  throttle = 0;

  #base = document.createElement('div');
  /** What `image-hosts` says, as set; the sanitizer asks `#options.imageAllowed` (the page's host always). */
  #imageHosts?: string[];
  #options: StreamMarkdownOptions = {
    decorate: (fragment) => this.#decorate(fragment),
    highlight: true,
    imageAllowed: (src) => imageAllowed(src, this.#imageHosts ?? []),
  };
  #markdown: StreamMarkdown | PlainText = markdownEngine
    ? new markdownEngine.StreamMarkdown(this.#base, this.#options)
    : new PlainText(this.#base);

  constructor() {
    super();
    void this.#renderWhenEngineLoads();
    this.#base.part.add('base');
    this.#base.addEventListener('click', (event) => {
      const button = (event.target as Element).closest('button[part=copy]');
      if (button) this.#copy(button, button.nextElementSibling?.textContent ?? '');
    });
  }

  /** The whole markdown text. Setting it renders it whole; it also grows with `appendText`. */
  get text(): string {
    return this.#markdown.text;
  }

  set text(value: string) {
    this.streaming = false;
    this.#markdown.replace(value ?? '');
  }

  /** Adds streamed text; the view catches up at the next animation frame (or once `throttle` has passed). */
  appendText(delta: string): void {
    this.streaming = true;
    this.#markdown.push(delta);
  }

  /** Ends the stream: renders the rest of the text now instead of at the next frame. */
  finish(): void {
    this.streaming = false;
    this.#markdown.finish();
  }

  /** The rendered text as a screen reader should hear it in one go: without the copy buttons, spaces collapsed. */
  get plainText(): string {
    const texts = document.createTreeWalker(this.#base, NodeFilter.SHOW_TEXT);
    let text = '';
    for (let node = texts.nextNode(); node; node = texts.nextNode()) {
      if (!node.parentElement?.matches('[part=copy]')) text += (node as Text).data;
    }
    return text.replace(/\s+/g, ' ').trim();
  }

  /**
   * Hosts images may load from besides the page's own (attribute `image-hosts`, space or comma separated:
   * `host` on any port, `host:port`, or `*` for any host). Images from other hosts become links.
   */
  get imageHosts(): string[] | undefined {
    return this.#imageHosts;
  }

  // Applied at once, not at the next update: a template sets the attribute and then the text, and that first
  // rendering must not load (so leak to) an image from a host that is not allowed.
  set imageHosts(value: string[] | undefined) {
    const old = this.#imageHosts;
    // The chat sets a new list at every render (a Lit binding sets an array each time): the same hosts must not
    // render the whole text again at every streamed delta.
    if (old && value && old.length === value.length && old.every((host, i) => host === value[i])) return;
    this.#imageHosts = value;
    if (this.text) this.#markdown.renderAll();
    this.requestUpdate('imageHosts', old);
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('throttle')) this.#options.interval = this.throttle;
  }

  protected override render() {
    return this.#base;
  }

  /** Also waits for the markdown renderer, so that the content is rendered markdown once this resolves. */
  protected override async getUpdateComplete(): Promise<boolean> {
    const complete = await super.getUpdateComplete();
    await this.#renderWhenEngineLoads();
    return complete;
  }

  /**
   * Swaps the plain text for rendered markdown once the engine is there; a reply still streaming goes on
   * streaming into it. If the engine cannot load (the loader logs why), the plain text stays.
   */
  async #renderWhenEngineLoads(): Promise<void> {
    if (!(this.#markdown instanceof PlainText)) return;
    const engine = await loadMarkdownEngine().catch(() => undefined);
    if (!engine || !(this.#markdown instanceof PlainText)) return;
    const { text } = this.#markdown;
    this.#base.replaceChildren();
    this.#markdown = new engine.StreamMarkdown(this.#base, this.#options);
    if (text) this.#markdown.replace(text);
  }

  #decorate(fragment: DocumentFragment): void {
    // A code block or a table wider than the reply scrolls sideways: focusable, the keyboard can scroll it.
    for (const block of fragment.querySelectorAll('pre, table')) block.setAttribute('tabindex', '0');
    // Buttons are added as nodes after sanitizing: sanitized content has no buttons of its own.
    for (const pre of fragment.querySelectorAll('pre')) {
      const button = document.createElement('button');
      button.type = 'button';
      button.part.add('copy');
      button.textContent = this.copyLabel;
      pre.before(button);
    }
  }

  async #copy(button: Element, text: string): Promise<void> {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      return; // The browser refused (no permission or focus); the label stays "Copy".
    }
    button.textContent = this.copiedLabel;
    setTimeout(() => {
      button.textContent = this.copyLabel;
    }, 1500);
    this.emit('svc-copy', { text });
  }
}

/** The text as it is, until the markdown renderer arrives: content is never held back, and never parsed as HTML. */
class PlainText {
  text = '';
  #paragraph = document.createElement('p');

  constructor(readonly target: HTMLElement) {
    this.#paragraph.className = 'plain';
  }

  push(delta: string): void {
    if (!delta) return;
    this.text += delta;
    this.#paragraph.append(delta);
    if (!this.#paragraph.parentNode) this.target.append(this.#paragraph);
  }

  replace(text: string): void {
    this.text = '';
    this.#paragraph.replaceChildren();
    this.#paragraph.remove();
    this.push(text);
  }

  finish(): void {}
  renderAll(): void {}
}

SvcMarkdown.define('svc-markdown');

declare global {
  interface HTMLElementTagNameMap {
    'svc-markdown': SvcMarkdown;
  }
  interface GlobalEventHandlersEventMap {
    'svc-copy': CustomEvent<{ text: string }>;
  }
}
