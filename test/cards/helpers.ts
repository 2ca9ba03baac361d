import { fixture, html } from '@open-wc/testing';
import { SvcClient } from '../../src/client/client.js';
import type { ChatStreamRecord } from '../../src/protocol/record-types.js';
import '../../src/elements/svc-chat/svc-chat.js';
import type { SvcChat } from '../../src/elements/svc-chat/svc-chat.js';
import { mintVisitorSession, service, until } from '../helpers/browser-service.js';
import { allInShadow, inShadow, part, parts } from '../helpers/chat-parts.js';
import { chatReady } from '../helpers/chat-ready.js';

export { inShadow, part, parts };

/** A visitor's client of the demo workspace, as a page would hold it with a minted session token. */
export async function visitorClient(): Promise<SvcClient> {
  const { url } = await service();
  const { token } = await mintVisitorSession();
  return new SvcClient({ baseUrl: url, apiKey: token });
}

/** Runs a turn in a new conversation with `agentId` and returns its records. */
export async function turn(client: SvcClient, message: string, agentId = 'agent_aria') {
  const result = await client.sendMessage(message, { targetAgentIds: [agentId], newConversation: true });
  return { conversationId: result.conversationId, records: result.records as ChatStreamRecord[] };
}

/** Reads the conversation's records after `after` from its stream until one is `wanted`, and returns it. */
export async function recordAfter(
  client: SvcClient,
  conversationId: string,
  after: ChatStreamRecord,
  wanted: (record: ChatStreamRecord) => boolean,
): Promise<ChatStreamRecord> {
  for await (const record of client.chat.stream(conversationId, { lastEventId: after.id })) {
    if (wanted(record)) return record;
  }
  throw new Error('the stream ended');
}

/** An inline `<svc-chat>` of a fresh visitor with the demo agent `agent`. */
export async function chat(
  attrs: { agent?: string; conversationId?: string; token?: string; showThinking?: boolean; accept?: string } = {},
): Promise<SvcChat> {
  const { url } = await service();
  const token = attrs.token ?? (await mintVisitorSession()).token;
  const div = await fixture<HTMLDivElement>(html`<div style="height: 700px">
    <svc-chat base-url=${url} token=${token} agent-ids=${attrs.agent ?? 'agent_aria'} lang="en"
      conversation-id=${attrs.conversationId ?? ''} ?show-thinking=${!!attrs.showThinking}
      accept=${attrs.accept ?? ''}></svc-chat>
  </div>`);
  return chatReady(div.querySelector('svc-chat')!);
}

/**
 * Resolves once the chat's reply has ended (its send button is back). The chat renders first: right after a
 * send, the send button of the render before it is still there.
 */
export async function idle(el: SvcChat): Promise<void> {
  await el.updateComplete;
  await until(() => part(el, 'send-button'), 'the reply to end');
}

/** The terms and descriptions of a summary (`<dl>`), in order. */
export const summary = (root: Element) =>
  [...(part(root, 'summary')?.querySelectorAll('dt, dd') ?? [])].map((item) => item.textContent?.trim());

/** Sends `text` from the chat's composer, as a visitor would. */
export function typeAndSend(el: SvcChat, text: string): void {
  const input = part<HTMLTextAreaElement>(el, 'input')!;
  input.value = text;
  input.dispatchEvent(new Event('input'));
  part<HTMLFormElement>(el, 'composer')!.requestSubmit();
}

/** Waits for the chat to render an element matching `selector` (the last one) in its shadow root. */
export function waitFor<T extends Element>(el: Element, selector: string, what = selector): Promise<T> {
  return until(() => allInShadow<T>(el, selector).at(-1), what);
}

/** Captures `window.open` calls instead of opening popups; `restore` puts the real one back. */
export function stubWindowOpen() {
  const urls: string[] = [];
  const real = window.open;
  window.open = ((url?: string | URL) => {
    urls.push(String(url));
    return null;
  }) as typeof window.open;
  return { urls, restore: () => (window.open = real) };
}

/** A user's click on the pay page's Pay button: its form posts from the pay page's own origin (a 303 to the page). */
export async function payOnPayPage(payUrl: string): Promise<void> {
  const { status } = await (await fetch(`/__svc/pay?url=${encodeURIComponent(payUrl)}`)).json();
  if (status !== 303) throw new Error(`pay page answered ${status}`);
}

/** Sets a form control's value as typing would. */
export function fill(root: Element, name: string, value: string): void {
  const control = root.shadowRoot!.querySelector<HTMLInputElement>(`[name="${name}"]`)!;
  control.value = value;
  control.dispatchEvent(new Event('input', { bubbles: true }));
}
