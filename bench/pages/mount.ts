import '../../src/elements.js';
import type { ChatClient } from '../../src/client/chat.js';
import type { SvcChat } from '../../src/elements/svc-chat/svc-chat.js';
import { loadMarkdownEngine } from '../../src/elements/svc-markdown/engine.js';
import type { FakeChatApi } from '../../test/helpers/fake-chat-api.js';
import { until } from '../../test/helpers/until.js';

/** A fresh `<svc-chat>` showing the fake conversation; resolves once its history is on screen. */
export async function mountChat(api: FakeChatApi, height = '680px'): Promise<SvcChat> {
  // The markdown engine is there before: a page's chat fetches it while idle, and these benchmarks measure
  // rendering, not a download (bench/startup.ts measures loading).
  await loadMarkdownEngine();
  document.querySelector('svc-chat')?.remove();
  const chat = document.createElement('svc-chat');
  chat.style.height = height;
  chat.style.display = 'block';
  chat.client = { chat: api as unknown as ChatClient };
  chat.conversationId = 'c_bench';
  document.body.append(chat);
  await until(
    () =>
      !conversationOf(chat)?.querySelector('.history-note') && conversationOf(chat)?.querySelector('[part~=message]'),
    'the history on screen',
  );
  await frames(2);
  return chat;
}

/** Where the chat's conversation renders: its panel's shadow root, once the panel has arrived. */
export const conversationOf = (chat: SvcChat | null): ShadowRoot | null | undefined =>
  chat?.renderRoot.querySelector('svc-chat-panel')?.shadowRoot;

export function frames(count: number): Promise<void> {
  return new Promise((done) => {
    const step = (left: number) => (left ? requestAnimationFrame(() => step(left - 1)) : done());
    step(count);
  });
}

/** Every element in the document, shadow trees included. */
export function countElements(root: Document | ShadowRoot = document): number {
  let count = 0;
  for (const element of root.querySelectorAll('*')) {
    count++;
    if (element.shadowRoot) count += countElements(element.shadowRoot);
  }
  return count;
}
