import { markdown } from './marked.js';

/**
 * The words of a markdown text as its rendered reply reads, on one line: no `**`, `#` or link syntax, entities
 * as the characters they stand for, blocks apart by a space (a preview of a conversation in the list). The
 * HTML is parsed into an inert document (`DOMParser`: no script runs, nothing loads) only to read its text,
 * which is shown as text.
 */
export function plainText(text: string): string {
  const html = markdown.parse(text, { async: false });
  return (new DOMParser().parseFromString(html, 'text/html').body.textContent ?? '').replace(/\s+/g, ' ').trim();
}
