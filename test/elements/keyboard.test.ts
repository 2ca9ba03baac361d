import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import '../../src/elements/svc-chat/svc-chat.js';
import type { SvcChat } from '../../src/elements/svc-chat/svc-chat.js';
import { tabStops } from '../../src/internal/focus-trap.js';
import { chat, idle, inShadow, part, parts, waitFor } from '../cards/helpers.js';
import { mintVisitorSession, service, until } from '../helpers/browser-service.js';
import { focused, nameOf, press, tabTo, type, within } from '../helpers/focus.js';
import { phonePage } from '../helpers/phone-page.js';

/** A phone-sized page with a button, a launcher chat of a fresh visitor, and another button after it. */
async function phoneWithLauncher() {
  const { url } = await service();
  const { token } = await mintVisitorSession();
  const { frame, doc } = await phonePage(`<button id="before">Before</button>
    <svc-chat mode="launcher" base-url="${url}" token="${token}" agent-ids="agent_aria" lang="en"></svc-chat>
    <button id="after">After</button>`);
  const el = doc.querySelector<SvcChat>('svc-chat')!;
  await el.updateComplete;
  return { frame, doc, el };
}

/**
 * Fails unless the focus is on `element`, naming where it is instead (elements themselves are not compared
 * by chai: serializing a DOM node of another frame for the message is slow).
 */
function expectFocusOn(element: Element | null | undefined, message = 'the focus'): void {
  const at = focused();
  expect(at === element, `${message}: on ${nameOf(element ?? null)}, found on ${nameOf(at)}`).to.equal(true);
}

const isPart = (partName: string) => (element: Element | null) =>
  !!element?.getAttribute('part')?.split(' ').includes(partName);

describe('<svc-chat> with the keyboard alone', () => {
  let frame: HTMLIFrameElement | undefined;
  afterEach(() => {
    frame?.remove();
    frame = undefined;
  });

  /** On the phone page, from the button before the chat: Tab to the launcher, Enter to open it. */
  async function reachAndOpen() {
    const phone = await phoneWithLauncher();
    frame = phone.frame;
    const { doc, el } = phone;
    doc.querySelector<HTMLButtonElement>('#before')!.focus();
    await press('Tab');
    expectFocusOn(part(el, 'launcher'), 'Tab from the page reaches the launcher');
    const opened = oneEvent(el, 'svc-open');
    await press('Enter');
    await opened;
    await el.updateComplete;
    return { doc, el };
  }

  it('on a phone, keeps Tab inside the full-screen panel and gives the focus back to the launcher', async function () {
    this.timeout(30_000);
    const { doc, el } = await reachAndOpen();
    const panel = part(el, 'panel')!;
    expect(panel.getBoundingClientRect().width, 'the panel covers the phone').to.equal(doc.documentElement.clientWidth);
    expect(panel.getAttribute('aria-modal')).to.equal('true');
    expectFocusOn(part(el, 'input'));

    // Round the panel twice: Tab never reaches the page behind it, and comes back to where it started. The empty
    // conversation offers Aria's four starter prompts.
    await until(() => parts(el, 'starter-prompt').length === 4, 'the starter prompts');
    const stops = tabStops(panel);
    expect(stops.map(nameOf)).to.deep.equal([
      'button[part=list-button]',
      'button[part=new-button]',
      'button[part=close-button]',
      'div[part=messages]',
      ...Array(4).fill('button[part=starter-prompt]'),
      'button[part=attach-button]',
      'textarea[part=input]',
      'button[part=send-button]',
    ]);
    const input = stops.indexOf(part(el, 'input')!);
    const visited: string[] = [];
    for (let i = 0; i < stops.length * 2; i++) {
      await press('Tab');
      expect(within(panel, focused()), `Tab ${i + 1} stays in the panel (on ${nameOf(focused())})`).to.equal(true);
      visited.push(nameOf(focused()));
    }
    expect(visited.slice(0, stops.length)).to.deep.equal(
      [...stops.slice(input + 1), ...stops.slice(0, input + 1)].map(nameOf),
    );
    expectFocusOn(part(el, 'input'));

    const closed = oneEvent(el, 'svc-close');
    await press('Escape');
    await closed;
    await el.updateComplete;
    expect(part(el, 'panel')).to.equal(null);
    expectFocusOn(part(el, 'launcher'), 'the focus is back on the launcher');
    await press('Tab');
    expectFocusOn(doc.querySelector('#after'), 'closed, Tab moves on to the page');
  });

  it('reaches the chat, sends, stops, answers a card and views an image without a mouse', async function () {
    this.timeout(60_000);
    const { el } = await reachAndOpen();

    // Send a long reply, then stop it from the same button, which keeps the focus.
    await type('/slow 20');
    await press('Enter');
    await until(() => part(el, 'stop-button'), 'the reply to start');
    await until(() => inShadow(el, 'svc-markdown[streaming]'), 'streamed text');
    await tabTo(isPart('stop-button'), 'the stop button');
    const stopped = oneEvent(el, 'svc-turn-complete');
    await press('Enter');
    expect((await stopped).detail.subtype).to.equal('interrupted');
    await until(() => part(el, 'send-button'), 'the send button back');
    expectFocusOn(part(el, 'send-button'), 'the button kept the focus');

    // Ask for a form, then fill it in and send it from the keyboard.
    await tabTo(isPart('input'), 'the message field');
    await type('/form');
    await press('Enter');
    const card = await waitFor<HTMLElement>(el, 'svc-info-collect', 'the form card');
    await idle(el);
    const answered = oneEvent(el, 'svc-turn-complete');
    await tabTo((e) => e?.getAttribute('name') === 'name', "the card's first field");
    await type('Ada Lovelace');
    await press('Tab');
    await type('ada@example.com');
    // Enter in a field sends the form, as in any form.
    await press('Enter');
    await answered;
    await until(() => card.getAttribute('state') === 'submitted', 'the card answered');
    expectFocusOn(inShadow(card, '[part~=status]'), 'the focus stays in the card, on what happened');

    // Open an image larger, then close it again: the focus goes back to the image.
    await tabTo(isPart('input'), 'the message field');
    await type('/image');
    await press('Enter');
    await waitFor(el, '[part~=image-button]', 'the image');
    await idle(el);
    const image = await tabTo(isPart('image-button'), 'the image');
    await press('Enter');
    const viewer = await waitFor<HTMLDialogElement>(el, '[part~=lightbox]', 'the image viewer');
    await until(() => viewer.open, 'the viewer to open');
    expect(within(viewer, focused()), 'the focus is in the viewer').to.equal(true);
    await press('Escape');
    await until(() => !part(el, 'lightbox'), 'the viewer to close');
    expectFocusOn(image);
    expect(el.opened, 'Escape closed the image, not the chat').to.equal(true);
  });

  it('on a wide screen, leaves the floating panel without a trap: Tab moves on to the page', async () => {
    const { url } = await service();
    const { token } = await mintVisitorSession();
    const page = await fixture<HTMLDivElement>(html`<div><svc-chat mode="launcher" base-url=${url} token=${token}
      agent-ids="agent_echo" lang="en"></svc-chat><button id="after">After</button></div>`);
    const el = page.querySelector('svc-chat')!;
    el.open();
    await el.updateComplete;
    expect(part(el, 'panel')!.hasAttribute('aria-modal')).to.equal(false);
    part<HTMLButtonElement>(el, 'send-button')!.focus();
    await press('Tab');
    expectFocusOn(part(el, 'launcher'), 'next: the launcher, which closes the panel');
    await press('Tab');
    expectFocusOn(page.querySelector('#after'));
    el.close();
  });

  it('makes the read-aloud buttons one Tab stop that the arrow keys move along the replies', async function () {
    this.timeout(30_000);
    const el = await chat({ agent: 'agent_echo' });
    for (const text of ['one', 'two', 'three']) {
      const complete = oneEvent(el, 'svc-turn-complete');
      await el.send(text);
      await complete;
    }
    await until(() => parts(el, 'read-aloud-button').length === 3, 'three replies');
    const buttons = parts(el, 'read-aloud-button');
    const reachable = () => tabStops(part(el, 'panel')!).filter((stop) => buttons.includes(stop));
    expect(reachable(), 'only the newest reply is a Tab stop').to.deep.equal([buttons[2]]);

    // Tab from the list: the visitor's last message's Edit, then the newest reply's actions (copy, …, read aloud).
    part(el, 'messages')!.focus();
    await tabTo((e) => e === buttons[2], "the newest reply's read-aloud button", 4);
    expectFocusOn(buttons[2], 'Tab from the list reaches the newest reply');
    await press('ArrowUp');
    expectFocusOn(buttons[1]);
    await press('Home');
    expectFocusOn(buttons[0]);
    await press('End');
    expectFocusOn(buttons[2]);
    await press('ArrowUp');
    await el.updateComplete;
    expect(reachable(), 'the button focused last is the Tab stop now').to.deep.equal([buttons[1]]);
    await press('Tab');
    expect(buttons.includes(focused() as HTMLElement), 'Tab leaves the buttons').to.equal(false);
  });
});
