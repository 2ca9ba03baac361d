import { expect, fixture, html } from '@open-wc/testing';
import { ifDefined } from 'lit/directives/if-defined.js';
import '../../../src/elements/svc-chat/svc-chat.js';
import { OperatorInbox } from '../../../src/client/operators.js';
import type { SvcChat } from '../../../src/elements/svc-chat/svc-chat.js';
import { expectAccessible } from '../../helpers/axe.js';
import { mintOperatorSession, mintVisitorSession, service, until } from '../../helpers/browser-service.js';
import { panelRoot, part, parts } from '../../helpers/chat-parts.js';

/** The chat as a page embeds it with "Talk to a person" offered, on conversation `id` if given (a reload). */
async function chat(token: string, url: string, id?: string): Promise<SvcChat> {
  return fixture<SvcChat>(html`<svc-chat base-url=${url} token=${token} agent-ids="agent_echo" lang="en" handoff
    conversation-id=${ifDefined(id)}></svc-chat>`);
}

const text = (el: Node | null) => el?.textContent?.replace(/\s+/g, ' ').trim() ?? '';
/** What a row says: its name, and its reply's text rendered by `<svc-markdown>` (in that element's own root). */
const rowText = (row: Element) =>
  `${text(row.querySelector('[part~=name]'))}: ${[...row.querySelectorAll('svc-markdown')].map((m) => text(m.shadowRoot)).join(' ')}`;
const statusLine = (el: SvcChat) => text(panelRoot(el).querySelector('[part~=handoff] [role=status]'));
const badge = (el: SvcChat) => text(part(el, 'person-badge'));

/** Sends `message` as the visitor; resolves with the conversation's id once the service stored it. */
async function send(el: SvcChat, message: string): Promise<string> {
  const sent = new Promise<string>((resolve) =>
    el.addEventListener('svc-message-sent', (e) => resolve(e.detail.result.conversationId), { once: true }),
  );
  const input = await until(() => part<HTMLTextAreaElement>(el, 'input'), 'the composer');
  input.value = message;
  input.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  part<HTMLButtonElement>(el, 'send-button')!.click();
  return sent;
}

describe('<svc-chat handoff>: a person takes the conversation over', () => {
  it('asks for a person, shows who holds it (also after a reload), their messages, and the agent again', async function () {
    // A flow of many steps against the service that the other engines' runs share.
    this.timeout(60_000);
    const { url } = await service();
    const { token } = await mintVisitorSession();
    const el = await chat(token, url);
    // No conversation yet: there is nobody to ask.
    await until(() => part(el, 'input'), 'the composer');
    expect(part(el, 'handoff-button')).to.equal(null);
    const conversationId = await send(el, 'hello');
    await until(() => parts(el, 'message-agent').length === 1, 'the echo');

    part<HTMLButtonElement>(el, 'handoff-button')!.click();
    await until(() => statusLine(el) === 'Waiting for a person to join…', 'waiting for a person');
    expect(part(el, 'handoff-button'), 'asked once').to.equal(null);
    await expectAccessible(el, 'waiting for a person');

    // A person of the staff takes it, in their inbox.
    const operator = await mintOperatorSession('Alex');
    const inbox = new OperatorInbox({ baseUrl: url, apiKey: operator.token });
    const queue = await inbox.queue();
    expect(queue.waiting.map((entry) => entry.conversationId)).to.include(conversationId);
    await inbox.take(conversationId);
    await until(() => badge(el) === 'Alex, support', 'the badge in the header');
    expect(statusLine(el)).to.equal('Alex joined the conversation.');

    await inbox.send(conversationId, 'Hi, I am Alex. How can I help?');
    const row = await until(
      () => parts(el, 'message-agent').find((m) => rowText(m).includes('Hi, I am Alex')),
      "the person's message",
    );
    expect(text(row.querySelector('[part~=name]'))).to.equal('Alex, support');
    expect(row.querySelector('[part~=copy-button]'), 'no reply actions on a person').to.equal(null);
    await until(
      () => text(part(el, 'announcer')) === 'Alex, support: Hi, I am Alex. How can I help?',
      'the message read out',
    );
    await expectAccessible(el, "a person's message and the badge");

    // The visitor answers: the person gets it, no agent answers.
    await send(el, 'My order is late');
    const history = await inbox.history(conversationId);
    expect(
      history.entries.some((r) => r.raw.type === 'user' && JSON.stringify(r.raw).includes('My order is late')),
    ).to.equal(true);
    expect(parts(el, 'message-agent').filter((m) => rowText(m).includes('My order is late'))).to.have.length(0);

    // A reload shows the same: the person holds it.
    el.remove();
    const again = await chat(token, url, conversationId);
    await until(() => badge(again) === 'Alex, support', 'the badge after a reload');
    expect(
      parts(again, 'message-agent').some((m) => rowText(m) === 'Alex, support: Hi, I am Alex. How can I help?'),
    ).to.equal(true);
    expect(text(part(again, 'announcer')), 'history is not read out').to.equal('');

    // Released: the agent answers again.
    await inbox.release(conversationId);
    await until(() => statusLine(again) === 'You are talking with the assistant again.', 'back to the agent');
    expect(badge(again)).to.equal('');
    const before = parts(again, 'message-agent').length;
    await send(again, 'still there?');
    await until(() => parts(again, 'message-agent').length === before + 1, "the agent's reply");
    expect(part(again, 'handoff-button'), 'a person can be asked again').to.not.equal(null);
  });
});
