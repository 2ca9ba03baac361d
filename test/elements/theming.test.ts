import { expect, fixture, html } from '@open-wc/testing';
import '../../src/elements/svc-chat.js';
import type { SvcChat } from '../../src/elements/svc-chat.js';
import { part } from '../cards/helpers.js';
import { mintVisitorSession, service, until } from '../helpers/browser-service.js';
import { chatReady } from '../helpers/chat-ready.js';

describe('<svc-chat> theming from the page', () => {
  it("draws the header's buttons in the colour a page gives ::part(header), or in their own token", async () => {
    const { url } = await service();
    const { token } = await mintVisitorSession();
    const page = await fixture<HTMLDivElement>(html`<div>
      <style>
        .themed::part(header) { background: rgb(20, 30, 120); color: rgb(250, 240, 10); }
        .tokened { --svc-chat-header-icon-color: rgb(0, 128, 0); }
      </style>
      <svc-chat class="themed" base-url=${url} token=${token} agent-ids="agent_echo"></svc-chat>
      <svc-chat class="tokened" base-url=${url} token=${token} agent-ids="agent_echo"></svc-chat>
      <svc-chat class="plain" base-url=${url} token=${token} agent-ids="agent_echo"></svc-chat>
    </div>`);
    const [themed, tokened, plain] = await Promise.all(
      [...page.querySelectorAll<SvcChat>('svc-chat')].map((el) => chatReady(el)),
    );
    const colorOf = (el: SvcChat) => getComputedStyle(part(el, 'new-button')!).color;
    await until(() => part(themed!, 'new-button'), 'the header buttons');
    expect(colorOf(themed!)).to.equal('rgb(250, 240, 10)');
    expect(colorOf(tokened!)).to.equal('rgb(0, 128, 0)');
    // The control: without either, the buttons take the header's own (the text's) colour, not the page's yellow.
    expect(colorOf(plain!)).to.equal(getComputedStyle(part(plain!, 'header')!).color);
    expect(colorOf(plain!)).to.not.equal('rgb(250, 240, 10)');
  });
});
