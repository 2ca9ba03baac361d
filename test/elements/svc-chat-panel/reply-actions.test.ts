import { expect, oneEvent } from '@open-wc/testing';
import '../../../src/elements/svc-chat/svc-chat.js';
import type { SvcChat } from '../../../src/elements/svc-chat/svc-chat.js';
import en from '../../../src/labels/en.js';
import type { Feedback } from '../../../src/protocol/types.js';
import { chat, idle, part, parts } from '../../cards/helpers.js';
import { expectAccessibleInBothThemes } from '../../helpers/axe.js';
import { until } from '../../helpers/browser-service.js';
import { panelRoot } from '../../helpers/chat-parts.js';
import { focused, nameOf, press, tabTo, type } from '../../helpers/focus.js';

async function exchange(el: SvcChat, text: string): Promise<void> {
  const done = oneEvent(el, 'svc-turn-complete');
  await el.send(text);
  await done;
  await idle(el);
}

const replies = (el: SvcChat) => parts(el, 'message-agent');
const actionsOf = (row: Element) => row.querySelector<HTMLElement>('[part~=message-actions]');
const inRow = (row: Element, name: string) => row.querySelector<HTMLButtonElement>(`[part~=${name}]`)!;
const replyText = (row: Element | undefined) =>
  row?.querySelector<HTMLElement & { plainText: string }>('svc-markdown')?.plainText;
const userTexts = (el: SvcChat) => parts(el, 'message-user').map((m) => m.querySelector('[part~=bubble]')?.textContent);

const NOT_READABLE = 'the clipboard cannot be read here';
/**
 * What the clipboard holds. Firefox's testing pref lets a script write it but refused this page's reads
 * (`NotAllowedError`) in this file; `svc-copy` (sent once the clipboard took the text) is then the evidence.
 */
async function clipboard(): Promise<string> {
  try {
    return await navigator.clipboard.readText();
  } catch (err) {
    if ((err as DOMException).name === 'NotAllowedError') return NOT_READABLE;
    throw err;
  }
}

describe('acting on messages in <svc-chat>', () => {
  it('copies a finished reply as text and as markdown, and offers nothing on a failed one', async () => {
    const el = await chat({ agent: 'agent_aria' });
    await exchange(el, '/think');
    const [reply] = replies(el);
    let copied = oneEvent(el, 'svc-copy');
    inRow(reply!, 'copy-button').click();
    expect((await copied).detail.text).to.equal('The answer is 42.');
    expect(await clipboard()).to.be.oneOf(['The answer is 42.', NOT_READABLE]);
    expect(inRow(reply!, 'copy-button').getAttribute('aria-label')).to.equal(en.chat.replyCopied);
    copied = oneEvent(el, 'svc-copy');
    inRow(reply!, 'copy-markdown-button').click();
    expect((await copied).detail.text).to.equal('The answer is **42**.');
    expect(await clipboard()).to.be.oneOf(['The answer is **42**.', NOT_READABLE]);

    // A reply that failed has no actions (and no read aloud): only its error, with a Retry.
    await exchange(el, '/error');
    // The failed reply's row shows its error once it has rendered (a render after the composer's, on a busy machine).
    const failed = await until(
      () => replies(el).findLast((row) => row.querySelector('[part~=message-error]')),
      'the failed reply shows its error',
    );
    expect(failed).to.equal(replies(el).at(-1));
    expect(actionsOf(failed), 'no actions on a failed reply').to.equal(null);
    expect(failed.querySelector('[part~=read-aloud-button]')).to.equal(null);
    // The control: the finished reply before it keeps them.
    expect(actionsOf(replies(el)[0]!)).to.not.equal(null);
  });

  it('takes 👍/👎 with a reason from the keyboard, tells the page, and shows it again after a reload', async () => {
    const el = await chat({ agent: 'agent_echo' });
    await exchange(el, 'first');
    await exchange(el, 'second');
    const [older, newest] = replies(el);
    // The older reply's row stops being the last reply's once the list has rendered it again (WebKit did so after
    // the send button was back once).
    await until(() => !actionsOf(older!)!.classList.contains('last'), 'the older reply to be no longer the last');
    // With a hovering pointer the older reply's actions wait for hover or focus; the newest reply's show.
    const hovers = matchMedia('(hover: hover) and (pointer: fine)').matches;
    expect(getComputedStyle(actionsOf(older!)!).opacity).to.equal(hovers ? '0' : '1');
    expect(getComputedStyle(actionsOf(newest!)!).opacity).to.equal('1');

    // Tab from the conversation reaches the newest reply's actions (one Tab stop); Up moves to the older one's.
    // (The visitor's last message's Edit button comes first: it is above the reply.)
    part(el, 'messages')!.focus();
    await tabTo((e) => nameOf(e) === 'button[part=copy-button]', "the newest reply's copy button", 3);
    expect(actionsOf(newest!)!.contains(focused())).to.equal(true);
    await press('ArrowUp');
    expect(actionsOf(older!)!.contains(focused()), 'Up reaches the older reply').to.equal(true);
    expect(getComputedStyle(actionsOf(older!)!).opacity, 'shown while focused').to.equal('1');
    await press('ArrowDown');
    for (let i = 0; i < 5 && nameOf(focused()) !== 'button[part=feedback-down-button]'; i++) await press('Tab');
    expect(nameOf(focused())).to.equal('button[part=feedback-down-button]');
    const rated = oneEvent(el, 'svc-feedback');
    await press('Enter');
    const first = (await rated) as CustomEvent<Feedback>;
    expect(first.composed).to.equal(true);
    expect([first.detail.rating, first.detail.reason, first.detail.agentId]).to.deep.equal([
      'down',
      null,
      'agent_echo',
    ]);
    expect(inRow(newest!, 'feedback-down-button').getAttribute('aria-pressed')).to.equal('true');
    expect(inRow(newest!, 'feedback-up-button').getAttribute('aria-pressed')).to.equal('false');

    const reason = await until(() => newest!.querySelector<HTMLInputElement>('[part~=feedback-reason]'), 'the reason');
    reason.focus();
    await type('vague');
    const withReason = oneEvent(el, 'svc-feedback');
    await press('Enter');
    expect(((await withReason) as CustomEvent<Feedback>).detail.reason).to.equal('vague');
    await until(() => newest!.querySelector('[part~=feedback-thanks]'), 'the thanks');
    await expectAccessibleInBothThemes(el, 'a reply rated, with its thanks');

    // A reload shows the verdict again.
    const again = await chat({ agent: 'agent_echo', token: el.token, conversationId: first.detail.conversationId });
    await until(
      () => replies(again).at(-1)?.querySelector('[part~=feedback-down-button][aria-pressed=true]'),
      'the verdict after a reload',
    );
  });

  it('regenerates the last reply and edits the last message, by button and through the element', async () => {
    const el = await chat({ agent: 'agent_echo' });
    await exchange(el, 'Helo');
    const first = replies(el)[0]!;
    expect(inRow(first, 'regenerate-button').getAttribute('aria-label')).to.equal(en.chat.regenerate);
    let done = oneEvent(el, 'svc-turn-complete');
    inRow(first, 'regenerate-button').click();
    await done;
    await idle(el);
    await until(() => replies(el).length === 1 && replies(el)[0] !== first, 'a new reply in place of the old');
    expect(userTexts(el)).to.deep.equal(['Helo']);

    // Edit: the message opens in a field; Enter sends it in place of the old one.
    const edit = await until(() => part<HTMLButtonElement>(el, 'edit-button'), 'the edit button');
    expect(edit.getAttribute('aria-label')).to.equal(en.chat.editMessage);
    edit.click();
    const field = await until(() => part<HTMLTextAreaElement>(el, 'edit-input'), 'the edit field');
    await until(() => focused() === field, 'the focus in the field');
    expect(field.value).to.equal('Helo');
    await expectAccessibleInBothThemes(el, 'a message being edited');
    field.value = 'Hello';
    done = oneEvent(el, 'svc-turn-complete');
    await press('Enter');
    await done;
    await until(() => userTexts(el)[0] === 'Hello', 'the edited message');
    expect(userTexts(el)).to.deep.equal(['Hello']);
    await until(() => replyText(replies(el)[0]) === 'Echo: Hello', 'its reply');

    // Escape leaves a message as it was, and gives the focus back to its Edit button (shown again once the
    // edited message's turn has settled, as a visitor sees it).
    (await until(() => part<HTMLButtonElement>(el, 'edit-button'), 'the edit button again')).click();
    await until(() => part(el, 'edit-input'), 'the edit field');
    await press('Escape');
    await until(() => nameOf(focused()) === 'button[part=edit-button]', 'the focus back on Edit');
    expect(part(el, 'edit-input')).to.equal(null);

    // The element's own members.
    done = oneEvent(el, 'svc-turn-complete');
    await el.editLastMessage('Hi');
    await done;
    await until(() => userTexts(el)[0] === 'Hi', 'edited through the element');
    done = oneEvent(el, 'svc-turn-complete');
    const regenerated = await el.regenerate();
    expect(regenerated?.userMessage?.raw.type === 'user' && regenerated.userMessage.raw.replaces).to.be.a('string');
    await done;
    await until(() => replies(el).length === 1 && replyText(replies(el)[0]) === 'Echo: Hi', 'the new reply');
    expect(userTexts(el)).to.deep.equal(['Hi']);
  });
});

describe('starter prompts in <svc-chat>', () => {
  it("shows the agent's starter prompts in the empty conversation; a pressed one is sent", async () => {
    const el = await chat({ agent: 'agent_echo' });
    const buttons = await until(() => {
      const found = parts<HTMLButtonElement>(el, 'starter-prompt');
      return found.length ? found : undefined;
    }, 'the starter prompts');
    expect(buttons.map((b) => b.textContent)).to.deep.equal(['Hello!', 'Say this back to me']);
    expect(part(el, 'starter-prompts')!.getAttribute('aria-label')).to.equal(en.chat.starterPrompts);
    await expectAccessibleInBothThemes(el, 'an empty chat with starter prompts');
    const done = oneEvent(el, 'svc-turn-complete');
    buttons[1]!.click();
    await done;
    await until(() => replyText(replies(el)[0]) === 'Echo: Say this back to me', 'the reply to the prompt');
    expect(userTexts(el)).to.deep.equal(['Say this back to me']);
    expect(part(el, 'starter-prompts'), 'gone once the conversation has begun').to.equal(null);
  });
});

describe('suggested replies in <svc-chat>', () => {
  const chips = (el: SvcChat) => parts<HTMLButtonElement>(el, 'suggestion');
  const offered = (el: SvcChat) => until(() => (chips(el).length ? chips(el) : undefined), 'the suggested replies');

  /** Every render of the panel, checked: chips never show beside the stop button (while a turn runs). */
  function neverWhileRunning(el: SvcChat): () => void {
    let seen = 0;
    const observer = new MutationObserver(() => {
      if (part(el, 'stop-button') && chips(el).length) seen++;
    });
    observer.observe(panelRoot(el), { subtree: true, childList: true, attributes: true });
    return () => {
      observer.disconnect();
      expect(seen, 'renders that showed suggestions while a reply ran').to.equal(0);
    };
  }

  it('offers the last reply’s suggestions as buttons that send them, by pointer and keyboard; none after others', async () => {
    const el = await chat({ agent: 'agent_aria' });
    const check = neverWhileRunning(el);
    await exchange(el, '/think');
    expect(chips(el), 'a reply without suggestions offers none').to.deep.equal([]);

    await exchange(el, '/suggest');
    let buttons = await offered(el);
    expect(buttons.map((b) => b.textContent)).to.deep.equal(['/think', '/markdown', '/help']);
    expect(buttons.every((b) => b.getAttribute('dir') === 'auto')).to.equal(true);
    const group = part(el, 'suggestions')!;
    expect([group.getAttribute('role'), group.getAttribute('aria-label')]).to.deep.equal([
      'group',
      en.chat.suggestions,
    ]);
    expect(replies(el).at(-1)!.contains(group), 'under the last reply').to.equal(true);
    expect(replies(el).at(-1)!.querySelector('[part~=tool-call]'), 'not shown as a tool call').to.equal(null);
    await expectAccessibleInBothThemes(el, 'a reply with suggested replies');

    // Pressed, one is the visitor's message, as if typed; the chips go at once.
    let done = oneEvent(el, 'svc-turn-complete');
    buttons[0]!.click();
    await until(() => !chips(el).length, 'the suggestions gone once one is sent');
    await done;
    await idle(el);
    expect(userTexts(el)).to.deep.equal(['/think', '/suggest', '/think']);
    await until(() => replyText(replies(el).at(-1)) === 'The answer is 42.', 'the reply to the suggestion');
    expect(chips(el), 'the older reply’s suggestions are not offered again').to.deep.equal([]);

    // By keyboard: Tab from the conversation reaches them, Enter sends one.
    await exchange(el, '/suggest');
    buttons = await offered(el);
    part(el, 'messages')!.focus();
    const reached = await tabTo((e) => nameOf(e) === 'button[part=suggestion]', 'a suggested reply', 12);
    expect(reached.textContent).to.equal('/think');
    await press('Tab');
    expect(focused()?.textContent).to.equal('/markdown');
    await press('Tab');
    expect(focused()?.textContent).to.equal('/help');
    done = oneEvent(el, 'svc-turn-complete');
    await press('Enter');
    await done;
    await idle(el);
    expect(userTexts(el).at(-1)).to.equal('/help');
    expect(chips(el)).to.deep.equal([]);
    check();
  });
});
