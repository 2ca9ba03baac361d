import { expect, fixture, html } from '@open-wc/testing';
import '../../../src/elements/svc-chat/svc-chat.js';
import type { SvcChat } from '../../../src/elements/svc-chat/svc-chat.js';
import { mintVisitorSession, service, until } from '../../helpers/browser-service.js';
import { panelRoot } from '../../helpers/chat-parts.js';

/** The composer of the panel (not of the loading state before it). */
const composer = (el: SvcChat) =>
  el.shadowRoot!.querySelector('svc-chat-panel') && panelRoot(el).querySelector<HTMLTextAreaElement>('[part~=input]');

async function launcher(token: string, url: string): Promise<SvcChat> {
  const el = await fixture<SvcChat>(html`<svc-chat mode="launcher" base-url=${url} token=${token} agent-ids="agent_echo"
    lang="en" persist="reload-test"></svc-chat>`);
  await el.updateComplete;
  return el;
}

describe('<svc-chat persist> after a reload', () => {
  it('opens again if it was open, with what the visitor was writing; closed, it stays closed', async () => {
    sessionStorage.clear();
    localStorage.clear();
    const { url } = await service();
    const { token } = await mintVisitorSession();
    const el = await launcher(token, url);
    expect(el.opened).to.equal(false);
    el.open();
    const input = await until(() => composer(el), 'the composer');
    input.focus();
    input.value = 'half a question';
    input.dispatchEvent(new Event('input', { bubbles: true, composed: true }));

    // The page reloads: the element is made again from the same markup.
    el.remove();
    const again = await launcher(token, url);
    expect(again.opened, 'open again').to.equal(true);
    const restored = await until(() => composer(again), 'the composer again');
    await until(() => restored.value === 'half a question', 'the unsent text back');

    // Sent, the text is no longer kept; closed, the panel stays closed.
    const sent = new Promise((resolve) => again.addEventListener('svc-message-sent', resolve, { once: true }));
    panelRoot(again).querySelector<HTMLButtonElement>('[part~=send-button]')!.click();
    await sent;
    again.close();
    again.remove();
    const third = await launcher(token, url);
    expect(third.opened).to.equal(false);
    third.open();
    const empty = await until(() => composer(third), 'the composer, third time');
    expect(empty.value).to.equal('');
  });
});
