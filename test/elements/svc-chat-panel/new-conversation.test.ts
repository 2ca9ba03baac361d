import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import '../../../src/elements/svc-chat/svc-chat.js';
import type { SvcChat } from '../../../src/elements/svc-chat/svc-chat.js';
import en from '../../../src/labels/en.js';
import zh from '../../../src/labels/zh-CN.js';
import { part, parts } from '../../cards/helpers.js';
import { mintVisitorSession, service, until } from '../../helpers/browser-service.js';
import { chatReady } from '../../helpers/chat-ready.js';

const userTexts = (el: SvcChat) => parts(el, 'message-user').map((m) => m.textContent?.trim());

async function persistedChat(token: string, lang = 'en'): Promise<SvcChat> {
  const { url } = await service();
  return fixture<SvcChat>(html`<div style="height: 500px"><svc-chat base-url=${url} token=${token} lang=${lang}
    agent-ids="agent_echo" persist="new-conversation"></svc-chat></div>`).then((d) =>
    chatReady(d.querySelector('svc-chat')!),
  );
}

async function exchange(el: SvcChat, text: string): Promise<void> {
  const done = oneEvent(el, 'svc-turn-complete');
  await el.send(text);
  await done;
}

describe('a new conversation', () => {
  it('keeps a way back to the conversation before it, also after a reload', async () => {
    localStorage.clear();
    const { token } = await mintVisitorSession();
    const el = await persistedChat(token);
    expect(part(el, 'previous-button')).to.equal(null);
    await exchange(el, 'the first conversation');
    part(el, 'new-button')!.click();
    await until(() => part(el, 'empty'), 'the new, empty conversation');
    const back = await until(() => part<HTMLButtonElement>(el, 'previous-button'), 'the way back');
    expect(back.getAttribute('aria-label')).to.equal(en.chat.previousConversation);

    // A reload does not lose it.
    el.parentElement!.remove();
    const again = await persistedChat(token, 'zh-CN');
    const backAgain = await until(
      () => part<HTMLButtonElement>(again, 'previous-button'),
      'the way back after a reload',
    );
    expect(backAgain.getAttribute('aria-label')).to.equal(zh.chat.previousConversation);
    expect(parts(again, 'message-user')).to.have.length(0);
    backAgain.click();
    await until(() => userTexts(again).length === 1, 'the previous conversation');
    expect(userTexts(again)).to.deep.equal(['the first conversation']);
    // Nothing was started since: there is nothing to go back to.
    expect(part(again, 'previous-button')).to.equal(null);

    // Written in, the new conversation becomes the way back from the first.
    part(again, 'new-button')!.click();
    await exchange(again, 'the second conversation');
    part(again, 'previous-button')!.click();
    await until(() => userTexts(again)[0] === 'the first conversation', 'the first conversation');
    part(again, 'previous-button')!.click();
    await until(() => userTexts(again)[0] === 'the second conversation', 'the second conversation');
  });
});
