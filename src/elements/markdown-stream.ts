import { nothing } from 'lit';
import { Directive, directive, type ElementPart, type PartInfo, PartType } from 'lit/directive.js';
import type { SvcMarkdown } from './svc-markdown.js';

/**
 * Feeds a message's text into its `<svc-markdown>`: while the reply streams, only the new text is appended
 * (linear work in the reply's length); when it ends, the final text is rendered whole once.
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
      element.append(text.slice(this.#fed));
    } else if (this.#streaming && text === element.text) {
      // The final record repeats what streamed in: one full render settles it (late link definitions).
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
