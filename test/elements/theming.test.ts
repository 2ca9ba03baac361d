import { expect, fixture, html } from '@open-wc/testing';
import '../../src/elements/svc-chat/svc-chat.js';
import type { SvcChat } from '../../src/elements/svc-chat/svc-chat.js';
import { CARD_EXPORTS, PANEL_EXPORTS } from '../../src/elements/svc-chat-panel/exported-parts.js';
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

/** The cards' parts, as a card inside the chat exports them (`name:card-name`). */
const CARD_PARTS = CARD_EXPORTS.split(',').map((exported) => exported.split(':')[0]!);

/** Every node of the panel's shadow root with a part, and the part names of those a page's rule did not reach. */
function drawn(el: SvcChat) {
  const root = el.shadowRoot!.querySelector('svc-chat-panel')!.shadowRoot!;
  const nodes = [...root.querySelectorAll<HTMLElement>('[part]')];
  return {
    names: nodes.flatMap((node) => node.getAttribute('part')!.split(' ')),
    unreached: nodes
      .filter((node) => getComputedStyle(node).outlineColor !== 'rgb(1, 2, 3)')
      .map((node) => node.getAttribute('part')),
  };
}

describe("<svc-chat>'s parts styled from the page", () => {
  it('reaches every part the panel draws: a conversation with files and images, the list of conversations', async () => {
    // One rule naming every part the panel exports (made from its templates: exported-parts.ts).
    const style = document.createElement('style');
    const rule = PANEL_EXPORTS.split(',').map((name) => `svc-chat::part(${name})`);
    style.textContent = `${rule.join(',')} { outline: 3px solid rgb(1, 2, 3) !important; }`;
    document.head.append(style);
    try {
      const el = await chat();
      for (const command of ['/file', '/image']) {
        await el.send(command);
        await idle(el);
      }
      await waitFor(el, '[part~=download-button]', "the agent's file");
      await waitFor(el, '[part~=image-button]', "the agent's image");
      const conversation = drawn(el);
      expect(conversation.names).to.include.members(['message-agent', 'file-name', 'image', 'composer', 'list-button']);
      expect(conversation.unreached, "the conversation's parts the page's rule did not reach").to.deep.equal([]);
      part(el, 'list-button')!.click();
      await waitFor(el, '[part~=conversation-open]', 'the list of conversations');
      const list = drawn(el);
      expect(list.names).to.include.members(['conversations', 'conversation-title', 'rename-button']);
      expect(list.unreached, "the list's parts the page's rule did not reach").to.deep.equal([]);
    } finally {
      style.remove();
    }
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
