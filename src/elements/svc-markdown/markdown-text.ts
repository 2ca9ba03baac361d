import { nothing } from 'lit';
import { Directive, directive, type ElementPart, type PartInfo, PartType } from 'lit/directive.js';
import type { SvcMarkdown } from './svc-markdown.js';

/**
 * Feeds a message's text into its `<svc-markdown>`: while the reply streams, only the new text is appended
 * (linear work in the reply's length); when it ends, only a final text that differs is rendered whole.
 */
class MarkdownText extends Directive {
  #fed = 0;
  #text?: string;
  #streaming = false;

  constructor(part: PartInfo) {
    super(part);
    if (part.type !== PartType.ELEMENT) throw new Error('markdownText() belongs on an element');
  }

  render(_text: string, _streaming: boolean) {
    return nothing;
  }

  override update(part: ElementPart, [text, streaming]: [string, boolean]) {
    const element = part.element as SvcMarkdown;
    if (text === this.#text && streaming === this.#streaming) return nothing;
    if (streaming && text.length >= this.#fed && (this.#streaming || this.#fed === 0)) {
      element.appendText(text.slice(this.#fed));
    } else if (this.#streaming && this.#text !== undefined && text.startsWith(this.#text)) {
      // The final text repeats what streamed in, and may end with deltas that came in the same network read:
      // only those are new, and the streamed rendering is finished instead of a 60 KB reply rendered again.
      if (text.length > this.#fed) element.appendText(text.slice(this.#fed));
      element.finish();
    } else {
      element.text = text;
    }
    this.#fed = text.length;
    this.#text = text;
    this.#streaming = streaming;
    return nothing;
  }
}

export const markdownText = directive(MarkdownText);
