import { svg } from 'lit';
import { icon } from './icons.js';

/** The icons of the conversation: they load with the panel. */
export const plusIcon = icon(svg`<path d="M12 5v14M5 12h14"/>`);
/** Back to the conversation before: a clock turned back. */
export const previousIcon = icon(svg`<path d="M3 12a9 9 0 1 0 3-6.7L3 8"/><path d="M3 3v5h5M12 7v5l3 2"/>`);
export const stopIcon = icon(
  svg`<rect x="7" y="7" width="10" height="10" rx="1.5" fill="currentColor" stroke="none"/>`,
);
export const fileIcon = icon(
  svg`<path d="M14 3H7a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2V8z"/><path d="M14 3v5h5"/>`,
);
export const paperclipIcon = icon(
  svg`<path d="m21 11-8.5 8.5a5 5 0 0 1-7-7L14 4a3.5 3.5 0 0 1 5 5l-8.5 8.5a2 2 0 0 1-3-3L15 7"/>`,
);
export const downloadIcon = icon(svg`<path d="M12 4v11M7 10l5 5 5-5M5 20h14"/>`);
export const speakerIcon = icon(
  svg`<path d="M4 9h4l5-4v14l-5-4H4z"/><path d="M16.5 8.5a5 5 0 0 1 0 7M19 6a8.5 8.5 0 0 1 0 12"/>`,
);
export const pauseIcon = icon(svg`<path d="M9 6v12M15 6v12"/>`);
/** The visitor's conversations: lines of a list. */
export const listIcon = icon(svg`<path d="M8 6h12M8 12h12M8 18h12M4 6h.01M4 12h.01M4 18h.01"/>`);
