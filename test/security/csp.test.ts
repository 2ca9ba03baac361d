import { expect } from '@open-wc/testing';
import type { SvcChat } from '../../src/elements/svc-chat/svc-chat.js';
import { mintVisitorSession, service, until } from '../helpers/browser-service.js';
import { inShadow } from '../helpers/chat-parts.js';

/** The window of the strict page: the script-tag build under CSP and required Trusted Types. */
type StrictWindow = Window & typeof globalThis & { __violations: string[]; Svc?: unknown };

async function strictPage(): Promise<{ frame: HTMLIFrameElement; win: StrictWindow }> {
  const frame = document.createElement('iframe');
  frame.style.height = '600px';
  const loaded = new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
  frame.src = '/__svc/csp-page';
  document.body.append(frame);
  await loaded;
  return { frame, win: frame.contentWindow as StrictWindow };
}

describe('under a strict CSP with Trusted Types required', function () {
  this.timeout(60_000);
  let frame: HTMLIFrameElement | undefined;
  afterEach(() => frame?.remove());

  it('the page enforces the policy (positive control): eval and a plain HTML string are blocked and counted', async () => {
    const page = await strictPage();
    frame = page.frame;
    expect(() => page.win.eval('1')).to.throw();
    // Engines word the refusal differently; each throws the TypeError the specification names.
    expect(() => {
      page.win.document.body.innerHTML = '<b>plain string</b>';
    })
      .to.throw()
      .with.property('name', 'TypeError');
    expect(page.win.document.body.querySelector('b')).to.equal(null);
    await until(() => page.win.__violations.length >= 2, 'the violation reports');
  });

  it('<svc-chat> from the script-tag build renders a streamed markdown reply with no violation', async () => {
    const page = await strictPage();
    frame = page.frame;
    const { win } = page;
    expect(win.Svc, 'the bundle ran').to.not.equal(undefined);
    const { url } = await service();
    const { token } = await mintVisitorSession();
    const chat = win.document.createElement('svc-chat') as SvcChat;
    chat.setAttribute('base-url', url);
    chat.setAttribute('token', token);
    chat.setAttribute('agent-ids', 'agent_aria');
    chat.style.height = '560px';
    win.document.body.append(chat);
    const complete = new Promise<CustomEvent>((resolve) =>
      chat.addEventListener('svc-turn-complete', (e) => resolve(e as CustomEvent), { once: true }),
    );
    await until(() => inShadow(chat, '[part~="input"]'), 'the composer');
    await chat.send('/markdown');
    expect((await complete).detail.subtype).to.equal('success');
    const markdown = await until(() => inShadow(chat, '[part~="message-agent"] svc-markdown')?.shadowRoot, 'the reply');
    await until(() => markdown.querySelector('table') && markdown.querySelector('pre'), 'the rendered markdown');
    expect(markdown.querySelector('h1')?.textContent).to.contain('Embedding the chat widget');
    expect(win.__violations).to.deep.equal([]);
  });
});
