import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import { ifDefined } from 'lit/directives/if-defined.js';
import '../../src/elements/svc-chat/svc-chat.js';
import type { SvcChat } from '../../src/elements/svc-chat/svc-chat.js';
import type { SvcSmsSignIn } from '../../src/elements/svc-sms-sign-in/svc-sms-sign-in.js';
import { idle, inShadow, part, parts, waitFor } from '../cards/helpers.js';
import { mintVisitorSession, service, until } from '../helpers/browser-service.js';

const BOX = { width: 420, height: 640 };

/**
 * An inline chat of a fresh visitor in a 420 × 640 box: `around` are attributes of the box (the page around
 * the chat), `own` those of the chat.
 */
async function chatInBox(
  around: { dir?: string; lang?: string } = {},
  own: { dir?: string; lang?: string; theme?: string; agent?: string } = {},
): Promise<{ box: HTMLDivElement; el: SvcChat }> {
  const { url } = await service();
  const { token } = await mintVisitorSession();
  const box = await fixture<HTMLDivElement>(html`<div style="width: ${BOX.width}px; height: ${BOX.height}px"
    dir=${ifDefined(around.dir)} lang=${ifDefined(around.lang)}><svc-chat base-url=${url} token=${token}
    agent-ids=${own.agent ?? 'agent_echo'} theme=${own.theme ?? 'light'} dir=${ifDefined(own.dir)}
    lang=${ifDefined(own.lang)}></svc-chat></div>`);
  const el = box.querySelector('svc-chat')!;
  await el.updateComplete;
  return { box, el };
}

/** Sends `text` and waits for the whole reply. */
async function exchange(el: SvcChat, text: string): Promise<void> {
  const complete = oneEvent(el, 'svc-turn-complete');
  await el.send(text);
  await complete;
  await idle(el);
  await until(() => parts(el, 'read-aloud-button').length, 'the finished reply');
}

/** Where an element is in its box: left and right edges from the box's left. */
function placeOf(box: Element, element: Element): { left: number; right: number } {
  const outer = box.getBoundingClientRect();
  const inner = element.getBoundingClientRect();
  return { left: inner.left - outer.left, right: inner.right - outer.left };
}

/** The regions of a chat whose place the direction decides, each found by its part. */
const REGIONS = ['new-button', 'title', 'avatar', 'name', 'attach-button', 'input', 'send-button'];
const regionsOf = (el: SvcChat) => [
  ...REGIONS.map((name) => [name, part(el, name)!] as const),
  ['user bubble', inShadow(el, '[part~=message-user] [part~=bubble]')!] as const,
  ['agent bubble', inShadow(el, '[part~=message-agent] [part~=bubble]')!] as const,
  ['read-aloud button', part(el, 'read-aloud-button')!] as const,
];

describe('<svc-chat> right to left', () => {
  it('lays the whole chat out mirrored with dir="rtl": each region where its mirror image is', async () => {
    const ltr = await chatInBox({}, { lang: 'en' });
    const rtl = await chatInBox({}, { lang: 'en', dir: 'rtl' });
    await Promise.all([exchange(ltr.el, 'hello there'), exchange(rtl.el, 'hello there')]);
    expect(part(rtl.el, 'panel')!.getAttribute('dir')).to.equal('rtl');
    expect(getComputedStyle(part(rtl.el, 'input')!).direction).to.equal('rtl');

    const ltrRegions = regionsOf(ltr.el);
    const rtlRegions = regionsOf(rtl.el);
    for (const [i, [name, element]] of ltrRegions.entries()) {
      const left = placeOf(ltr.box, element);
      const right = placeOf(rtl.box, rtlRegions[i]![1]);
      // Mirrored: the left edge in one is the right edge in the other, measured from the box's other side.
      expect(
        Math.abs(left.left - (BOX.width - right.right)),
        `${name}: ${JSON.stringify({ left, right })}`,
      ).to.be.below(1.5);
      expect(Math.abs(left.right - left.left - (right.right - right.left)), `${name}'s width`).to.be.below(1.5);
    }
    // In words: the visitor's bubbles on the left, the agent's avatar on the right, send left of the field.
    const list = placeOf(rtl.box, part(rtl.el, 'messages')!);
    expect(placeOf(rtl.box, rtlRegions.find(([n]) => n === 'user bubble')![1]).left - list.left).to.be.below(20);
    expect(list.right - placeOf(rtl.box, part(rtl.el, 'avatar')!).right).to.be.below(20);
    expect(placeOf(rtl.box, part(rtl.el, 'send-button')!).right).to.be.at.most(
      placeOf(rtl.box, part(rtl.el, 'input')!).left,
    );
    // The send arrow points the way the text runs; nothing else is turned.
    const arrow = (el: SvcChat) => getComputedStyle(part(el, 'send-button')!.querySelector('svg')!).transform;
    expect(arrow(rtl.el)).to.equal('matrix(-1, 0, 0, 1, 0, 0)');
    expect(arrow(ltr.el)).to.equal('none');
  });

  it('takes the direction from the page and from lang="ar"; its own dir wins, and so does its own lang', async () => {
    const direction = (el: SvcChat) => part(el, 'panel')!.getAttribute('dir');
    expect(direction((await chatInBox({ dir: 'rtl' })).el), 'from the page around it').to.equal('rtl');
    expect(direction((await chatInBox({}, { lang: 'ar' })).el), 'from its language').to.equal('rtl');
    expect(direction((await chatInBox({ lang: 'he' })).el), "from the page's language").to.equal('rtl');
    expect(direction((await chatInBox({}, { lang: 'ar', dir: 'ltr' })).el), 'its own dir first').to.equal('ltr');
    expect(direction((await chatInBox({ dir: 'ltr' }, { lang: 'ar' })).el), 'then its own lang').to.equal('rtl');
    expect(direction((await chatInBox({ dir: 'rtl' }, { lang: 'en' })).el)).to.equal('ltr');
    expect(direction((await chatInBox()).el)).to.equal('ltr');

    // Changed later, the direction follows.
    const { el } = await chatInBox();
    el.setAttribute('dir', 'rtl');
    await el.updateComplete;
    expect(direction(el)).to.equal('rtl');
    el.lang = 'ar';
    el.removeAttribute('dir');
    await el.updateComplete;
    expect(direction(el)).to.equal('rtl');
    expect(part<HTMLTextAreaElement>(el, 'input')!.placeholder).to.equal('اكتب رسالة…');
  });

  it('puts the launcher and its panel in the bottom-left corner', async () => {
    const { url } = await service();
    const { token } = await mintVisitorSession();
    for (const dir of ['ltr', 'rtl']) {
      const el = await fixture<SvcChat>(html`<svc-chat mode="launcher" dir=${dir} base-url=${url} token=${token}
        agent-ids="agent_echo" lang="en"></svc-chat>`);
      el.open();
      await el.updateComplete;
      const launcher = part(el, 'launcher')!.getBoundingClientRect();
      const panel = part(el, 'panel')!.getBoundingClientRect();
      const width = document.documentElement.clientWidth;
      if (dir === 'rtl') {
        expect(launcher.left, 'launcher 20px from the left').to.be.closeTo(20, 1);
        expect(panel.left, 'panel 20px from the left').to.be.closeTo(20, 1);
      } else {
        expect(width - launcher.right, 'launcher 20px from the right').to.be.closeTo(20, 1);
        expect(width - panel.right, 'panel 20px from the right').to.be.closeTo(20, 1);
      }
      el.close();
      el.remove();
    }
  });

  it('speaks Arabic with lang="ar": the chat, the SMS sign-in and the cards, loaded on first use', async function () {
    this.timeout(30_000);
    const { el } = await chatInBox({}, { lang: 'ar', agent: 'agent_aria' });
    expect(part(el, 'title')!.textContent).to.equal('المحادثة');
    expect(part(el, 'send-button')!.getAttribute('aria-label')).to.equal('إرسال');
    await exchange(el, '/form');
    // The visitor's own words read in their direction: "/form" left to right, in a chat laid out right to left.
    expect(getComputedStyle(inShadow(el, '[part~=message-user] [part~=bubble]')!).direction).to.equal('ltr');
    const card = await waitFor<HTMLElement & { updateComplete: Promise<boolean> }>(el, 'svc-info-collect', 'the card');
    await card.updateComplete;
    expect(inShadow(card, '[part~=base]')!.getAttribute('dir')).to.equal('rtl');
    expect(inShadow(card, '[part~=secondary-button]')!.textContent!.trim()).to.equal('تخطٍّ');
    // The card lays itself out from the right: its first field's label starts at the card's right edge.
    const base = inShadow(card, '[part~=base]')!.getBoundingClientRect();
    const text = document.createRange();
    text.selectNodeContents(inShadow(card, '[part~=label]')!);
    const label = text.getBoundingClientRect();
    expect(base.right - label.right).to.be.below(20);
    expect(label.left - base.left).to.be.above(100);

    const { url } = await service();
    const signIn = await fixture<SvcSmsSignIn>(
      html`<svc-sms-sign-in base-url=${url} workspace="demo" lang="ar"></svc-sms-sign-in>`,
    );
    expect(inShadow(signIn, '[part=label]')!.textContent).to.equal('رقم الهاتف');
    expect(inShadow(signIn, '[part=form]')!.getAttribute('dir')).to.equal('rtl');
    // The number itself reads left to right.
    expect(getComputedStyle(inShadow(signIn, 'input[name=phone]')!).direction).to.equal('ltr');
  });
});
