import { Lexer, type Links, type Token } from 'marked';
import { markdown } from './marked.js';
import { type SanitizeOptions, sanitizeFragment } from './sanitize.js';

export interface StreamMarkdownOptions extends SanitizeOptions {
  /** Runs on every sanitized fragment before it is inserted (the element adds its copy buttons here). */
  decorate?: (fragment: DocumentFragment) => void;
  /**
   * Highlight the code blocks of a known language (```js, ```python, …) once they are final: settled, or at the
   * end of the turn; never the live tail while it grows. The highlighter loads when the first one comes.
   */
  highlight?: boolean;
  /**
   * While text streams in, the least milliseconds between two renders (a frame may come up to `FRAME_SLACK_MS`
   * early). 0, or none: the view catches up at every animation frame that follows new text.
   */
  interval?: number;
}

/**
 * Settled blocks go into boxes of about this much text (`<div class="settled">`, contained and skipped while off
 * screen: svc-markdown.styles.ts), so that the tail growing lays out and paints the tail, not the whole reply
 * (docs/performance.md, paced streaming). A box per block was slower: the browser's bookkeeping per box.
 */
const BOX_CHARS = 2000;
/** How much earlier than `interval` says a frame may render: frames do not come exactly on time. */
const FRAME_SLACK_MS = 4;
const BLANK_LINE_END = /\n[ \t]*\n$/;
const TAG = /<(\/?)([a-z][\w-]*)[^>]*>|<!--[\s\S]*?-->/gi;
const VOID_TAG = /^(?:area|base|br|col|embed|hr|img|input|link|meta|param|source|track|wbr)$/i;
/** What follows text added to a tail's HTML when only text was added: the rest of its text, then closing tags. */
const TEXT_THEN_CLOSING = /^([^<>"&]*)((?:<\/[a-z][a-z0-9]*>[^<>"&]*)*)$/i;
const CLOSING_TAG = /<\/([a-z][a-z0-9]*)>([^<>"&]*)/gi;
/** The characters marked escapes in text, as the browser reads them back. */
const ESCAPED = /&(?:amp|lt|gt|quot|#39);/g;
const UNESCAPED: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

/**
 * Renders markdown that arrives in pieces, at a cost linear in its length (design.md "Streaming markdown").
 * Only the unsettled tail is lexed again; a block is settled once it ends with a blank line and two more
 * blocks follow it, and is then rendered, sanitized and appended once, into a box of settled blocks. After
 * every render the content of `target`, those boxes unwrapped, equals the sanitized rendering of the whole text
 * so far; a text rendered whole (`replace`, `renderAll`) has no boxes.
 */
export class StreamMarkdown {
  /**
   * The text, in two parts: settled and the live tail. Apart, so that a render reads the tail alone: a slice of
   * the whole text would copy all of it (a string grown by `+=` is flattened when read), at every render of a
   * long reply.
   */
  #settled = '';
  #tail = '';
  /** The text ended with `\r`, so a `\n` opening the next piece belongs to the same line break. */
  #cr = false;
  /** How many child nodes of `target` come before the live tail. */
  #settledNodes = 0;
  /** Link definitions in the settled text, which the tail's references may use. */
  #links: Links = {};
  /** Link definitions (label → target) known when the settled text was rendered; a new or changed one may
   * change how it renders. */
  #seen = '';
  /** Whether the settled text could hold a reference (`[…]`) at all. */
  #settledHasBrackets = false;
  /**
   * Raw HTML was rendered in a part that does not start the text. Parsed on its own, such a part can differ
   * from the same markup within the whole text (a leading comment or `<script>` goes to the document's head
   * and takes the whitespace after it along), so the end of the turn renders the whole text again. Markdown
   * without raw HTML renders as balanced elements that parse alike in parts and whole.
   */
  #htmlAfterStart = false;
  #frame = 0;
  /** The time of the frame the view last caught up in. */
  #renderedAt = -Infinity;
  /** The box settled blocks are appended to, and how much text it holds. */
  #box?: HTMLElement;
  #boxChars = 0;
  /** The HTML of the live tail as it is in `target` while it grows (not final), for `insertText`. */
  #tailHtml?: string;

  constructor(
    readonly target: HTMLElement,
    readonly options: StreamMarkdownOptions = {},
  ) {}

  /** The whole text received so far. */
  get text(): string {
    return this.#settled + this.#tail;
  }

  /**
   * Adds a piece of text; the view catches up at the next animation frame, or, when it caught up less than
   * `options.interval` ago, at the first frame after that.
   */
  push(delta: string): void {
    if (!delta) return;
    const text = delta.replace(/\r\n?/g, '\n');
    this.#tail += this.#cr && delta[0] === '\n' ? text.slice(1) : text;
    this.#cr = delta.endsWith('\r');
    this.#frame ||= requestAnimationFrame(this.#onFrame);
  }

  readonly #onFrame = (now: number): void => {
    if (now - this.#renderedAt < (this.options.interval ?? 0) - FRAME_SLACK_MS) {
      this.#frame = requestAnimationFrame(this.#onFrame);
      return;
    }
    this.#renderedAt = now;
    this.flush();
  };

  /** Renders what has arrived now instead of at the next frame. */
  flush(): void {
    this.#render(true);
  }

  /**
   * Ends the turn: the content now equals the whole rendering. Only the tail is rendered, since every
   * render applies link definitions that came late (a 60 KB reply rendered whole again was a 60 ms task
   * at the end of every long turn); the whole text is rendered again only after raw HTML in a later part.
   */
  finish(): void {
    this.#render(false, true);
  }

  /** Renders the whole text again, as when options that change every block (the image hosts) changed. */
  renderAll(): void {
    this.#reset();
    this.#render(false);
  }

  /** Replaces the text and renders it whole. */
  replace(text: string): void {
    this.#settled = this.#tail = '';
    this.#cr = false;
    this.push(text);
    this.renderAll();
  }

  #reset(): void {
    this.#tail = this.#settled + this.#tail;
    this.#settled = '';
    this.#settledNodes = 0;
    this.#links = {};
    this.#seen = '';
    this.#settledHasBrackets = false;
    this.#htmlAfterStart = false;
    this.#box = undefined;
    this.#boxChars = 0;
    this.#tailHtml = undefined;
  }

  /** Renders the tail, settling what it can (`settle`); `exact`: the parts must equal the whole rendering. */
  #render(settle: boolean, exact = false): void {
    cancelAnimationFrame(this.#frame);
    this.#frame = 0;
    const lexer = new Lexer(markdown.defaults);
    Object.assign(lexer.tokens.links, this.#links);
    const tokens = lexer.lex(this.#tail);
    const seen = JSON.stringify(lexer.tokens.links);
    if (!this.#settledHasBrackets) this.#seen = seen;
    else if (seen !== this.#seen) {
      // A definition arrived (or grew) that settled text may reference: render everything again.
      this.#reset();
      this.#render(settle);
      return;
    }
    const html = hasHtml(tokens);
    if (exact && this.#settled && (this.#htmlAfterStart || html)) {
      this.renderAll();
      return;
    }
    const { target } = this;
    const count = settle ? settledCount(tokens) : 0;
    const tail = markdown.parser(tokens.slice(count));
    // Most deltas only add words to the tail's last text: that text is added to its node, rather than the tail
    // parsed, sanitized and laid out anew (a third of a frame's script, docs/performance.md). Not when the tail
    // holds raw HTML, whose sanitizing can depend on text (a `<` in code is text, and marked escapes it).
    const tailHtml = this.#tailHtml;
    this.#tailHtml = settle && !html ? tail : undefined;
    if (!count && tailHtml && this.#tailHtml && insertText(target, tailHtml, tail)) return;
    while (target.childNodes.length > this.#settledNodes) target.lastChild!.remove();
    if (count) {
      const settled = tokens.slice(0, count);
      markdown.walkTokens(settled, (token) => {
        if (token.type === 'def') this.#links[token.tag] ??= { href: token.href, title: token.title };
        else if (token.type === 'html' && this.#settled) this.#htmlAfterStart = true;
      });
      let end = 0;
      for (const token of settled) {
        end += token.raw.length;
        this.#settledHasBrackets ||= token.raw.includes(']');
      }
      this.#settled += this.#tail.slice(0, end);
      this.#tail = this.#tail.slice(end);
      if (!this.#box || this.#boxChars >= BOX_CHARS) {
        this.#box = document.createElement('div');
        this.#box.className = 'settled';
        this.#boxChars = 0;
        target.append(this.#box);
      }
      this.#boxChars += end;
      this.#box.append(this.#fragment(markdown.parser(settled), true));
      this.#settledNodes = target.childNodes.length;
    }
    // The tail is final when nothing is settling (the end of the turn, a text rendered whole).
    target.append(this.#fragment(tail, !settle));
  }

  #fragment(html: string, final: boolean): DocumentFragment {
    const fragment = sanitizeFragment(html, this.options);
    this.options.decorate?.(fragment);
    if (final && this.options.highlight) highlightBlocks(fragment);
    return fragment;
  }
}

/**
 * Renders a small text unseen, when the engine arrives (while the page is idle): the first text the engine
 * renders compiles marked's rules and sets up the sanitizer, which made the first rows of an opened conversation
 * one long task (docs/performance.md, long conversations).
 */
export function warmUp(): void {
  new StreamMarkdown(document.createElement('div')).replace(
    '# a\n\n**b** *c* `d` [e](https://example.com)\n\n- f\n\n1. g\n\n> h\n\n```\ni\n```\n\n| j |\n| - |\n| k |\n',
  );
}

type Highlighter = typeof import('./highlight.js');
let highlighter: Highlighter | undefined;
let loadingHighlighter: Promise<Highlighter> | undefined;

/**
 * Highlights the code blocks that name a language, now if the highlighter is here, else once it has loaded (a
 * module of its own: `svc-chat-highlight.js` in the script-tag files). If it cannot load, code stays plain and
 * the next code block tries again.
 */
function highlightBlocks(root: ParentNode): void {
  const blocks = [...root.querySelectorAll('pre > code[class*="language-"]')];
  if (!blocks.length) return;
  if (highlighter) {
    for (const code of blocks) highlightBlock(highlighter, code);
    return;
  }
  loadingHighlighter ??= import('./highlight.js');
  loadingHighlighter.then(
    (loaded) => {
      highlighter = loaded;
      for (const code of blocks) highlightBlock(loaded, code);
    },
    (error: unknown) => {
      loadingHighlighter = undefined;
      console.error('svc-markdown: the code highlighter did not load, so code shows plain', error);
    },
  );
}

/**
 * The code's text as highlighted HTML, through the same sanitizer as everything else; kept only if its text is
 * the code's text (the copy button copies `textContent`, and hostile code must stay text).
 */
function highlightBlock({ language, highlight }: Highlighter, code: Element): void {
  const name = language(/\blanguage-(\S+)/.exec(code.className)?.[1] ?? '');
  const text = code.textContent ?? '';
  if (!name || !text) return;
  const fragment = sanitizeFragment(highlight(text, name));
  if (fragment.textContent === text) code.replaceChildren(fragment);
}

/**
 * Changes the rendering of `before` in `target` into that of `after` when `after` only adds text: the added text
 * goes into the text node (or between the elements) where it belongs, found by walking back from the end of
 * `target` over the closing tags that follow it. False, with nothing changed, when `after` adds more than text
 * or `target` does not end as `before` does.
 */
function insertText(target: Element, before: string, after: string): boolean {
  if (after === before) return true; // White space that changes nothing yet, or the start of a marker.
  let common = 0;
  while (common < before.length && before.charCodeAt(common) === after.charCodeAt(common)) common++;
  const rest = before.slice(common);
  const added = after.slice(common, after.length - rest.length);
  const shape = TEXT_THEN_CLOSING.exec(rest);
  const inEntity = after.lastIndexOf('&', common - 1) > after.lastIndexOf(';', common - 1);
  if (!added || inEntity || !after.endsWith(rest) || /[<>"&]/.test(added.replace(ESCAPED, '')) || !shape) {
    return false;
  }
  const text = added.replace(ESCAPED, (escaped) => UNESCAPED[escaped]!);
  // The insertion point: before `next` in `parent` (at its end when `next` is null).
  let parent: Element = target;
  let next = null as ChildNode | null;
  for (const [, tag, text] of [...shape[2].matchAll(CLOSING_TAG)].reverse()) {
    let node = next ? next.previousSibling : parent.lastChild;
    if (text) {
      if (!(node instanceof Text) || node.data !== text) return false;
      next = node;
      node = node.previousSibling;
    }
    if (!(node instanceof Element) || node.localName !== tag.toLowerCase()) return false;
    parent = node;
    next = null;
  }
  const lead = shape[1];
  const node = next ? next.previousSibling : parent.lastChild;
  if (node instanceof Text && node.data.endsWith(lead)) node.insertData(node.data.length - lead.length, text);
  else if (lead) return false;
  else parent.insertBefore(document.createTextNode(text), next);
  return true;
}

/** Whether any of the tokens, or a token inside them, is raw HTML. */
function hasHtml(tokens: Token[]): boolean {
  let found = false;
  markdown.walkTokens(tokens, (token) => {
    found ||= token.type === 'html';
  });
  return found;
}

/**
 * How many leading tokens are settled. The cut goes after a blank line with two more blocks after it
 * (shorter rules break: `2` is a paragraph, `2.` a list item) and where no raw HTML element is left open,
 * since an open one would take in the blocks after it in the whole rendering.
 */
function settledCount(tokens: Token[]): number {
  const blocks = tokens.flatMap((token, index) => (token.type === 'space' ? [] : [index]));
  const open: string[] = [];
  let count = 0;
  for (let b = 0; b + 2 < blocks.length; b++) {
    if (!trackHtml(tokens[blocks[b]], open)) break;
    const raw = tokens.slice(blocks[b], blocks[b + 1]).reduce((text, token) => text + token.raw, '');
    if (!open.length && BLANK_LINE_END.test(raw)) count = blocks[b + 1];
  }
  return count;
}

/**
 * Follows the raw HTML tags of a block on the stack of open elements. False when a tag closes another than
 * the innermost open one: the browser's repair of misnested tags can reach into later blocks.
 */
function trackHtml(block: Token, open: string[]): boolean {
  let nested = true;
  markdown.walkTokens([block], (token) => {
    if (token.type !== 'html') return;
    for (const [, close, tag] of token.text.matchAll(TAG)) {
      const name = tag?.toLowerCase();
      if (!name || VOID_TAG.test(name)) continue;
      if (!close) open.push(name);
      // A stray end tag with nothing open is ignored by the browser (or makes an empty element).
      else if (open.length && open.pop() !== name) nested = false;
    }
  });
  return nested;
}
