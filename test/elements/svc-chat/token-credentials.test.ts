import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import '../../../src/elements/svc-chat/svc-chat.js';
import type { SvcChat } from '../../../src/elements/svc-chat/svc-chat.js';
import { service } from '../../helpers/browser-service.js';
import { chatReady } from '../../helpers/chat-ready.js';

describe('<svc-chat token-credentials>', () => {
  it("asks a token endpoint of another origin with the page's cookies, and the endpoint answers it", async () => {
    const { url } = await service();
    // The test page and the service are two origins: the endpoint's answer must allow a credentialed request.
    expect(new URL(url).origin).not.to.equal(location.origin);
    const seen: RequestInit[] = [];
    const original = window.fetch;
    window.fetch = (input, init) => {
      if (String(input).endsWith('/demo/token')) seen.push(init ?? {});
      return original(input, init);
    };
    try {
      const el = await fixture<SvcChat>(html`<div style="height: 500px"><svc-chat base-url=${url}
        token-endpoint=${`${url}/demo/token`} token-credentials="include" agent-ids="agent_echo" lang="en"></svc-chat></div>`).then(
        (d) => chatReady(d.querySelector('svc-chat')!),
      );
      const done = oneEvent(el, 'svc-turn-complete');
      await el.send('hello from another origin');
      expect((await done).detail.text).to.equal('Echo: hello from another origin');
      expect(seen.map((init) => init.credentials)).to.deep.equal(['include']);
    } finally {
      window.fetch = original;
    }
  });
});
