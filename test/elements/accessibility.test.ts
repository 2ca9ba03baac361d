import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import { ChatClient } from '../../src/client/chat.js';
import { HttpClient } from '../../src/client/http.js';
import '../../src/elements/svc-chat/svc-chat.js';
import type { SvcChat } from '../../src/elements/svc-chat/svc-chat.js';
import type { SvcSmsSignIn } from '../../src/elements/svc-sms-sign-in/svc-sms-sign-in.js';
import { chat, idle, inShadow, part, waitFor } from '../cards/helpers.js';
import { axeViolations, expectAccessible, expectAccessibleInBothThemes } from '../helpers/axe.js';
import { lastSmsCode, mintVisitorSession, service, until } from '../helpers/browser-service.js';
import { chatReady } from '../helpers/chat-ready.js';

describe('<svc-chat> accessibility, measured with axe-core at WCAG 2.2 AA', () => {
  it('catches violations when there are some: a low-contrast token, an unlabelled field (positive control)', async () => {
    const el = await chat();
    // A site that sets a pale secondary text color, and blanks the input's label: both real settings.
    el.tokens = { colorMuted: '#c8ccd2' };
    el.labels = { placeholder: '' };
    await el.updateComplete;
    const violations = await axeViolations(el);
    const found = Object.fromEntries(violations.map((v) => [v.id, v.nodes.map((n) => n.target)]));
    // Both inside the chat's panel: the empty conversation's muted text, and the message field.
    expect(found).to.deep.equal({
      'color-contrast': [[['svc-chat', 'svc-chat-panel', 'div[part="empty"]']]],
      label: [[['svc-chat', 'svc-chat-panel', 'textarea']]],
    });

    el.tokens = {};
    el.style.removeProperty('--svc-color-muted');
    el.labels = {};
    await el.updateComplete;
    await expectAccessible(el, 'the same chat with its settings put back');
  });

  it('has no violations in an empty chat, light and dark', async () => {
    const el = await chat();
    await expectAccessibleInBothThemes(el, 'empty chat');
  });

  it('has none while a reply streams, once it is stopped, and with a finished reply', async function () {
    this.timeout(30_000);
    const el = await chat();
    await el.send('/slow 20');
    await until(() => inShadow(el, 'svc-markdown[streaming]')?.shadowRoot?.textContent, 'text');
    await expectAccessibleInBothThemes(el, 'streaming');
    const stopped = oneEvent(el, 'svc-turn-complete');
    await el.interrupt();
    await stopped;
    await idle(el);
    await expectAccessibleInBothThemes(el, 'stopped');
    await el.send('/markdown');
    await idle(el);
    await waitFor(el, '[part~=read-aloud-button]', 'the finished reply');
    await expectAccessibleInBothThemes(el, 'a long markdown reply with a table and code');
  });

  it('has none when a reply fails and when a message cannot be sent', async () => {
    const el = await chat();
    await el.send('/error');
    await waitFor(el, '[part~=message-error]', 'the failure');
    await idle(el);
    await expectAccessibleInBothThemes(el, 'a failed reply');

    const { url } = await service();
    const { token } = await mintVisitorSession();
    const offline: typeof fetch = () => Promise.reject(new TypeError('Failed to fetch'));
    const client = {
      chat: new ChatClient(new HttpClient({ baseUrl: url, apiKey: token, fetch: offline, maxRetries: 0 })),
    };
    const failed = await fixture<HTMLDivElement>(
      html`<div style="height: 600px"><svc-chat agent-ids="agent_echo" lang="en" .client=${client}></svc-chat></div>`,
    ).then((d) => chatReady(d.querySelector('svc-chat')!));
    await failed.send('not going anywhere');
    await waitFor(failed, '[part~=retry-button]', 'the retry button');
    await expectAccessibleInBothThemes(failed, 'a message not sent, with its notice');
  });

  it('has none on the launcher, closed, with unread replies, and open', async () => {
    const { url } = await service();
    const { token } = await mintVisitorSession();
    const el = await fixture<SvcChat>(
      html`<svc-chat mode="launcher" base-url=${url} token=${token} agent-ids="agent_echo" lang="en"></svc-chat>`,
    );
    await expectAccessibleInBothThemes(el, 'launcher closed');
    const complete = oneEvent(el, 'svc-turn-complete');
    await el.send('ping');
    await complete;
    await waitFor(el, '[part~=badge]', 'the unread badge');
    expect(part(el, 'launcher')!.getAttribute('aria-label')).to.equal('Open chat, 1 unread');
    await expectAccessibleInBothThemes(el, 'launcher with an unread reply');
    el.open();
    await el.updateComplete;
    await expectAccessibleInBothThemes(el, 'launcher open');
    el.close();
  });

  it('has none in the image viewer', async () => {
    const el = await chat();
    await el.send('/image');
    const image = await waitFor<HTMLButtonElement>(el, '[part~=image-button]', 'the image');
    await idle(el);
    await expectAccessibleInBothThemes(el, 'an image in a reply');
    image.click();
    const dialog = await waitFor<HTMLDialogElement>(el, '[part~=lightbox]', 'the viewer');
    await until(() => dialog.open, 'the viewer to open');
    await until(() => part<HTMLImageElement>(el, 'lightbox-image')!.complete, 'the image to load');
    await expectAccessibleInBothThemes(el, 'the image viewer');
    dialog.close();
  });

  it('has none in either step of SMS sign-in, also with an error', async () => {
    const { url } = await service();
    const el = await fixture<HTMLDivElement>(html`<div style="height: 600px"><svc-chat base-url=${url} sign-in="sms"
      workspace="demo" agent-ids="agent_echo" lang="en"></svc-chat></div>`).then((d) =>
      chatReady(d.querySelector('svc-chat')!),
    );
    const signIn = part(el, 'sign-in')!.querySelector<SvcSmsSignIn>('svc-sms-sign-in')!;
    await signIn.updateComplete;
    await expectAccessibleInBothThemes(el, 'sign-in, phone step');
    const phoneInput = signIn.shadowRoot!.querySelector<HTMLInputElement>('input[name=phone]')!;
    phoneInput.value = '12345';
    signIn.shadowRoot!.querySelector<HTMLButtonElement>('button[type=submit]')!.click();
    await until(() => signIn.shadowRoot!.querySelector('[part=error]'), 'the bad-number message');
    await expectAccessibleInBothThemes(el, 'sign-in, phone step with an error');

    const phone = `+86137${String(Date.now()).slice(-8)}`;
    phoneInput.value = phone;
    signIn.shadowRoot!.querySelector<HTMLButtonElement>('button[type=submit]')!.click();
    const codeInput = await until(
      () => signIn.shadowRoot!.querySelector<HTMLInputElement>('input[name=code]'),
      'the code step',
    );
    // The service writes the SMS before it answers, so the code is there once the code step shows.
    expect(await lastSmsCode(phone)).to.match(/^\d{6}$/);
    await expectAccessibleInBothThemes(el, 'sign-in, code step');
    codeInput.value = '12';
    signIn.shadowRoot!.querySelector<HTMLButtonElement>('button[type=submit]')!.click();
    await until(() => signIn.shadowRoot!.querySelector('[part=error]'), 'the wrong-code message');
    await expectAccessibleInBothThemes(el, 'sign-in, code step with an error');
  });

  it('has none in Arabic, right to left', async () => {
    const el = await chat();
    el.lang = 'ar';
    await el.updateComplete;
    expect(part(el, 'panel')!.getAttribute('dir')).to.equal('rtl');
    await el.send('/form');
    await waitFor(el, 'svc-info-collect', 'the form card');
    await idle(el);
    await expectAccessibleInBothThemes(el, 'Arabic with a form card');
  });
});
