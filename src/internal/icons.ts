import { svg } from 'lit';

export const icon = (body: ReturnType<typeof svg>) =>
  svg`<svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true">${body}</svg>`;

// The icons of the launcher and of the panel's frame, drawn before the panel has loaded (the conversation's
// are in content-icons.ts): inline, so the widget needs no assets.
export const chatIcon = icon(svg`<path d="M21 12a8 8 0 0 1-11.6 7.1L4 20l1-4.6A8 8 0 1 1 21 12Z"/>`);
export const closeIcon = icon(svg`<path d="M6 6l12 12M18 6 6 18"/>`);
export const sendIcon = icon(svg`<path d="M5 12h13M13 6l6 6-6 6"/>`);
