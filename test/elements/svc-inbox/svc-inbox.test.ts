import { expect, fixture, html } from '@open-wc/testing';
import { ChatClient } from '../../../src/client/chat.js';
import '../../../src/elements/svc-inbox/svc-inbox.js';
import type { SvcInbox } from '../../../src/elements/svc-inbox/svc-inbox.js';
import type { ChatStreamRecord } from '../../../src/protocol/types.js';
import { expectAccessible } from '../../helpers/axe.js';
import { mintOperatorSession, mintVisitorSession, service, until } from '../../helpers/browser-service.js';

const text = (node: Node | null | undefined) => node?.textContent?.replace(/\s+/g, ' ').trim() ?? '';
const q = <T extends Element = HTMLElement>(el: SvcInbox, selector: string) =>
  el.shadowRoot!.querySelector<T>(selector);
const all = (el: SvcInbox, selector: string) => [...el.shadowRoot!.querySelectorAll<HTMLElement>(selector)];

async function inbox(token: string, url: string): Promise<SvcInbox> {
  return fixture<SvcInbox>(html`<svc-inbox base-url=${url} token=${token} style="height: 480px"></svc-inbox>`);
}

/** A visitor who asked for a person with `reason`, and what their chat's stream delivers. */
async function visitorAsking(reason: string) {
  const { url } = await service();
  const { token } = await mintVisitorSession();
  const chat = new ChatClient({ baseUrl: url, apiKey: token, agentId: 'agent_echo' });
  const sent = await chat.send({ message: 'my parcel is lost' });
  const { conversationId } = sent;
  await chat.requestHandoff(conversationId, { reason });
  const records: ChatStreamRecord[] = [];
  const stop = new AbortController();
  void (async () => {
    for await (const record of chat.stream(conversationId, { signal: stop.signal })) records.push(record);
  })().catch(() => {});
  return { chat, conversationId, records, stop };
}

describe('<svc-inbox>', () => {
  it('lists a waiting visitor live, takes it, replies, hears the visitor, and releases it', async () => {
    const { url } = await service();
    const alex = await mintOperatorSession('Alex');
    document.title = 'Admin';
    const el = await inbox(alex.token, url);
    const reason = `refund ${Math.random().toString(36).slice(2)}`;
    const visitor = await visitorAsking(reason);
    try {
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
      q<HTMLButtonElement>(el, '[part~=send-button]')!.click();
      await until(
        () =>
          visitor.records.find(
            (r) => r.raw.type === 'operator_message' && JSON.stringify(r.raw).includes('I am on it.'),
          ),
        "the visitor's stream delivers the reply",
      );
      await until(
        () => all(el, '[part~=message-person]').some((m) => text(m) === 'Alex, support I am on it.'),
        'the reply in the inbox',
      );

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
      await until(
        () => text(q(el, '[part~=conversation-header] [role=status]')) === 'The assistant answers',
        'released',
      );
      await until(
        () => visitor.records.some((r) => r.raw.type === 'operator_left'),
        'the visitor hears the person left',
      );
      el.remove();
      expect(document.title, 'the title back once the inbox is gone').to.equal('Admin');
    } finally {
      visitor.stop.abort();
    }
  });

  it('says so when another person took the conversation first', async () => {
    const { url } = await service();
    const reason = `race ${Math.random().toString(36).slice(2)}`;
    const visitor = await visitorAsking(reason);
    visitor.stop.abort();
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
