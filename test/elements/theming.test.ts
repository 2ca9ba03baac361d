import { expect, fixture, html } from '@open-wc/testing';
import '../../src/elements/svc-chat/svc-chat.js';
import type { SvcChat } from '../../src/elements/svc-chat/svc-chat.js';
import { CARD_PARTS } from '../../src/internal/card-parts.js';
import { chat, idle, part, waitFor } from '../cards/helpers.js';
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

describe("<svc-chat>'s cards styled from the page", () => {
  it('reaches every part of a form, payment and connector card inside the chat as card-…', async () => {
    // One rule naming every card part as the chat exports it.
    const style = document.createElement('style');
    style.textContent = `${CARD_PARTS.map((name) => `svc-chat::part(card-${name})`).join(',')} { outline: 3px solid rgb(1, 2, 3); }`;
    document.head.append(style);
    try {
      const el = await chat();
      for (const [command, card] of [
        ['/form', 'svc-info-collect'],
        ['/pay 9.9', 'svc-payment-gate'],
        ['/connect github', 'svc-connector-setup'],
      ] as const) {
        await el.send(command);
        const shown = await waitFor(el, card, `the ${card} card`);
        await until(() => shown.shadowRoot?.querySelector('[part~=button]'), `${card}'s button`);
        const drawn = [...shown.shadowRoot!.querySelectorAll<HTMLElement>('[part]')];
        expect(drawn.length, `${card}'s parts`).to.be.at.least(5);
        const unstyled = drawn
          .filter((node) => getComputedStyle(node).outlineColor !== 'rgb(1, 2, 3)')
          .map((node) => node.getAttribute('part'));
        expect(unstyled, `${card}'s parts the page's rule did not reach`).to.deep.equal([]);
        await idle(el);
      }
    } finally {
      style.remove();
    }
  });
});

describe("<svc-chat>'s avatars in the page's colours", () => {
  it('keep an edge when the page gives their background the panel’s colour', async () => {
    const style = document.createElement('style');
    style.textContent =
      'svc-chat.flat { --svc-color-surface: rgb(255, 255, 255); --svc-color-bg: rgb(255, 255, 255); }';
    document.head.append(style);
    try {
      const el = await chat({ agent: 'agent_echo' });
      el.classList.add('flat');
      await el.send('hi');
      const avatar = await waitFor<HTMLElement>(el, '[part~=avatar]', 'an avatar');
      const panel = getComputedStyle(part(el, 'messages')!).backgroundColor;
      const own = getComputedStyle(avatar);
      // The control: the page's colours reached it, so its background alone does not stand out.
      expect(own.backgroundColor).to.equal('rgb(255, 255, 255)');
      expect(own.borderTopWidth).to.not.equal('0px');
      expect(own.borderTopStyle).to.equal('solid');
      expect(own.borderTopColor).to.not.equal('rgb(255, 255, 255)');
      expect(panel === own.borderTopColor).to.equal(false);
    } finally {
      style.remove();
    }
  });
});
