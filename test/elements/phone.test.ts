import { expect, oneEvent } from '@open-wc/testing';
import '../../src/elements/svc-chat/svc-chat.js';
import type { SvcChat } from '../../src/elements/svc-chat/svc-chat.js';
import { part } from '../cards/helpers.js';
import { mintVisitorSession, service, until } from '../helpers/browser-service.js';
import { panelRoot } from '../helpers/chat-parts.js';
import { phonePage } from '../helpers/phone-page.js';

/** A phone-sized page, taller than the screen, with a launcher chat and a marker halfway down. */
async function tallPhonePage() {
  const { url } = await service();
  const { token } = await mintVisitorSession();
  const { frame, doc } =
    await phonePage(`<div style="height: 3000px"><p id="marker" style="margin-top: 900px">here</p></div>
    <svc-chat mode="launcher" base-url="${url}" token="${token}" agent-ids="agent_echo" lang="en"></svc-chat>`);
  const el = doc.querySelector<SvcChat>('svc-chat')!;
  await el.updateComplete;
  return { frame, doc, win: frame.contentWindow!, el };
}

describe('<svc-chat> on a phone', () => {
  it('keeps the page behind the full-screen panel still, and where it was once closed', async () => {
    const { frame, doc, win, el } = await tallPhonePage();
    try {
      win.scrollTo(0, 400);
      await until(() => win.scrollY === 400, 'the page scrolled to 400');
      const marker = doc.getElementById('marker')!;
      const before = marker.getBoundingClientRect().top;
      el.open();
      await el.updateComplete;
      await until(() => part(el, 'input'), 'the panel');
      // Positive control of the measure: a scroll of the page moves the marker, unless the page is held.
      win.scrollBy(0, 600);
      doc.scrollingElement!.scrollTop += 600;
      await new Promise((resolve) => win.requestAnimationFrame(resolve));
      expect(marker.getBoundingClientRect().top, 'the page did not move behind the panel').to.equal(before);
      el.close();
      await el.updateComplete;
      await until(() => win.scrollY === 400, 'the page back where it was');
      win.scrollBy(0, 100);
      await until(() => win.scrollY === 500, 'the page scrolls again once the panel is closed');
    } finally {
      frame.remove();
    }
  });

  it('has a composer of at least 16 px text and a close button of at least 44 × 44 px', async () => {
    const { frame, el, win } = await tallPhonePage();
    try {
      el.open();
      await el.updateComplete;
      const input = await until(() => part(el, 'input'), 'the composer');
      expect(Number.parseFloat(win.getComputedStyle(input).fontSize)).to.be.at.least(16);
      const close = part(el, 'close-button')!.getBoundingClientRect();
      expect(close.width).to.be.at.least(44);
      expect(close.height).to.be.at.least(44);
    } finally {
      frame.remove();
    }
  });
});

describe('<svc-chat> on a phone: touch targets', () => {
  it('gives every button a finger presses at least 44 × 44 px and every field 16 px text: actions, suggestions, cards, code', async () => {
    const { url } = await service();
    const { token } = await mintVisitorSession();
    const { frame, doc } = await phonePage(
      `<svc-chat mode="launcher" base-url="${url}" token="${token}" agent-ids="agent_aria" lang="en"></svc-chat>`,
    );
    const el = doc.querySelector<SvcChat>('svc-chat')!;
    try {
      el.open();
      await until(() => part(el, 'input'), 'the panel');
      for (const message of ['/form', '/markdown', '/suggest']) {
        const done = oneEvent(el, 'svc-turn-complete');
        await el.send(message);
        await done;
      }
      await until(() => part(el, 'suggestion') && part(el, 'info-card'), 'the suggestions and the form card');
      const root = panelRoot(el);
      const inner = [...root.querySelectorAll('[part~=card], svc-markdown')].map((node) => node.shadowRoot!);
      const buttons = [root, ...inner]
        .flatMap((r) => [...r.querySelectorAll<HTMLElement>('button')])
        .filter((button) => button.getClientRects().length > 0);
      const kinds = new Set(buttons.map((button) => button.getAttribute('part')));
      for (const kind of ['copy-button', 'suggestion', 'button', 'secondary-button', 'copy', 'send-button']) {
        expect([...kinds], 'the buttons looked at').to.include(kind);
      }
      const small = buttons
        .map((button) => ({ part: button.getAttribute('part'), box: button.getBoundingClientRect() }))
        .filter(({ box }) => box.width < 44 || box.height < 44)
        .map(({ part, box }) => `${part} ${box.width.toFixed(1)}×${box.height.toFixed(1)}`);
      expect(small).to.deep.equal([]);
      // And no field a finger focuses makes iOS zoom in: the form card's, and the feedback's reason.
      part<HTMLButtonElement>(el, 'feedback-down-button')!.click();
      const reason = await until(() => part(el, 'feedback-reason'), "the feedback's reason");
      const fields = [reason, ...inner.flatMap((r) => [...r.querySelectorAll<HTMLElement>('input, textarea')])];
      expect(fields.length).to.be.at.least(3);
      for (const field of fields) {
        expect(
          Number.parseFloat(frame.contentWindow!.getComputedStyle(field).fontSize),
          field.outerHTML,
        ).to.be.at.least(16);
      }
    } finally {
      frame.remove();
    }
  });
});
