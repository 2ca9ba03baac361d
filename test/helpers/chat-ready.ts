import type { SvcChat } from '../../src/elements/svc-chat/svc-chat.js';

/**
 * `el` once it shows what it will show: the chat's panel loads apart (`load-panel.ts`), and `updateComplete`
 * waits for it where it is to be seen (inline, or open). A fixture of a wrapper element does not wait for it.
 */
export async function chatReady<T extends SvcChat | null>(el: T): Promise<T> {
  await el?.updateComplete;
  return el;
}
