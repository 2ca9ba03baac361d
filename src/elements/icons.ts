import { svg } from 'lit';

const icon = (body: ReturnType<typeof svg>) =>
  svg`<svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true">${body}</svg>`;

/** The few icons the chat draws, inline so the widget needs no assets. */
export const icons = {
  chat: icon(svg`<path d="M21 12a8 8 0 0 1-11.6 7.1L4 20l1-4.6A8 8 0 1 1 21 12Z"/>`),
  close: icon(svg`<path d="M6 6l12 12M18 6 6 18"/>`),
  plus: icon(svg`<path d="M12 5v14M5 12h14"/>`),
  send: icon(svg`<path d="M5 12h13M13 6l6 6-6 6"/>`),
  stop: icon(svg`<rect x="7" y="7" width="10" height="10" rx="1.5" fill="currentColor" stroke="none"/>`),
  file: icon(svg`<path d="M14 3H7a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2V8z"/><path d="M14 3v5h5"/>`),
};
