import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import { ChatClient } from '../../../src/client/chat.js';
import '../../../src/elements/svc-chat/svc-chat.js';
import type { SvcChat } from '../../../src/elements/svc-chat/svc-chat.js';
import ar from '../../../src/labels/ar.js';
import en from '../../../src/labels/en.js';
import zh from '../../../src/labels/zh-CN.js';
import { part, parts } from '../../cards/helpers.js';
import { axeViolations, describeViolations } from '../../helpers/axe.js';
import { mintVisitorSession, service, until } from '../../helpers/browser-service.js';
import { chatReady } from '../../helpers/chat-ready.js';
import { focused, press, type } from '../../helpers/focus.js';

async function chatOf(token: string, lang = 'en'): Promise<SvcChat> {
  const { url } = await service();
  return fixture<SvcChat>(html`<div style="height: 560px"><svc-chat base-url=${url} token=${token} lang=${lang}
    agent-ids="agent_echo"></svc-chat></div>`).then((d) => chatReady(d.querySelector('svc-chat')!));
}

async function exchange(el: SvcChat, text: string): Promise<void> {
  const done = oneEvent(el, 'svc-turn-complete');
  await el.send(text);
  await done;
}

const titles = (el: SvcChat) => parts(el, 'conversation-title').map((t) => t.textContent?.trim());
const userTexts = (el: SvcChat) => parts(el, 'message-user').map((m) => m.textContent?.trim());

/** Shows the list and waits for its rows. */
async function showList(el: SvcChat, rows: number): Promise<void> {
  part(el, 'list-button')!.click();
  await until(
    () => titles(el).length === rows && !part(el, 'conversations')?.matches('[aria-busy=true]'),
    `${rows} rows`,
  );
}

describe('the conversation list', () => {
  it('lists the conversations newest first; opens an older one, continues it, renames and deletes one', async () => {
    const { token } = await mintVisitorSession();
    const el = await chatOf(token);
    for (const text of ['about trains', 'about boats', 'about planes']) {
      part(el, 'new-button')!.click();
      await exchange(el, text);
    }
    await showList(el, 3);
    const button = part(el, 'list-button')!;
    expect(button.getAttribute('aria-pressed')).to.equal('true');
    expect(button.getAttribute('aria-label')).to.equal(en.chat.backToChat);
    expect(titles(el)).to.deep.equal(['about planes', 'about boats', 'about trains']);
    // A preview shows once the markdown engine that makes it plain text has loaded (it may still be on its way).
    const meta = () => part(el, 'conversation-meta')!.textContent!.replace(/\s+/g, ' ').trim();
    await until(() => meta().includes(' · '), 'the preview');
    expect(meta()).to.match(/ · Echo: Echo: about planes$/, 'the agent, then its reply');
    expect(parts(el, 'conversation-meta')[0]!.querySelector('time')!.getAttribute('datetime')).to.match(/^\d{4}-/);
    // The one shown is marked current; each row's button is described by its time and preview.
    const opens = parts<HTMLButtonElement>(el, 'conversation-open');
    expect(opens.map((b) => b.getAttribute('aria-current'))).to.deep.equal(['true', 'false', 'false']);
    const described = opens[1]!.getAttribute('aria-describedby')!;
    expect(
      opens[1]!.getRootNode() instanceof ShadowRoot &&
        (opens[1]!.getRootNode() as ShadowRoot).getElementById(described),
    ).to.be.ok;
    // The focus is on the first row, for a keyboard.
    await until(() => focused() === opens[0], 'the focus on the first row');
    expect(describeViolations(await axeViolations(el))).to.equal('');

    // Open the oldest: its history pages in; continue it.
    opens[2]!.click();
    await until(() => userTexts(el)[0] === 'about trains', 'the oldest conversation');
    expect(part(el, 'conversations')).to.equal(null);
    await exchange(el, 'and buses');
    await showList(el, 3);
    expect(titles(el)).to.deep.equal(['about trains', 'about planes', 'about boats']);

    // Rename from the keyboard: the rename button, the field, Enter.
    parts<HTMLButtonElement>(el, 'rename-button')[1]!.click();
    const field = await until(() => part<HTMLInputElement>(el, 'rename-input'), 'the title field');
    await until(() => focused() === field, 'the focus in the title field');
    field.select();
    await type('Flights');
    await press('Enter');
    await until(() => titles(el)[1] === 'Flights', 'the new title');
    await until(() => focused()?.getAttribute('part') === 'conversation-open', 'the focus back on the row');

    // Delete the one shown, after confirming: the chat starts a new conversation.
    parts<HTMLButtonElement>(el, 'delete-button')[0]!.click();
    const confirm = await until(() => part<HTMLButtonElement>(el, 'confirm-delete'), 'the confirmation');
    expect(part(el, 'confirm')!.textContent).to.contain(en.chat.confirmDelete('about trains'));
    expect(describeViolations(await axeViolations(el))).to.equal('');
    confirm.click();
    await until(() => titles(el).length === 2, 'the row gone');
    expect(titles(el)).to.deep.equal(['Flights', 'about boats']);
    part(el, 'list-button')!.click();
    await until(() => part(el, 'empty'), 'a new, empty conversation');
    expect(userTexts(el)).to.deep.equal([]);
  });

  it('says a delete that failed in a sentence, keeps the confirmation to try again, and deletes then', async () => {
    const { url } = await service();
    const { token } = await mintVisitorSession();
    // The service refuses deletes while `refusing` (as it does while its database is away), and answers the rest.
    let refusing = true;
    const refused = () =>
      new Response(JSON.stringify({ detail: 'the database cannot be reached, try again' }), {
        status: 503,
        headers: { 'content-type': 'application/json', 'retry-after': '1' },
      });
    const deleting: typeof fetch = (input, init) =>
      refusing && init?.method === 'DELETE' ? Promise.resolve(refused()) : fetch(input, init);
    const client = { chat: new ChatClient({ baseUrl: url, apiKey: token, fetch: deleting, maxRetries: 0 }) };
    const el = await fixture<SvcChat>(html`<div style="height: 560px"><svc-chat .client=${client} lang="en"
      agent-ids="agent_echo"></svc-chat></div>`).then((d) => chatReady(d.querySelector('svc-chat')!));
    await exchange(el, 'about trains');
    await showList(el, 1);
    parts<HTMLButtonElement>(el, 'delete-button')[0]!.click();
    (await until(() => part<HTMLButtonElement>(el, 'confirm-delete'), 'the confirmation')).click();
    const notice = await until(() => part(el, 'notice'), 'the notice');
    expect(notice.textContent?.trim()).to.equal(en.chat.deleteFailed);
    expect(notice.getAttribute('role')).to.equal('alert');
    expect(titles(el)).to.deep.equal(['about trains'], 'the conversation is still listed');
    expect(describeViolations(await axeViolations(el))).to.equal('');
    // The way on: the confirmation is still there, and its Delete tries again.
    refusing = false;
    part<HTMLButtonElement>(el, 'confirm-delete')!.click();
    await until(() => titles(el).length === 0, 'the row gone');
    expect(part(el, 'notice')).to.equal(null);
  });

  for (const [lang, labels] of [
    ['zh-CN', zh.chat],
    ['ar', ar.chat],
  ] as const) {
    it(`speaks ${lang}: the button, the heading, an untitled row, the empty list`, async () => {
      const { token } = await mintVisitorSession();
      const el = await chatOf(token, lang);
      part(el, 'list-button')!.click();
      await until(() => part(el, 'empty')?.textContent?.includes(labels.noConversations), 'the empty list');
      expect(part(el, 'conversations-heading')!.textContent).to.equal(labels.conversations);
      expect(part(el, 'list-button')!.getAttribute('aria-label')).to.equal(labels.backToChat);
      expect(describeViolations(await axeViolations(el))).to.equal('');
    });
  }
});
