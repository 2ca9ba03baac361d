import { expect, fixture, html } from '@open-wc/testing';
import { ChatClient } from '../../../src/client/chat.js';
import '../../../src/elements/svc-inbox/svc-inbox.js';
import type { SvcInbox } from '../../../src/elements/svc-inbox/svc-inbox.js';
import { expectAccessible } from '../../helpers/axe.js';
import { mintOperatorSession, mintVisitorSession, service, until } from '../../helpers/browser-service.js';

const text = (node: Node | null | undefined) => node?.textContent?.replace(/\s+/g, ' ').trim() ?? '';
const q = <T extends Element = HTMLElement>(el: SvcInbox, selector: string) =>
  el.shadowRoot!.querySelector<T>(selector);
const all = (el: SvcInbox, selector: string) => [...el.shadowRoot!.querySelectorAll<HTMLElement>(selector)];

async function inbox(token: string, url: string): Promise<SvcInbox> {
  return fixture<SvcInbox>(html`<svc-inbox base-url=${url} token=${token} style="height: 480px"></svc-inbox>`);
}

/**
 * A visitor who asked for a person with `reason`; with `replying`, while the agent's reply still runs (the demo's
 * `/slow` for two minutes: the person's take must stop it).
 */
async function visitorAsking(reason: string, replying = false) {
  const { url } = await service();
  const { token } = await mintVisitorSession();
  const chat = new ChatClient({ baseUrl: url, apiKey: token });
  // Echo repeats the message: the queue's last message says it whether or not the reply came first.
  const { conversationId } = await chat.send(
    replying
      ? { message: '/slow 120 my parcel is lost', targetAgentIds: ['agent_aria'] }
      : { message: 'my parcel is lost', targetAgentIds: ['agent_echo'] },
  );
  // The send answers once its reply is stored as running: `/slow` runs on. Echo's ended first (a person's message
  // waits for no reply, but the test reads a settled conversation).
  if (!replying) {
    await until(
      async () => (await chat.history(conversationId)).entries.some((r) => r.raw.type === 'result'),
      'the echo',
    );
  }
  await chat.requestHandoff(conversationId, { reason });
  /** What the visitor's history holds now (read once the inbox showed the change: the service stored it). */
  const recordTypes = async () => (await chat.history(conversationId)).entries.map((r) => r.raw.type);
  return { chat, conversationId, recordTypes };
}

describe('<svc-inbox>', () => {
  it('lists a waiting visitor live, takes it (stopping the reply), replies, hears the visitor, releases it', async function () {
    // A flow of many steps against the service that the other engines' runs share.
    this.timeout(60_000);
    const { url } = await service();
    const alex = await mintOperatorSession('Alex');
    document.title = 'Admin';
    const el = await inbox(alex.token, url);
    const reason = `refund ${Math.random().toString(36).slice(2)}`;
    const visitor = await visitorAsking(reason, true);
    const entry = await until(
      () => all(el, '[part~=queue-entry]').find((b) => text(b).includes(reason)),
      'the visitor in the queue',
    );
    expect(text(entry)).to.include('my parcel is lost');
    expect(document.title, 'the page says visitors wait').to.match(/^\(\d+\) Admin$/);
    await expectAccessible(el, 'the queue');
    entry.click();
    const take = await until(() => q<HTMLButtonElement>(el, '[part~=take-button]'), 'Take');
    take.click();
    await until(() => text(q(el, '[part~=conversation-header] [role=status]')) === 'Alex holds it', 'taken');

    const input = await until(() => q<HTMLTextAreaElement>(el, '[part~=input]'), 'the reply field');
    input.value = 'I am on it.';
    // The stream may show the take before it answers (once the reply it stopped has ended): Send waits for that.
    const sendButton = await until(
      () => q<HTMLButtonElement>(el, '[part~=send-button]:not([disabled])'),
      'Send, once the take answered',
    );
    sendButton.click();
    await until(
      () => all(el, '[part~=message-person]').some((m) => text(m) === 'Alex, support I am on it.'),
      'the reply in the inbox',
    );
    const said = (await visitor.chat.history(visitor.conversationId)).entries.find(
      (r) => r.raw.type === 'operator_message',
    );
    expect(JSON.stringify(said?.raw), "the visitor's conversation has it").to.include('I am on it.');

    await visitor.chat.send({ message: 'thank you', conversationId: visitor.conversationId });
    await until(
      () => all(el, '[part~=message-visitor]').some((m) => text(m).includes('thank you')),
      'the visitor live',
    );
    await expectAccessible(el, 'a conversation held');

    // Another person presses Take too late: one clear sentence.
    const sam = await fixture<SvcInbox>(
      html`<svc-inbox base-url=${url} token=${(await mintOperatorSession('Sam')).token}></svc-inbox>`,
    );
    void sam.open(visitor.conversationId);
    await until(() => text(q(sam, '[part~=conversation-header] [role=status]')) === 'Alex holds it', 'held, for Sam');
    expect(q(sam, '[part~=take-button]'), 'not offered: it is held').to.equal(null);

    q<HTMLButtonElement>(el, '[part~=release-button]')!.click();
    await until(() => text(q(el, '[part~=conversation-header] [role=status]')) === 'The assistant answers', 'released');
    expect(await visitor.recordTypes(), 'the visitor is told the person left').to.include('operator_left');
    el.remove();
    expect(document.title, 'the title back once the inbox is gone').to.equal('Admin');
  });

  it('says so when another person took the conversation first', async function () {
    this.timeout(60_000);
    const { url } = await service();
    const reason = `race ${Math.random().toString(36).slice(2)}`;
    await visitorAsking(reason);
    const first = await inbox((await mintOperatorSession('Alex')).token, url);
    const second = await inbox((await mintOperatorSession('Sam')).token, url);
    for (const el of [first, second]) {
      const entry = await until(
        () => all(el, '[part~=queue-entry]').find((b) => text(b).includes(reason)),
        'the visitor in both queues',
      );
      entry.click();
      await until(() => q(el, '[part~=take-button]'), 'Take in both');
    }
    const errors: string[] = [];
    for (const el of [first, second]) el.addEventListener('svc-error', (e) => errors.push(e.detail.message));
    // Both press Take at once: one owner, and the other one clear sentence.
    q<HTMLButtonElement>(first, '[part~=take-button]')!.click();
    q<HTMLButtonElement>(second, '[part~=take-button]')!.click();
    const refused = await until(() => [first, second].find((el) => q(el, '[part~=error]')), 'the refusal');
    const owner = refused === first ? second : first;
    expect(text(q(refused, '[part~=error]'))).to.equal('Another person has already taken this conversation.');
    expect(errors).to.deep.equal(['another person has already taken this conversation']);
    const name = owner === first ? 'Alex' : 'Sam';
    await until(() => text(q(owner, '[part~=conversation-header] [role=status]')) === `${name} holds it`, 'one owner');
    expect(q(owner, '[part~=error]')).to.equal(null);
  });
});
