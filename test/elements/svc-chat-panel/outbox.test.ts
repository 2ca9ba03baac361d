import { expect, fixture, html } from '@open-wc/testing';
import '../../../src/elements/svc-chat/svc-chat.js';
import { ChatClient } from '../../../src/client/chat.js';
import type { SvcChat } from '../../../src/elements/svc-chat/svc-chat.js';
import en from '../../../src/labels/en.js';
import { part, parts } from '../../cards/helpers.js';
import { mintVisitorSession, service, until } from '../../helpers/browser-service.js';
import { chatReady } from '../../helpers/chat-ready.js';

describe('the outbox', () => {
  it('keeps messages sent while the service is not reached, and sends them by itself once, in order, when back online', async () => {
    const { url } = await service();
    const { token } = await mintVisitorSession();
    // The network between the chat and the service: a fetch that fails as a dropped connection does.
    let offline = false;
    const sends: string[] = [];
    const gated: typeof fetch = (input, init) => {
      if (offline) return Promise.reject(new TypeError('Failed to fetch'));
      if (String(input).endsWith('/conversations/send')) sends.push(JSON.parse(String(init?.body)).message);
      return fetch(input, init);
    };
    const client = { chat: new ChatClient({ baseUrl: url, apiKey: token, fetch: gated }) };
    const el = await fixture<SvcChat>(html`<div style="height: 560px"><svc-chat .client=${client}
      agent-ids="agent_echo" lang="en"></svc-chat></div>`).then((d) => chatReady(d.querySelector('svc-chat')!));
    await el.send('hello');
    await until(() => parts(el, 'message-agent').length === 1, 'the first reply');

    offline = true;
    await el.send('one');
    await el.send('two');
    const waiting = () =>
      parts(el, 'message-user').filter((m) => m.textContent?.includes(en.chat.waitingToSend)).length;
    await until(() => waiting() === 2, 'both shown as waiting');

    expect(sends).to.deep.equal(['hello'], 'nothing went while offline');

    offline = false;
    dispatchEvent(new Event('online'));
    await until(() => parts(el, 'message-agent').length === 3, 'both replies');
    expect(waiting()).to.equal(0);
    expect(sends).to.deep.equal(['hello', 'one', 'two'], 'each sent once, in order');
    const history = await client.chat.messages(el.shadowRoot ? await conversationOf(el) : '');
    const asked = history.entries
      .filter((r) => r.raw.type === 'user')
      .map((r) => (r.raw.type === 'user' ? r.raw.message.content[0]?.text : ''));
    expect(asked).to.deep.equal(['hello', 'one', 'two']);
    expect(part(el, 'notice')).to.equal(null);
  });

  it('with persist, keeps the outbox across a reload: the next page sends it by itself, once, in order, under the first keys', async () => {
    const { url } = await service();
    const { token } = await mintVisitorSession();
    let offline = false;
    const tries: { message: string; key: string | null; sent: boolean }[] = [];
    const gated: typeof fetch = (input, init) => {
      if (String(input).endsWith('/conversations/send')) {
        const { message } = JSON.parse(String(init?.body));
        tries.push({ message, key: new Headers(init?.headers).get('idempotency-key'), sent: !offline });
      }
      if (offline) return Promise.reject(new TypeError('Failed to fetch'));
      return fetch(input, init);
    };
    const persist = `outbox-${Math.random()}`;
    const page = async () => {
      const client = { chat: new ChatClient({ baseUrl: url, apiKey: token, fetch: gated }) };
      const host = await fixture(html`<div style="height: 560px"><svc-chat .client=${client} persist=${persist}
        agent-ids="agent_echo" lang="en"></svc-chat></div>`);
      return { host, el: await chatReady(host.querySelector<SvcChat>('svc-chat')!), client };
    };
    const first = await page();
    await first.el.send('hello');
    await until(() => parts(first.el, 'message-agent').length === 1, 'the first reply');
    offline = true;
    await first.el.send('one');
    await first.el.send('two');
    const waiting = (el: SvcChat) =>
      parts(el, 'message-user').filter((m) => m.textContent?.includes(en.chat.waitingToSend)).length;
    await until(() => waiting(first.el) === 2, 'both shown as waiting');

    // The page goes away with the service still out of reach; the next one finds it back.
    first.host.remove();
    offline = false;
    const next = await page();
    await until(() => parts(next.el, 'message-agent').length === 3, 'both replies on the next page');
    expect(waiting(next.el)).to.equal(0);
    const sent = tries.filter((t) => t.sent);
    expect(sent.map((t) => t.message)).to.deep.equal(['hello', 'one', 'two'], 'each sent once, in order');
    const firstTry = (message: string) => tries.find((t) => t.message === message)!.key;
    expect(sent[1]!.key).to.equal(firstTry('one'));
    expect(sent[2]!.key).to.equal(firstTry('two'));
    const history = await next.client.chat.messages(conversationOf(next.el));
    const asked = history.entries
      .filter((r) => r.raw.type === 'user')
      .map((r) => (r.raw.type === 'user' ? r.raw.message.content[0]?.text : ''));
    expect(asked).to.deep.equal(['hello', 'one', 'two']);
  });
});

/** The conversation the chat shows: its panel's store's. */
function conversationOf(el: SvcChat): string {
  const panel = el.shadowRoot!.querySelector('svc-chat-panel')!;
  return panel.store!.conversationId!;
}
