import { svg } from 'lit';
import { icon } from './icons.js';

/**
 * The icons of the conversation: they load with the panel. Each element is closed by its end tag, not `/>`: the
 * build's HTML minifier drops the slash, which left every shape after the first inside it, undrawn (Copy was
 * one square, Read aloud a speaker without its waves).
 */
export const plusIcon = icon(svg`<path d="M12 5v14M5 12h14"></path>`);
/** Back to the conversation before: the arrow that points back (mirrored where text runs right to left). */
export const previousIcon = icon(svg`<path d="M19 12H5M12 19l-7-7 7-7"></path>`);
export const stopIcon = icon(
  svg`<rect x="7" y="7" width="10" height="10" rx="1.5" fill="currentColor" stroke="none"></rect>`,
);
export const fileIcon = icon(
  svg`<path d="M14 3H7a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2V8z"></path><path d="M14 3v5h5"></path>`,
);
export const paperclipIcon = icon(
  svg`<path d="m21 11-8.5 8.5a5 5 0 0 1-7-7L14 4a3.5 3.5 0 0 1 5 5l-8.5 8.5a2 2 0 0 1-3-3L15 7"></path>`,
);
export const downloadIcon = icon(svg`<path d="M12 4v11M7 10l5 5 5-5M5 20h14"></path>`);
export const speakerIcon = icon(
  svg`<path d="M4 9h4l5-4v14l-5-4H4z"></path><path d="M16.5 8.5a5 5 0 0 1 0 7M19 6a8.5 8.5 0 0 1 0 12"></path>`,
);
export const pauseIcon = icon(svg`<path d="M9 6v12M15 6v12"></path>`);
/** Copy: two sheets, one over the other, each drawn whole enough to read as a square at 18 px. */
export const copyIcon = icon(
  svg`<rect x="8" y="8" width="13" height="13" rx="2"></rect><path d="M16 4.5V4a2 2 0 0 0-2-2H5a2 2 0 0 0-2 2v9a2 2 0 0 0 2 2h.5"></path>`,
);
/** Copy as Markdown: the letter M with a down arrow, the Markdown mark. */
export const markdownIcon = icon(svg`<path d="M3 17V7l4.5 5L12 7v10M17 7v9M14 13l3 3 3-3"></path>`);
export const thumbUpIcon = icon(
  svg`<path d="M7 10v10H4V10zM7 10l4-7a2 2 0 0 1 3 2l-1 5h6a2 2 0 0 1 2 2.3l-1.3 6A2 2 0 0 1 17.7 20H7"></path>`,
);
export const thumbDownIcon = icon(
  svg`<path d="M7 14V4H4v10zM7 14l4 7a2 2 0 0 0 3-2l-1-5h6a2 2 0 0 0 2-2.3l-1.3-6A2 2 0 0 0 17.7 4H7"></path>`,
);
export const regenerateIcon = icon(
  svg`<path d="M20 12a8 8 0 1 1-2.3-5.7L20 8.6"></path><path d="M20 3v5.6h-5.6"></path>`,
);
export const editIcon = icon(
  svg`<path d="M4 20h4L19 9a2.8 2.8 0 0 0-4-4L4 16z"></path><path d="M13.5 6.5l4 4"></path>`,
);
/** The visitor's conversations: lines of a list. */
export const listIcon = icon(svg`<path d="M8 6h12M8 12h12M8 18h12M4 6h.01M4 12h.01M4 18h.01"></path>`);
