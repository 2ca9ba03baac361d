import { expect, fixture, html, nextFrame, oneEvent } from '@open-wc/testing';
import '../../../src/elements/svc-chat/svc-chat.js';
import { ChatClient } from '../../../src/client/chat.js';
import { HttpClient } from '../../../src/client/http.js';
import type { SvcChat } from '../../../src/elements/svc-chat/svc-chat.js';
import { mintVisitorSession, service, until } from '../../helpers/browser-service.js';
import { allInShadow, belowView, inShadow, part } from '../../helpers/chat-parts.js';
import { chatReady } from '../../helpers/chat-ready.js';
import { phonePage } from '../../helpers/phone-page.js';

type Updating = Element & { updateComplete: Promise<unknown> };

/** Resolves once each image in view of `list` has loaded (those out of view load lazily, when they come in). */
async function imagesInViewLoaded(list: HTMLElement): Promise<void> {
  const view = list.getBoundingClientRect();
  const images = [...list.querySelectorAll('img')].filter((image) => {
    const box = image.getBoundingClientRect();
    return box.bottom > view.top && box.top < view.bottom;
  });
  await until(() => images.every((image) => image.complete), 'the images in view');
}

/**
 * Resolves once everything in the chat that lays out after its first render has: the markdown (its engine
 * loads apart), the cards (each renders itself), the images in view; then the frame in which the chat
 * reacts to the last of these sizes.
 */
async function laidOut(el: SvcChat): Promise<void> {
  await until(() => !part(el, 'messages')?.querySelector('.history-note'), 'the history');
  const updating = allInShadow<Updating>(el, 'svc-markdown, [part~=card]');
  await Promise.all(updating.map((e) => e.updateComplete));
  await nextFrame();
  await imagesInViewLoaded(part(el, 'messages')!);
  await nextFrame();
  await nextFrame();
}

/** A conversation of agent Aria with long markdown, images and cards: what lays out after the first render. */
async function richConversation(token: string, commands: string[]): Promise<string> {
  const { url } = await service();
  const chat = new ChatClient(new HttpClient({ baseUrl: url, apiKey: token }));
  let conversationId: string | undefined;
  for (const message of commands) {
    const turn = await chat.sendMessage({
      message,
      conversationId,
      targetAgentIds: ['agent_aria'],
      newConversation: !conversationId,
    });
    conversationId = turn.conversationId;
  }
  return conversationId!;
}

describe('scroll follow', () => {
  it('opens a conversation restored by persist at its newest message, after its content lays out', async function () {
    this.timeout(60_000);
    localStorage.clear();
    const { url } = await service();
    const { token } = await mintVisitorSession();
    const id = await richConversation(token, ['/markdown', '/image', '/form', '/markdown', '/image', '/pay 9.9']);
    localStorage.setItem('svc-chat:reload|agent_aria', id);
    const el = await fixture<SvcChat>(html`<div style="height: 600px"><svc-chat base-url=${url} token=${token}
      agent-ids="agent_aria" persist="reload"></svc-chat></div>`).then((d) => chatReady(d.querySelector('svc-chat')!));
    await until(() => inShadow(el, 'svc-payment-gate'), 'the newest message, a payment card');
    await laidOut(el);
    const list = part(el, 'messages')!;
    expect(list.scrollHeight).to.be.above(list.clientHeight * 3);
    // An image above the view may still arrive (it loads lazily, when near): the chat then follows in the frame
    // after it grows, which is when this asks.
    await until(() => belowView(list) < 2, 'the view at the newest message');
    expect(belowView(list)).to.be.below(2);
    expect(part(el, 'jump-button')).to.equal(null);
  });

  it('brings a card that arrives while the visitor follows the end fully into view', async function () {
    this.timeout(60_000);
    const { url } = await service();
    const { token } = await mintVisitorSession();
    const id = await richConversation(token, ['/markdown', '/image']);
    const el = await fixture<SvcChat>(html`<div style="height: 640px"><svc-chat base-url=${url} token=${token}
      agent-ids="agent_aria" conversation-id=${id}></svc-chat></div>`).then((d) =>
      chatReady(d.querySelector('svc-chat')!),
    );
    await until(() => inShadow(el, '[part~=image]'), 'the history');
    await laidOut(el);
    for (const [command, card] of [
      ['/connect github', 'svc-connector-setup'],
      ['/pay 9.9', 'svc-payment-gate'],
    ]) {
      const done = oneEvent(el, 'svc-turn-complete');
      await el.send(command);
      await done;
      await until(() => allInShadow(el, card).length, `the ${card}`);
      await laidOut(el);
      const list = part(el, 'messages')!;
      const boxes = () => ({
        shown: list.getBoundingClientRect(),
        box: allInShadow(el, card).at(-1)!.getBoundingClientRect(),
      });
      // As above: the chat follows an image that arrives late in the frame after it grows.
      await until(() => {
        const { shown, box } = boxes();
        return box.top >= shown.top && box.bottom <= shown.bottom + 1;
      }, `the ${card} in view`);
      const { shown, box } = boxes();
      expect(box.top, `the top of ${card}`).to.be.at.least(shown.top);
      expect(box.bottom, `the bottom of ${card}`).to.be.at.most(shown.bottom + 1);
    }
  });

  it('shows the top of a card taller than the view on a phone', async function () {
    this.timeout(60_000);
    const { url } = await service();
    const { token } = await mintVisitorSession();
    const id = await richConversation(token, ['/markdown']);
    const { frame, doc } = await phonePage(`<svc-chat mode="launcher" base-url="${url}" token="${token}"
      agent-ids="agent_aria" conversation-id="${id}" lang="en"></svc-chat>`);
    try {
      const el = doc.querySelector<SvcChat>('svc-chat')!;
      el.open();
      await el.updateComplete;
      await until(() => inShadow(el, 'svc-markdown'), 'the history');
      await laidOut(el);
      const done = oneEvent(el, 'svc-turn-complete');
      await el.send('/form');
      await done;
      const card = await until(() => inShadow<HTMLElement>(el, 'svc-info-collect'), 'the form');
      await laidOut(el);
      const list = part(el, 'messages')!;
      const shown = list.getBoundingClientRect();
      const box = card.getBoundingClientRect();
      expect(box.height).to.be.above(shown.height);
      // Its title and first field are in view: the visitor reads the card from its start.
      expect(box.top).to.be.at.least(shown.top);
      expect(box.top).to.be.below(shown.top + 40);
      // The visitor reads on to its end (its send button), the end of the conversation: the list stays there.
      const scrolled = oneEvent(list, 'scroll');
      list.scrollTop = list.scrollHeight;
      await scrolled;
      await nextFrame();
      expect(belowView(list)).to.be.below(2);
      // A message above grows meanwhile (an image in it loads late): the list stays at the end the visitor
      // reads, not back at the card's top.
      const moved = oneEvent(list, 'scroll');
      list.firstElementChild!.querySelector<HTMLElement>('[part~=bubble]')!.style.paddingBottom = '120px';
      await moved;
      await nextFrame();
      expect(belowView(list)).to.be.below(2);
    } finally {
      frame.remove();
    }
  });
  it('follows a long reply only until its question reaches the top, so the reply reads from its start', async function () {
    this.timeout(60_000);
    const { url } = await service();
    const { token } = await mintVisitorSession();
    const el = await fixture<SvcChat>(html`<div style="height: 600px"><svc-chat base-url=${url} token=${token}
      agent-ids="agent_aria"></svc-chat></div>`).then((d) => chatReady(d.querySelector('svc-chat')!));
    const list = part(el, 'messages')!;
    // A short reply: the newest stays in view, as before.
    let done = oneEvent(el, 'svc-turn-complete');
    await el.send('/think');
    await done;
    await laidOut(el);
    expect(belowView(list), 'a short reply, followed to its end').to.be.below(2);
    // Where the question is, at each scroll of the list while the long reply streams.
    const questionTops: number[] = [];
    const question = () => allInShadow<HTMLElement>(el, '[part~=message-user]').at(-1)!;
    const onScroll = () => questionTops.push(question().getBoundingClientRect().top - list.getBoundingClientRect().top);
    list.addEventListener('scroll', onScroll);
    done = oneEvent(el, 'svc-turn-complete');
    await el.send('/markdown');
    await done;
    await laidOut(el);
    list.removeEventListener('scroll', onScroll);
    expect(question().textContent?.trim()).to.equal('/markdown');
    const shown = list.getBoundingClientRect();
    const top = question().getBoundingClientRect().top;
    // The question, and the reply's start below it, are at the top of the view; the reply goes on below it.
    expect(top, 'the question in view').to.be.at.least(shown.top);
    expect(top, 'the question at the top of the view').to.be.below(shown.top + 40);
    expect(Math.min(...questionTops), 'the question never scrolled away').to.be.at.least(-1);
    expect(belowView(list), 'the rest of the reply below the view').to.be.above(list.clientHeight);
    expect(part(el, 'jump-button'), 'the way to the end').not.to.equal(null);
  });

  it('follows a long reply to its end again once the visitor scrolls there', async function () {
    this.timeout(60_000);
    const { url } = await service();
    const { token } = await mintVisitorSession();
    const el = await fixture<SvcChat>(html`<div style="height: 300px; width: 320px"><svc-chat base-url=${url}
      token=${token} agent-ids="agent_aria"></svc-chat></div>`).then((d) => chatReady(d.querySelector('svc-chat')!));
    const list = part(el, 'messages')!;
    const done = oneEvent(el, 'svc-turn-complete');
    await el.send('/slow 15');
    // The reply reaches the top of the view: the chat stops following it and offers the way to its end.
    await until(() => part(el, 'jump-button'), 'the chat held at the question');
    expect(part(el, 'stop-button'), 'the reply still streaming').not.to.equal(null);
    expect(belowView(list)).to.be.above(0);
    // The visitor scrolls to the end themselves: the chat follows it again as it grows.
    list.scrollTop = list.scrollHeight;
    list.dispatchEvent(new Event('scroll'));
    const height = list.scrollHeight;
    await until(() => list.scrollHeight > height, 'more of the reply');
    await nextFrame();
    expect(part(el, 'stop-button'), 'the reply still streaming').not.to.equal(null);
    expect(belowView(list), 'the end followed').to.be.below(2);
    await done;
    await laidOut(el);
    expect(belowView(list), 'the end followed to the last word').to.be.below(2);
    expect(part(el, 'jump-button')).to.equal(null);
  });
});
