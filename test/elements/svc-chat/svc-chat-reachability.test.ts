import { expect, fixture, html } from '@open-wc/testing';
import '../../../src/elements/svc-chat/svc-chat.js';
import ar from '../../../src/labels/ar.js';
import { EN_LABELS } from '../../../src/labels/en.js';
import zhCN from '../../../src/labels/zh-CN.js';
import { closedServiceUrl, mintVisitorSession, service, until } from '../../helpers/browser-service.js';
import { inShadow, part } from '../../helpers/chat-parts.js';
import { chatReady } from '../../helpers/chat-ready.js';

/** A chat whose `base-url` is `baseUrl`, collecting its `svc-error` events from before it connects. */
async function chatAt(baseUrl: string, attrs: { lang?: string; mode?: string; token?: string } = {}) {
  const errors: string[] = [];
  const el = await fixture<HTMLDivElement>(html`<div style="height: 600px">
    <svc-chat base-url=${baseUrl} token-endpoint=${`${baseUrl}/demo/token`} agent-ids="agent_echo"
      lang=${attrs.lang ?? 'en'} mode=${attrs.mode ?? 'inline'}
      @svc-error=${(e: CustomEvent<{ message: string }>) => errors.push(e.detail.message)}></svc-chat>
  </div>`).then((div) => chatReady(div.querySelector('svc-chat')!));
  return { el, errors };
}

describe('<svc-chat> and a service that does not answer', () => {
  it('says so in a plain sentence with a retry, tells the developer where it looked, and checks again', async () => {
    const closed = await closedServiceUrl();
    const { el, errors } = await chatAt(closed);
    const notice = await until(() => part(el, 'notice'), 'the notice');
    expect(notice.getAttribute('role')).to.equal('alert');
    expect(notice.textContent).to.contain(EN_LABELS.networkError);
    // The developer's detail goes to the event (and the console), not to the visitor.
    expect(notice.textContent).not.to.contain(closed);
    expect(errors).to.have.length(1);
    expect(errors[0]).to.equal(`no answer from ${closed}`);
    // The rest of the chat is there: the visitor can still type.
    expect(part(el, 'input')).not.to.equal(null);

    const retry = notice.querySelector<HTMLButtonElement>('[part~="retry-button"]')!;
    expect(retry.textContent?.trim()).to.equal(EN_LABELS.retry);
    retry.click();
    // Asked again, still no answer: the notice stays and the developer hears it again.
    await until(() => errors.length === 2, 'the second check');
    await el.updateComplete;
    expect(part(el, 'notice')?.textContent).to.contain(EN_LABELS.networkError);
  });

  for (const [lang, { chat: labels }] of [
    ['zh-CN', zhCN],
    ['ar', ar],
  ] as const) {
    it(`speaks the visitor's language: ${lang}`, async () => {
      const { el } = await chatAt(await closedServiceUrl(), { lang });
      // The language's labels load apart: the notice is in it once they have.
      const notice = await until(
        () => (part(el, 'notice')?.textContent?.includes(labels.networkError) ? part(el, 'notice') : null),
        `the notice in ${lang}`,
      );
      expect(notice.querySelector('[part~="retry-button"]')?.textContent?.trim()).to.equal(labels.retry);
    });
  }

  it('a launcher asks only once its panel opens', async () => {
    const { el, errors } = await chatAt(await closedServiceUrl(), { mode: 'launcher' });
    // Control: the same chat inline asks at once (first test); closed, this one has not asked.
    await until(() => part(el, 'launcher'), 'the launcher');
    expect(errors).to.deep.equal([]);
    el.open();
    await until(() => errors.length === 1, 'the check on open');
    await until(() => part(el, 'notice'), 'the notice');
    expect(part(el, 'notice')!.textContent).to.contain(EN_LABELS.networkError);
  });

  it('says nothing about a service that answers', async () => {
    const { url } = await service();
    const { token } = await mintVisitorSession();
    const errors: string[] = [];
    const el = await fixture<HTMLDivElement>(html`<div style="height: 600px">
      <svc-chat base-url=${url} token=${token} agent-ids="agent_echo"
        @svc-error=${(e: CustomEvent<{ message: string }>) => errors.push(e.detail.message)}></svc-chat>
    </div>`).then((div) => chatReady(div.querySelector('svc-chat')!));
    // A reply is a round trip after the check went out: by then its answer has been heard.
    await el.send('still here?');
    await until(() => inShadow(el, '[part~="message-agent"]'), 'the reply');
    expect(errors).to.deep.equal([]);
    expect(part(el, 'notice')).to.equal(null);
  });
});
