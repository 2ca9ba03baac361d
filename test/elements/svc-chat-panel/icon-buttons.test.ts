import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import '../../../src/elements/svc-chat/svc-chat.js';
import type { SvcChat } from '../../../src/elements/svc-chat/svc-chat.js';
import en from '../../../src/labels/en.js';
import { expectAccessibleInBothThemes } from '../../helpers/axe.js';
import { mintVisitorSession, service, until } from '../../helpers/browser-service.js';
import { allInShadow, part } from '../../helpers/chat-parts.js';
import { chatReady } from '../../helpers/chat-ready.js';
import { focused, nameOf, press } from '../../helpers/focus.js';

/** The icon buttons of the panel: those whose drawing alone says what they do. */
const ICON_BUTTONS = '.icon-button, [part~=send-button], [part~=stop-button], [part~=jump-button]';

/** The tooltip of `button` as drawn: its text, and whether it shows. */
function tooltip(button: Element): { text: string; shown: boolean } {
  const style = getComputedStyle(button, '::after');
  // Chromium and WebKit report the text drawn; Firefox the `attr()` it is drawn from.
  const from = /^attr\(([\w-]+)\)$/.exec(style.content)?.[1];
  const text = from ? (button.getAttribute(from) ?? '') : style.content.replace(/^"|"$/g, '');
  return { text, shown: style.visibility === 'visible' };
}

/** A chat on a desktop, after the demo agent answered: the header's buttons, a reply's actions, the composer. */
async function chatWithReply(): Promise<SvcChat> {
  const { url } = await service();
  const { token } = await mintVisitorSession();
  const el =
    await fixture<SvcChat>(html`<div style="height: 600px; width: 480px"><button id="before">before</button><svc-chat base-url=${url}
    token=${token} agent-ids="agent_aria" lang="en"></svc-chat></div>`).then((d) =>
      chatReady(d.querySelector('svc-chat')!),
    );
  const done = oneEvent(el, 'svc-turn-complete');
  await el.send('/help');
  await done;
  await until(() => part(el, 'copy-button'), "the reply's actions");
  return el;
}

describe('icon buttons', () => {
  it('show their name as a tooltip on keyboard focus, the name they are read by', async function () {
    this.timeout(60_000);
    const el = await chatWithReply();
    // From the page's button before the chat, as a keyboard user comes in.
    document.querySelector<HTMLButtonElement>('#before')!.focus();
    // Every icon button the keyboard reaches, from the header's first to the send button: each shows its tooltip
    // while it has the focus.
    const seen = new Map<string, string>();
    for (let i = 0; i < 40 && !seen.has('send-button'); i++) {
      await press('Tab');
      const button = focused();
      if (!button?.matches(ICON_BUTTONS)) continue;
      const tip = tooltip(button);
      expect(tip.shown, `the tooltip of ${nameOf(button)} on focus`).to.equal(true);
      expect(tip.text, `the tooltip of ${nameOf(button)}`).to.equal(button.getAttribute('aria-label'));
      seen.set(button.getAttribute('part')!, tip.text);
    }
    expect(seen.get('list-button')).to.equal(en.chat.conversations);
    expect(seen.get('new-button')).to.equal(en.chat.newConversation);
    expect(seen.get('copy-button')).to.equal(en.chat.copyReply);
    expect(seen.get('regenerate-button')).to.equal(en.chat.regenerate);
    // The focus on the send button, the others' tooltips are hidden again.
    for (const button of allInShadow(el, ICON_BUTTONS).filter((b) => b !== focused())) {
      expect(tooltip(button).shown, `the tooltip of ${nameOf(button)} without the focus`).to.equal(false);
    }
    part(el, 'copy-button')!.focus();
    await expectAccessibleInBothThemes(el, 'a tooltip shown');
  });

  it('are targets of at least 32 px on a desktop, the back button among them', async function () {
    this.timeout(60_000);
    const el = await chatWithReply();
    const sizes = () => allInShadow(el, ICON_BUTTONS).map((b) => ({ name: nameOf(b), box: b.getBoundingClientRect() }));
    for (const { name, box } of sizes()) {
      expect(box.width, `the width of ${name}`).to.be.at.least(32);
      expect(box.height, `the height of ${name}`).to.be.at.least(32);
    }
    part(el, 'new-button')!.click();
    const back = await until(() => part(el, 'previous-button'), 'the way back');
    expect(back.getAttribute('aria-label')).to.equal(en.chat.previousConversation);
    const box = back.getBoundingClientRect();
    expect(Math.min(box.width, box.height), 'the back button').to.be.at.least(32);
  });
});
