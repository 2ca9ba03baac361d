import { markdown } from '../../src/elements/svc-markdown/marked.js';
import { type SanitizeOptions, sanitizeFragment } from '../../src/elements/svc-markdown/sanitize.js';

/** Markdown to HTML, NOT sanitized: what the chat's marked instance makes (raw HTML, `javascript:` links kept). */
export function markdownToHtml(text: string): string {
  return markdown.parser(markdown.lexer(text));
}

/** Sanitized HTML as a string: the nodes the chat inserts (`sanitizeFragment`), written out. */
export function sanitizeHtml(html: string, options: SanitizeOptions = {}): string {
  // A `div` of this document: a template's content is another document, which each node would be adopted into.
  const holder = document.createElement('div');
  holder.append(sanitizeFragment(html, options));
  return holder.innerHTML;
}

/**
 * The HTML of a streamed rendering with its boxes of settled blocks unwrapped (`<div class="settled">`, which
 * `StreamMarkdown` adds for the browser's sake): what must equal the rendering of the whole text.
 */
export function unboxed(target: Element): string {
  if (!target.querySelector(':scope > .settled')) return target.innerHTML;
  const copy = target.cloneNode(true) as Element;
  for (const box of copy.querySelectorAll(':scope > .settled')) box.replaceWith(...box.childNodes);
  return copy.innerHTML;
}
