import { expect, fixture, html } from '@open-wc/testing';
import '../../../src/elements/svc-chat/svc-chat.js';
import { ChatClient } from '../../../src/client/chat.js';
import type { SvcChat } from '../../../src/elements/svc-chat/svc-chat.js';
import { STALLED_AFTER_MS, stalledClock } from '../../../src/elements/svc-chat-panel/stalled-stream.js';
import ar from '../../../src/labels/ar.js';
import { EN_LABELS } from '../../../src/labels/en.js';
import zhCN from '../../../src/labels/zh-CN.js';
import { expectAccessibleInBothThemes } from '../../helpers/axe.js';
import { closedServiceUrl, mintVisitorSession, service, until } from '../../helpers/browser-service.js';
import { inShadow, part, parts } from '../../helpers/chat-parts.js';
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

  it('says a stream that stays cut as it says a service not reached at start, with a Retry, after a wait (a clock the test moves)', async () => {
    const { url } = await service();
    const { token } = await mintVisitorSession();
    // The network: the conversation's stream can be cut, and then nothing gets through until it is up again.
    let down = false;
    let cut: (() => void) | undefined;
    const gated: typeof fetch = async (input, init) => {
      if (down) throw new TypeError('Failed to fetch');
      const res = await fetch(input, init);
      if (!new URL(String(input)).pathname.endsWith('/stream') || !res.body) return res;
      const reader = res.body.getReader();
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          cut = () => controller.error(new TypeError('network error'));
        },
        async pull(controller) {
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        },
        cancel: (reason) => reader.cancel(reason),
      });
      return new Response(body, { status: res.status, headers: res.headers });
    };
    // The wait before the sentence runs on a clock this test moves: no test waits ten seconds, nor depends on them.
    const waits: { ms: number; fire: () => void }[] = [];
    const realAfter = stalledClock.after;
    stalledClock.after = (ms, fire) => {
      const wait = { ms, fire };
      waits.push(wait);
      return () => waits.splice(waits.indexOf(wait), 1);
    };
    try {
      const client = { chat: new ChatClient({ baseUrl: url, apiKey: token, fetch: gated }) };
      const el = await fixture<HTMLDivElement>(html`<div style="height: 600px"><svc-chat .client=${client}
        agent-ids="agent_echo" lang="en"></svc-chat></div>`).then((d) =>
        chatReady(d.querySelector<SvcChat>('svc-chat')!),
      );
      await el.send('hello');
      await until(() => parts(el, 'message-agent').length === 1 && cut, 'the reply, read from the stream');

      down = true;
      cut!();
      const reconnecting = await until(
        () => (part(el, 'notice')?.textContent?.includes(EN_LABELS.reconnecting) ? part(el, 'notice') : null),
        'Reconnecting…',
      );
      expect(reconnecting.getAttribute('role')).to.equal('status');
      expect(reconnecting.querySelector('[part~=retry-button]')).to.equal(null);
      expect(waits.map((w) => w.ms)).to.deep.equal([STALLED_AFTER_MS]);

      // The wait is over and the stream is still cut: the sentence said when the service is not reached at start.
      waits[0]!.fire();
      const notice = await until(
        () => (part(el, 'notice')?.textContent?.includes(EN_LABELS.networkError) ? part(el, 'notice') : null),
        'the sentence',
      );
      expect(notice.getAttribute('role')).to.equal('alert');
      expect(parts(el, 'notice')).to.have.length(1);
      expect(notice.textContent).not.to.contain(EN_LABELS.reconnecting);
      await expectAccessibleInBothThemes(el, 'a stream cut for long');

      // Back, and Retry: the chat reads the conversation again, and the sentence goes.
      down = false;
      notice.querySelector<HTMLButtonElement>('[part~=retry-button]')!.click();
      await until(() => !part(el, 'notice'), 'the notice gone');
      expect(waits, 'the wait ended with the cut').to.deep.equal([]);
      await el.send('and now?');
      await until(() => parts(el, 'message-agent').length === 2, 'the next reply');
    } finally {
      stalledClock.after = realAfter;
    }
  });
});
