import { expect } from '@open-wc/testing';
import '../../src/elements/svc-chat.js';
import type { SvcChat } from '../../src/elements/svc-chat.js';
import { part } from '../cards/helpers.js';
import { mintVisitorSession, service, until } from '../helpers/browser-service.js';
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
