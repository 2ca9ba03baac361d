import { expect, fixture, html } from '@open-wc/testing';
import '../../../src/elements/svc-chat/svc-chat.js';
import type { SvcInfoCollect } from '../../../src/cards/svc-info-collect.js';
import type { SvcChat } from '../../../src/elements/svc-chat/svc-chat.js';
import { fill, idle, part, parts, typeAndSend, waitFor } from '../../cards/helpers.js';
import { mintVisitorSession, service, until } from '../../helpers/browser-service.js';
import { chatReady } from '../../helpers/chat-ready.js';

const agentTexts = (el: Element) =>
  parts(el, 'message-agent').map((m) => m.querySelector('svc-markdown')?.shadowRoot?.textContent?.trim() ?? '');

/** An inline chat with Aria of the service whose Aria is a `model` agent on the scripted model server. */
async function modelChat(): Promise<SvcChat> {
  const { model } = await service();
  const { token } = await mintVisitorSession(3600, undefined, model);
  const div = await fixture<HTMLDivElement>(html`<div style="height: 700px">
    <svc-chat base-url=${model.url} token=${token} agent-ids="agent_aria" lang="en"></svc-chat>
  </div>`);
  return chatReady(div.querySelector('svc-chat')!);
}

describe('<svc-chat> with a model agent', () => {
  it('streams the model’s reply, shows the form it asks for, and the model answers the submitted form', async () => {
    const el = await modelChat();
    typeAndSend(el, 'hello model');
    await until(() => agentTexts(el).includes('You said: hello model'), 'the model’s reply');
    await idle(el);

    typeAndSend(el, 'please show me a form');
    const card = await waitFor<SvcInfoCollect>(el, 'svc-info-collect', 'the form the model asked for');
    await until(() => card.shadowRoot?.querySelector('form'), 'the form');
    expect(agentTexts(el)).to.include('Please fill in this form.');
    await idle(el);
    fill(card, 'name', 'Grace');
    fill(card, 'email', 'grace@example.com');
    part<HTMLButtonElement>(card, 'button')!.click();
    await until(() => card.getAttribute('state') === 'submitted', 'the answered state');
    const reply = await until(
      () => agentTexts(el).find((t) => t.startsWith('Thanks! I got this:')),
      'the model’s answer to the form',
    );
    expect(reply).to.contain('"name":"Grace"');
    expect(reply).to.contain('"email":"grace@example.com"');
    expect(parts(el, 'message-user').map((m) => m.textContent?.trim())).to.deep.equal([
      'hello model',
      'please show me a form',
    ]);
  });
});
