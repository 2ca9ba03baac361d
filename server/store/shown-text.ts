/**
 * The rules for the short texts the service stores to show (a conversation's title and a file's name on one
 * line, its preview in lines): what may reorder them, and whether anything in them can be seen at all.
 */

/** Characters that reorder the text around them: embeddings, overrides, isolates and direction marks. */
export const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Whitespace and the characters that draw nothing (zero-width spaces and joiners, fillers, selectors, tags…). */
const INVISIBLE = /^[\s\p{Default_Ignorable_Code_Point}]*$/u;

/** Whether `text` holds a character that can be seen. */
export const visible = (text: string) => !INVISIBLE.test(text);

/**
 * A text as one line of a list: its bidirectional controls removed (`\u202E` would show the rest of a row
 * backwards), whitespace runs as one space, trimmed; empty when nothing in it can be seen.
 */
export function oneLine(text: string): string {
  const line = text.replace(BIDI_CONTROLS, '').replace(/\s+/g, ' ').trim();
  return visible(line) ? line : '';
}

/**
 * A text as lines (a conversation's preview, which a client renders as markdown: a list item or a heading is
 * only one at the start of its line): each line as `oneLine` makes it, the lines with nothing in them left out.
 */
export function lines(text: string): string {
  return text
    .split(/\r\n?|\n/)
    .map(oneLine)
    .filter(Boolean)
    .join('\n');
}
