import { expect, fixture, html, nextFrame, oneEvent } from '@open-wc/testing';
import '../../../src/elements/svc-chat/svc-chat.js';
import { ChatClient } from '../../../src/client/chat.js';
import { HttpClient } from '../../../src/client/http.js';
import type { SvcChat } from '../../../src/elements/svc-chat/svc-chat.js';
import { EN_LABELS } from '../../../src/labels/en.js';
import { lastSmsCode, mintVisitorSession, service, until } from '../../helpers/browser-service.js';
import { belowView, inShadow, panelRoot, part, parts } from '../../helpers/chat-parts.js';
import { chatReady } from '../../helpers/chat-ready.js';
import { fakeChat } from '../../helpers/fake-chat.js';
import { FakeChatApi } from '../../helpers/fake-chat-api.js';
import { RecordWriter } from '../../helpers/records.js';

const agentTexts = (el: SvcChat) =>
  parts(el, 'message-agent').map((m) => m.querySelector('svc-markdown')?.shadowRoot?.textContent?.trim() ?? '');

async function chatWithToken(attrs: { agent?: string; mode?: string; height?: number } = {}): Promise<SvcChat> {
  const { url } = await service();
  const { token } = await mintVisitorSession();
  return fixture<SvcChat>(html`<div style="height: ${attrs.height ?? 600}px">
    <svc-chat base-url=${url} token=${token} agent-ids=${attrs.agent ?? 'agent_echo'} mode=${attrs.mode ?? 'inline'}></svc-chat>
  </div>`).then(async (div) => {
    const chat = div.querySelector('svc-chat')!;
    // Inline, the chat is complete once its panel (loaded apart) shows.
    await chat.updateComplete;
    return chat;
  });
}

/**
 * A chat with the echo agent of a fresh visitor whose requests go through `through` (a fetch that loses some),
 * never repeated by the client itself; with the visitor's session, to read what the service stored.
 */
async function chatThrough(through: typeof fetch) {
  const { url } = await service();
  const { token } = await mintVisitorSession();
  const client = {
    chat: new ChatClient(new HttpClient({ baseUrl: url, apiKey: token, fetch: through, maxRetries: 0 })),
  };
  const el = await fixture<SvcChat>(
    html`<div style="height: 600px"><svc-chat agent-ids="agent_echo" .client=${client}></svc-chat></div>`,
  ).then((d) => chatReady(d.querySelector('svc-chat')!));
  return { el, session: new ChatClient(new HttpClient({ baseUrl: url, apiKey: token })) };
}

function type(el: SvcChat, text: string, key: Partial<KeyboardEventInit> = { key: 'Enter' }) {
  const input = part<HTMLTextAreaElement>(el, 'input')!;
  input.value = text;
  input.dispatchEvent(new Event('input'));
  input.dispatchEvent(new KeyboardEvent('keydown', { bubbles: true, composed: true, cancelable: true, ...key }));
}

describe('<svc-chat>', () => {
  it('sends with Enter, shows the message at once and streams the rendered reply', async () => {
    const { url } = await service();
    const { token } = await mintVisitorSession();
    // The send waits until the test has looked: however fast the service answers, it is still being sent.
    let deliver!: () => void;
    const delivered = new Promise<void>((resolve) => {
      deliver = resolve;
    });
    const held: typeof fetch = async (input, init) => {
      if (String(input).endsWith('/conversations/send')) await delivered;
      return fetch(input, init);
    };
    const client = { chat: new ChatClient(new HttpClient({ baseUrl: url, apiKey: token, fetch: held })) };
    const el = await fixture<SvcChat>(
      html`<div style="height: 600px"><svc-chat agent-ids="agent_echo" .client=${client}></svc-chat></div>`,
    ).then((d) => d.querySelector('svc-chat')!);
    const sent = oneEvent(el, 'svc-message-sent');
    const complete = oneEvent(el, 'svc-turn-complete');
    type(el, 'hello **world**');
    // Optimistic: the user's message is there while it is still being sent.
    await until(() => parts(el, 'message-user').length, 'the message');
    expect(parts(el, 'message-user').map((m) => m.textContent?.trim())).to.deep.equal(['hello **world**']);
    expect(part(el, 'message-user')!.classList.contains('sending')).to.equal(true);
    expect(part<HTMLTextAreaElement>(el, 'input')!.value).to.equal('');
    deliver();
    const { detail } = await sent;
    expect(detail.text).to.equal('hello **world**');
    expect(detail.conversationId).to.match(/^c_/);
    const done = await complete;
    expect(done.detail.subtype).to.equal('success');
    await until(() => agentTexts(el)[0] === 'Echo: hello world', 'the echoed reply');
    // Markdown is rendered, not shown as asterisks.
    const markdown = part(el, 'message-agent')!.querySelector('svc-markdown')!;
    expect(markdown.shadowRoot!.querySelector('strong')?.textContent).to.equal('world');
    expect(part(el, 'name')?.textContent).to.equal('Echo');
  });

  it('tells svc-turn-complete once it shows the turn, also a whole turn that came in one network read', async () => {
    const api = new FakeChatApi();
    const el = await fakeChat(api, 'c_read', 600);
    // What a page that reads the chat when the turn ends finds there.
    const shown = new Promise<{ questions: (string | undefined)[]; replies: number }>((resolve) =>
      el.addEventListener(
        'svc-turn-complete',
        () =>
          resolve({
            questions: parts(el, 'message-user').map((m) => m.querySelector('[part~=bubble]')?.textContent?.trim()),
            replies: parts(el, 'message-agent').length,
          }),
        { once: true },
      ),
    );
    const writer = new RecordWriter('c_read');
    await api.deliver([writer.user('Hello there', 1), writer.reply('m_1', 'Hi, **you**.', 1), writer.result(1)], 3);
    expect(await shown).to.deep.equal({ questions: ['Hello there'], replies: 1 });
  });

  it('shows one avatar and name for a run of messages from the same agent', async () => {
    const el = await chatWithToken({ agent: 'agent_aria' });
    const complete = oneEvent(el, 'svc-turn-complete');
    await el.send('/file');
    await complete;
    await until(() => parts(el, 'message-agent').length === 3, 'the reply and its two files');
    expect(parts(el, 'avatar')).to.have.length(1);
    const names = parts(el, 'name');
    expect(names.map((n) => n.textContent)).to.deep.equal(['Aria', 'Aria', 'Aria']);
    expect(names.filter((n) => !n.classList.contains('visually-hidden'))).to.have.length(1);
    // A file's size reads as a person would say it.
    expect(panelRoot(el).textContent).to.match(/\d+ bytes/);
  });

  it('keeps Shift+Enter as a newline instead of sending', async () => {
    const el = await chatWithToken();
    type(el, 'first line', { key: 'Enter', shiftKey: true });
    expect(parts(el, 'message-user')).to.have.length(0);
  });

  it('shows a stop button while a reply runs, stops it, and can send again', async () => {
    const el = await chatWithToken({ agent: 'agent_aria' });
    type(el, '/slow 20');
    const stop = await until(() => part<HTMLButtonElement>(el, 'stop-button'), 'the stop button');
    await until(() => agentTexts(el)[0]?.length > 10, 'some streamed text');
    const complete = oneEvent(el, 'svc-turn-complete');
    stop.click();
    const { detail } = await complete;
    expect(detail.subtype).to.equal('interrupted');
    await until(() => part(el, 'send-button'), 'the send button back');
    expect(panelRoot(el).textContent).to.contain('Stopped.');
    const next = oneEvent(el, 'svc-turn-complete');
    type(el, '/help');
    expect((await next).detail.subtype).to.equal('success');
  });

  it('opens and closes as a launcher, with Escape, and counts unread replies', async () => {
    const el = await chatWithToken({ mode: 'launcher' });
    expect(part(el, 'panel')).to.equal(null);
    const launcher = part<HTMLButtonElement>(el, 'launcher')!;
    const opened = oneEvent(el, 'svc-open');
    launcher.click();
    await opened;
    // The panel renders in its own update, which the chat's `updateComplete` waits for.
    await el.updateComplete;
    expect(el.hasAttribute('open')).to.equal(true);
    expect(part(el, 'panel')!.getAttribute('role')).to.equal('dialog');

    const closed = oneEvent(el, 'svc-close');
    part(el, 'input')!.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, composed: true }));
    await closed;
    await el.updateComplete;
    expect(part(el, 'panel')).to.equal(null);
    expect(el.shadowRoot!.activeElement === part(el, 'launcher'), 'focus back on the launcher').to.equal(true);

    // A reply that completes while closed shows up as unread on the launcher.
    const complete = oneEvent(el, 'svc-turn-complete');
    await el.send('ping');
    await complete;
    await until(() => part(el, 'badge'), 'the unread badge');
    expect(part(el, 'badge')!.textContent).to.equal('1');
    el.open();
    await el.updateComplete;
    expect(part(el, 'badge')).to.equal(null);
  });

  it("shows the page's content in its slots: header buttons, and its own empty conversation instead of the label", async () => {
    const { url } = await service();
    const { token } = await mintVisitorSession();
    const withSlots = await fixture<HTMLDivElement>(html`<div style="height: 600px">
      <svc-chat base-url=${url} token=${token} agent-ids="agent_echo">
        <button slot="header-actions" id="help">Help</button>
        <p slot="empty" id="hello">Ask us anything.</p>
      </svc-chat>
    </div>`);
    const el = await chatReady(withSlots.querySelector('svc-chat')!);
    const slotted = (name: string) =>
      inShadow<HTMLSlotElement>(el, `[part~="${name === 'empty' ? 'empty' : 'header'}"] slot[name="${name}"]`)!
        .assignedElements({ flatten: true })
        .map((e) => e.id);
    await until(() => part(el, 'empty'), 'the empty conversation');
    expect(slotted('header-actions')).to.deep.equal(['help']);
    expect(slotted('empty')).to.deep.equal(['hello']);
    expect(part(el, 'empty')!.textContent).not.to.contain(EN_LABELS.empty);

    // Without content of the page's, the empty conversation says the label.
    const plain = await chatWithToken();
    await until(() => part(plain, 'empty'), 'the empty conversation');
    expect(part(plain, 'empty')!.textContent).to.contain(EN_LABELS.empty);
  });

  it('takes the properties a page set before it was defined, and the client it is given before its panel loads', async () => {
    const { url } = await service();
    const { token } = await mintVisitorSession();
    // An element of another document is not upgraded until it joins this one: its properties are plain ones
    // until then, as on a page that sets them before the script has run.
    const early = document.implementation.createHTMLDocument().createElement('svc-chat') as SvcChat;
    early.labels = { title: 'Aide', placeholder: 'Posez une question' };
    early.tokens = { colorPrimary: 'rgb(1, 2, 3)' };
    early.client = { chat: new ChatClient(new HttpClient({ baseUrl: url, apiKey: token })) };
    early.setAttribute('agent-ids', 'agent_echo');
    const ready = oneEvent(early, 'svc-ready');
    const div = await fixture<HTMLDivElement>(html`<div style="height: 600px"></div>`);
    div.append(early);
    const el = await chatReady(div.querySelector('svc-chat')!);
    expect(el).to.equal(early);
    expect(part(el, 'title')!.textContent).to.equal('Aide');
    expect(el.style.getPropertyValue('--svc-color-primary')).to.equal('rgb(1, 2, 3)');
    await ready;
    const input = await until(() => part<HTMLTextAreaElement>(el, 'input'), 'the composer');
    expect(input.placeholder).to.equal('Posez une question');
    const sent = oneEvent(el, 'svc-message-sent');
    type(el, 'bonjour');
    expect((await sent).detail.text).to.equal('bonjour');
  });

  it('refuses a workspace key with a clear message', async () => {
    const el = await fixture<SvcChat>(html`<svc-chat token="sk_live_secret"></svc-chat>`);
    expect(part(el, 'notice')!.textContent).to.contain('workspace API key must never be used in a browser');
    expect(part(el, 'input')).to.equal(null);
  });

  it('renews the token through its provider on a 401 without losing the conversation', async () => {
    const { url } = await service();
    const good = await mintVisitorSession();
    let calls = 0;
    const el = await fixture<SvcChat>(html`<div style="height: 600px"><svc-chat base-url=${url} agent-ids="agent_echo"
      .tokenProvider=${async () => (++calls === 1 ? { token: 'st_revoked_or_expired' } : good)}></svc-chat></div>`).then(
      (d) => chatReady(d.querySelector('svc-chat')!),
    );
    const complete = oneEvent(el, 'svc-turn-complete');
    await el.send('after renewal');
    await complete;
    expect(calls).to.equal(2);
    await until(() => agentTexts(el)[0] === 'Echo: after renewal', 'the reply');
  });

  it('keeps a failed message with a retry that sends it', async () => {
    let failNext = true;
    const flaky: typeof fetch = (input, init) => {
      if (failNext && String(input).endsWith('/conversations/send')) {
        failNext = false;
        return Promise.reject(new TypeError('Failed to fetch'));
      }
      return fetch(input, init);
    };
    const { el } = await chatThrough(flaky);
    const failure = oneEvent(el, 'svc-error');
    const complete = oneEvent(el, 'svc-turn-complete');
    await el.send('try me');
    const retry = await until(() => part<HTMLButtonElement>(el, 'retry-button'), 'the retry button');
    // Not answered: it waits in the outbox (which sends it by itself once the service answers a check).
    expect(panelRoot(el).textContent).to.contain(EN_LABELS.waitingToSend);
    // The visitor reads why in plain words; the developer reads the detail in svc-error (and the console).
    expect(part(el, 'notice')?.textContent).to.contain(EN_LABELS.networkError);
    expect((await failure).detail.message).to.contain('Failed to fetch');
    if (retry.isConnected) retry.click();
    await complete;
    await until(() => agentTexts(el)[0] === 'Echo: try me', 'the reply');
    expect(parts(el, 'message-user')).to.have.length(1);
    expect(part(el, 'retry-button')).to.equal(null);
    // The failure is over: its notice does not stay above the conversation.
    expect(part(el, 'notice')).to.equal(null);
  });

  it('retries a message whose answer was lost after the service stored it under its first key: stored once, one reply', async () => {
    const keys: string[] = [];
    let loseNext = true;
    // The service stores the first try and answers; the answer is lost on the way back to the page.
    const lossy: typeof fetch = async (input, init) => {
      if (!String(input).endsWith('/conversations/send')) return fetch(input, init);
      keys.push(new Headers(init?.headers).get('idempotency-key') ?? '');
      const res = await fetch(input, init);
      if (!loseNext) return res;
      loseNext = false;
      await res.arrayBuffer();
      throw new TypeError('Failed to fetch');
    };
    const { el, session } = await chatThrough(lossy);
    await el.send('only once');
    const retry = await until(() => part<HTMLButtonElement>(el, 'retry-button'), 'the retry button');
    const complete = oneEvent(el, 'svc-turn-complete');
    retry.click();
    const { conversationId } = (await complete).detail;
    await until(() => agentTexts(el)[0] === 'Echo: only once', 'the reply');
    expect(keys).to.have.length(2);
    expect(keys[0]).to.match(/^[0-9a-f-]{36}$/);
    expect(keys[1]).to.equal(keys[0]);
    // What the service holds, read past the widget: the message once, and one reply to it.
    const stored = await session.messages(conversationId);
    const types = stored.entries.map((r) => r.raw.type).filter((t) => t === 'user' || t === 'result');
    expect(types).to.deep.equal(['user', 'result']);
    expect(parts(el, 'message-user')).to.have.length(1);
    expect(agentTexts(el)).to.deep.equal(['Echo: only once']);
  });

  it('follows a card that draws itself after its message to the end of the list', async function () {
    this.timeout(20_000);
    // A view the form fits in: a card taller than the view shows from its top (scroll-follow.test.ts).
    const el = await chatWithToken({ agent: 'agent_aria', height: 900 });
    const done = oneEvent(el, 'svc-turn-complete');
    await el.send('/form');
    await done;
    const list = part(el, 'messages')!;
    const card = await until(
      () => inShadow<HTMLElementTagNameMap['svc-info-collect']>(el, 'svc-info-collect'),
      'the form card',
    );
    await card.updateComplete;
    await until(() => list.scrollHeight > list.clientHeight, 'a list taller than its view');
    // The card's fields and buttons are in view, not below the fold.
    await until(() => belowView(list) < 2, 'the list scrolled to the end of the card');
    expect(part(el, 'jump-button')).to.equal(null);
  });

  it('continues the last conversation after a reload with persist', async () => {
    localStorage.clear();
    const { url } = await service();
    const { token } = await mintVisitorSession();
    const first = await fixture<SvcChat>(
      html`<svc-chat base-url=${url} token=${token} agent-ids="agent_echo" persist="t1"></svc-chat>`,
    );
    const complete = oneEvent(first, 'svc-turn-complete');
    await first.send('remember me');
    const { detail } = await complete;
    first.remove();
    const second = await fixture<SvcChat>(
      html`<svc-chat base-url=${url} token=${token} agent-ids="agent_echo" persist="t1"></svc-chat>`,
    );
    await until(() => agentTexts(second)[0] === 'Echo: remember me', 'the restored reply');
    expect(parts(second, 'message-user')[0].textContent?.trim()).to.equal('remember me');
    expect(detail.conversationId).to.equal(localStorage.getItem(`svc-chat:t1|agent_echo`));
  });

  it('signs a visitor in by SMS and then chats', async () => {
    const { url } = await service();
    const el =
      await fixture<SvcChat>(html`<div style="height: 600px"><svc-chat base-url=${url} sign-in="sms" workspace="demo"
      agent-ids="agent_echo"></svc-chat></div>`).then((d) => chatReady(d.querySelector('svc-chat')!));
    const signIn = part(el, 'sign-in')!.querySelector('svc-sms-sign-in')!;
    await signIn.updateComplete;
    const phone = `+86139${String(Date.now()).slice(-8)}`;
    const phoneInput = signIn.shadowRoot!.querySelector<HTMLInputElement>('input[name=phone]')!;
    phoneInput.value = phone;
    signIn.shadowRoot!.querySelector<HTMLButtonElement>('button[type=submit]')!.click();
    const codeInput = await until(
      () => signIn.shadowRoot!.querySelector<HTMLInputElement>('input[name=code]'),
      'the code step',
    );
    // The service writes the SMS before it answers, so the code is there once the code step shows.
    const code = (await lastSmsCode(phone))!;
    expect(code).to.match(/^\d{6}$/);
    // A wrong code first: a clear message, and the visitor can try again.
    codeInput.value = code === '000000' ? '111111' : '000000';
    signIn.shadowRoot!.querySelector<HTMLButtonElement>('button[type=submit]')!.click();
    await until(() => signIn.shadowRoot!.querySelector('[part=error]'), 'the wrong-code message');
    expect(signIn.shadowRoot!.querySelector('[part=error]')!.textContent).to.contain('wrong or has expired');
    const signedIn = oneEvent(el, 'svc-signed-in');
    codeInput.value = code;
    signIn.shadowRoot!.querySelector<HTMLButtonElement>('button[type=submit]')!.click();
    const { detail } = await signedIn;
    expect(detail.user_id).to.be.a('string');
    expect(detail).not.to.have.property('token');
    await until(() => part(el, 'input'), 'the composer');
    const complete = oneEvent(el, 'svc-turn-complete');
    await el.send('signed in');
    await complete;
    await until(() => agentTexts(el)[0] === 'Echo: signed in', 'the reply');
  });

  it('follows the theme and the language, and takes design tokens', async () => {
    const { url } = await service();
    const { token } = await mintVisitorSession();
    const el = await fixture<SvcChat>(html`<svc-chat base-url=${url} token=${token} theme="dark" lang="zh-CN"
      .tokens=${{ colorPrimary: 'rgb(0, 128, 128)' }}></svc-chat>`);
    const panel = part(el, 'panel')!;
    expect(getComputedStyle(panel).backgroundColor).to.equal('rgb(21, 23, 28)');
    expect(part<HTMLTextAreaElement>(el, 'input')!.placeholder).to.equal('输入消息…');
    expect(getComputedStyle(part(el, 'send-button')!).backgroundColor).to.equal('rgb(0, 128, 128)');
    el.theme = 'light';
    await el.updateComplete;
    expect(getComputedStyle(panel).backgroundColor).to.equal('rgb(255, 255, 255)');
  });

  it('loads older messages when the reader scrolls up, keeping the view in place', async function () {
    this.timeout(60_000);
    const { url } = await service();
    const { token } = await mintVisitorSession();
    const chat = new ChatClient(new HttpClient({ baseUrl: url, apiKey: token }));
    let conversationId: string | undefined;
    for (let i = 1; i <= 14; i++) {
      const turn = await chat.sendMessage({
        message: `message ${i}`,
        conversationId,
        targetAgentIds: ['agent_echo'],
        newConversation: !conversationId,
      });
      conversationId = turn.conversationId;
    }
    const el = await fixture<SvcChat>(html`<div style="height: 400px"><svc-chat base-url=${url} token=${token}
      conversation-id=${conversationId!}></svc-chat></div>`).then((d) => chatReady(d.querySelector('svc-chat')!));
    await until(() => parts(el, 'message-user').length === 10, 'the latest page');
    const list = part(el, 'messages')!;
    await until(() => list.scrollTop > 0, 'the list scrolled to the end');
    list.scrollTop = 0;
    list.dispatchEvent(new Event('scroll'));
    await until(() => parts(el, 'message-user').length === 14, 'the older page');
    expect(parts(el, 'message-user')[0].textContent?.trim()).to.equal('message 1');
    // The message that was at the top is still in view: the older page went above it.
    expect(list.scrollTop).to.be.greaterThan(100);
  });

  it('does not pull a reader who scrolled up back to the end while a reply streams', async function () {
    this.timeout(30_000);
    const el = await chatWithToken({ agent: 'agent_aria' });
    const done = oneEvent(el, 'svc-turn-complete');
    await el.send('/markdown');
    await done;
    const list = part(el, 'messages')!;
    await until(() => list.scrollHeight > list.clientHeight + 200, 'a long reply');
    const started = oneEvent(el, 'svc-message-sent');
    const streamed = oneEvent(el, 'svc-turn-complete');
    await el.send('/slow 4');
    await started;
    list.scrollTop = 0;
    list.dispatchEvent(new Event('scroll'));
    // The whole reply streams in below the reader (out of view, so not rendered), and a frame passes for
    // anything that would follow it down.
    await streamed;
    await nextFrame();
    expect(list.scrollTop).to.equal(0);
    expect(part(el, 'jump-button')).not.to.equal(null);
  });
});
