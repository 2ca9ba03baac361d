import { expect, fixture, html } from '@open-wc/testing';
import '../../../src/elements/svc-chat/svc-chat.js';
import { ChatClient } from '../../../src/client/chat.js';
import type { SvcChat } from '../../../src/elements/svc-chat/svc-chat.js';
import en from '../../../src/labels/en.js';
import { part, parts } from '../../cards/helpers.js';
import { mintVisitorSession, service, until } from '../../helpers/browser-service.js';
import { chatReady } from '../../helpers/chat-ready.js';

/** Whether `row` is wholly within the list's view. */
function inView(row: Element, list: Element): boolean {
  const shown = list.getBoundingClientRect();
  const { top, bottom } = row.getBoundingClientRect();
  return top >= shown.top - 1 && bottom <= shown.bottom + 1;
}

describe("the page's send()", () => {
  it('brings the message into view after a long reply, also when it waits offline', async () => {
    const { url } = await service();
    const { token } = await mintVisitorSession();
    // The network between the chat and the service: a fetch that fails as a dropped connection does.
    let offline = false;
    const gated: typeof fetch = (input, init) =>
      offline ? Promise.reject(new TypeError('Failed to fetch')) : fetch(input, init);
    const client = { chat: new ChatClient({ baseUrl: url, apiKey: token, fetch: gated }) };
    const el = await fixture<SvcChat>(html`<div style="height: 560px"><svc-chat .client=${client}
      agent-ids="agent_aria" lang="en"></svc-chat></div>`).then((d) => chatReady(d.querySelector('svc-chat')!));
    const list = part(el, 'messages')!;
    // A reply longer than the view: the chat stops at its question, so the reply reads from its start.
    const done = new Promise((ended) => el.addEventListener('svc-turn-complete', ended, { once: true }));
    await el.send('/markdown');
    await done;
    const question = parts(el, 'message-user')[0]!;
    await until(() => inView(question, list), 'the question in view, the reply below it');
    expect(list.scrollTop, 'not at the end').to.be.below(list.scrollHeight - list.clientHeight - 100);

    // The page sends for the visitor (an "Ask about this" button), the service out of reach: the message waits.
    offline = true;
    await el.send('one');
    const waiting = await until(
      () => parts(el, 'message-user').find((m) => m.textContent?.includes(en.chat.waitingToSend)),
      'the message waiting to send',
    );
    await until(() => inView(waiting, list), 'the waiting message in view');
  });
});
