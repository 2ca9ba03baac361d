import { svg } from 'lit';
import { CLOSE_PATH, SEND_PATH } from './icon-paths.js';

export const icon = (body: ReturnType<typeof svg>) =>
  svg`<svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true">${body}</svg>`;

// Inline, so the widget needs no assets; the conversation's other icons are in content-icons.ts.
export const closeIcon = icon(svg`<path d=${CLOSE_PATH}></path>`);
export const sendIcon = icon(svg`<path d=${SEND_PATH}></path>`);
