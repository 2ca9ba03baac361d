import { expect, fixture, html, nextFrame, oneEvent } from '@open-wc/testing';
import '../../../src/elements/svc-chat/svc-chat.js';
import type { SvcChat } from '../../../src/elements/svc-chat/svc-chat.js';
import { ariaConversation } from '../../helpers/aria-conversation.js';
import { mintVisitorSession, service, until } from '../../helpers/browser-service.js';
import { allInShadow, belowView, inShadow, part, parts } from '../../helpers/chat-parts.js';
import { chatReady } from '../../helpers/chat-ready.js';

type Updating = Element & { updateComplete: Promise<unknown> };

/** Resolves once the markdown and cards shown have rendered, and the chat has reacted to their sizes. */
async function laidOut(el: SvcChat): Promise<void> {
  await Promise.all(allInShadow<Updating>(el, 'svc-markdown, [part~=card]').map((e) => e.updateComplete));
  await nextFrame();
  await nextFrame();
}

describe('jump to newest', () => {
  it('does not show at the end after a form in a long conversation is answered, nor cover an action', async function () {
    this.timeout(60_000);
    const { url } = await service();
    const { token } = await mintVisitorSession();
    const id = await ariaConversation(token, ['/markdown', '/markdown', '/form']);
    const el = await fixture<SvcChat>(html`<div style="height: 480px; width: 420px"><svc-chat base-url=${url}
      token=${token} agent-ids="agent_aria" conversation-id=${id}></svc-chat></div>`).then((d) =>
      chatReady(d.querySelector('svc-chat')!),
    );
    const card = await until(() => inShadow<HTMLElement>(el, 'svc-info-collect'), 'the form');
    await laidOut(el);
    const list = part(el, 'messages')!;
    // The form is taller than the view, shown from its top; the visitor reads on down to its buttons, short of
    // the conversation's very end.
    await until(() => card.getBoundingClientRect().height > list.clientHeight, 'the form taller than the view');
    let scrolled = oneEvent(list, 'scroll');
    list.scrollTop = list.scrollHeight - list.clientHeight - 60;
    await scrolled;
    // The visitor skips the form: it shrinks to a line, which brings the list up to its end, and the reply comes.
    const done = oneEvent(el, 'svc-turn-complete');
    card.shadowRoot!.querySelector<HTMLButtonElement>('[part~=secondary-button]')!.click();
    await done;
    await until(() => card.getAttribute('state') === 'skipped', 'the form skipped');
    await laidOut(el);
    const last = () => parts(el, 'message').at(-1)!;
    await until(() => last().querySelector('[part~=feedback-down-button]'), "the reply's actions");
    if (belowView(list) < 48) {
      expect(!!part(el, 'jump-button'), 'a way to the end at the end').to.equal(false);
    } else {
      // Away from the end: the visitor scrolls there themselves, and the way there goes.
      scrolled = oneEvent(list, 'scroll');
      list.scrollTop = list.scrollHeight;
      await scrolled;
      await el.updateComplete;
      await nextFrame();
      expect(!!part(el, 'jump-button'), 'a way to the end at the end').to.equal(false);
    }
    // The reply's actions are all there to be pressed, none under anything.
    for (const button of last().querySelectorAll<HTMLElement>('[part~=message-actions] button')) {
      const box = button.getBoundingClientRect();
      const hit = button.getRootNode() as ShadowRoot;
      const top = hit.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
      expect(top === button || button.contains(top), `${button.ariaLabel} under ${top?.outerHTML}`).to.equal(true);
    }
  });

  it('shows below the list, over no message, while a reply goes on out of view', async function () {
    this.timeout(60_000);
    const { url } = await service();
    const { token } = await mintVisitorSession();
    const id = await ariaConversation(token, ['/markdown']);
    const el = await fixture<SvcChat>(html`<div style="height: 400px; width: 420px"><svc-chat base-url=${url}
      token=${token} agent-ids="agent_aria" conversation-id=${id}></svc-chat></div>`).then((d) =>
      chatReady(d.querySelector('svc-chat')!),
    );
    await until(() => inShadow(el, 'svc-markdown'), 'the history');
    await laidOut(el);
    const list = part(el, 'messages')!;
    const done = oneEvent(el, 'svc-turn-complete');
    await el.send('/slow 15');
    await until(() => part(el, 'stop-button'), 'the reply streaming');
    // The visitor scrolls up to read what came before, while the reply streams on.
    const scrolled = oneEvent(list, 'scroll');
    list.scrollTop = 0;
    await scrolled;
    const jump = await until(() => part(el, 'jump-button'), 'the way to the newest message');
    expect(belowView(list)).to.be.above(48);
    const button = jump.getBoundingClientRect();
    expect(button.height, 'a target of 32 px').to.be.at.least(32);
    expect(button.top, 'below the list, not over it').to.be.at.least(list.getBoundingClientRect().bottom - 1);
    jump.click();
    await until(() => !part(el, 'jump-button'), 'the button gone at the end');
    expect(belowView(list)).to.be.below(48);
    await done;
  });
});
