import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import '../../src/cards/svc-info-collect.js';
import type { SvcInfoCollect } from '../../src/cards/svc-info-collect.js';
import type { SvcChat } from '../../src/elements/svc-chat/svc-chat.js';
import type { SvcMarkdown } from '../../src/elements/svc-markdown/svc-markdown.js';
import type { InfoCollectPayload } from '../../src/protocol/types.js';
import { chat, idle, inShadow, part, parts, typeAndSend, waitFor } from '../cards/helpers.js';
import { until } from '../helpers/browser-service.js';
import { shadowRoots } from '../helpers/chat-parts.js';

/**
 * What a screen reader announces by itself is what changes inside a live region: an element with
 * `aria-live` other than `off`, or a role that implies one (`status`, `alert`, `log`, `marquee`, `timer`).
 * No screen reader runs here, so these tests record those changes in the DOM.
 */
const LIVE_ROLES = ['status', 'alert', 'log', 'marquee', 'timer'];

/** The live region around `node`, across shadow roots (the markdown of a reply is in one of its own). */
function liveRegionOf(node: Node | null): Element | undefined {
  const parentOf = (element: Element) => element.parentElement ?? ((element.getRootNode() as ShadowRoot).host || null);
  for (let at = node instanceof Element ? node : node?.parentElement; at; at = parentOf(at)) {
    const live = at.getAttribute('aria-live');
    if (live === 'off') return undefined;
    if (live || LIVE_ROLES.includes(at.getAttribute('role') ?? '')) return at;
  }
  return undefined;
}

/**
 * Records every change inside the chat, by the live region it happened in (if any): in its shadow root and
 * in those of the elements that appear in it (the markdown of each reply, the cards).
 */
function recordChanges(el: SvcChat) {
  const live: { region: string; text: string }[] = [];
  let outside = 0;
  const options = { subtree: true, childList: true, characterData: true };
  const observeShadowRoots = (node: Node) => {
    if (!(node instanceof Element)) return;
    for (const element of [node, ...node.querySelectorAll('*')]) {
      if (element.shadowRoot) observer.observe(element.shadowRoot, options);
    }
  };
  const observer = new MutationObserver((records) => {
    for (const record of records) {
      record.addedNodes.forEach(observeShadowRoots);
      const region = liveRegionOf(record.target);
      if (region)
        live.push({ region: region.getAttribute('part') ?? region.localName, text: region.textContent ?? '' });
      else outside++;
    }
  });
  // The chat's root and, once it has arrived, its panel's (which the first adds).
  for (const root of shadowRoots(el)) {
    observer.observe(root, options);
    for (const child of root.children) observeShadowRoots(child);
  }
  return {
    live,
    get outside() {
      return outside;
    },
    stop: () => observer.disconnect(),
  };
}

describe('<svc-chat> for screen readers', () => {
  it('announces a streamed reply once, whole and as text, never its pieces', async function () {
    this.timeout(30_000);
    const el = await chat();
    const log = part(el, 'messages')!;
    expect(log.getAttribute('role')).to.equal('log');
    expect(log.getAttribute('aria-live'), 'the conversation itself is not live').to.equal('off');

    const changes = recordChanges(el);
    const complete = oneEvent(el, 'svc-turn-complete');
    typeAndSend(el, '/markdown');
    // While the reply streams in, the log says it is busy: a screen reader waits instead of reading pieces.
    await until(
      () => parts(el, 'message-agent').some((m) => m.textContent?.trim()) && log.getAttribute('aria-busy') === 'true',
      'the log busy while a reply streams',
    );
    await complete;
    await until(() => log.getAttribute('aria-busy') === 'false', 'the log no longer busy');
    const announcer = part(el, 'announcer')!;
    await until(() => announcer.textContent, 'the announcement');
    changes.stop();

    // The reply came in pieces, all outside any live region (positive control: the recorder sees them). How many
    // depends on how many frames the machine rendered while it streamed (25 to 60 seen on a loaded one); the wait
    // above saw at least one piece before the end, so there are at least two.
    expect(changes.outside, 'changes of the streamed reply').to.be.greaterThan(1);
    const announced = changes.live.filter((change) => change.region === 'announcer');
    expect(announced, 'one announcement').to.have.length(1);
    const markdown = parts(el, 'message-agent').at(-1)!.querySelector<SvcMarkdown>('svc-markdown')!;
    expect(announced[0]!.text).to.equal(`Aria: ${markdown.plainText}`);
    // Read as text: the rendered words, not the markdown's marks or the copy buttons' labels.
    expect(announced[0]!.text).to.contain('Embedding the chat widget This reply is long on purpose');
    expect(announced[0]!.text).not.to.match(/\*\*|`|\]\(|## |Copy/);
    // Besides it, only the short status line ("Aria · Typing…") spoke, and not with every piece.
    const others = changes.live.filter((change) => change.region !== 'announcer');
    expect(new Set(others.map((change) => change.region))).to.deep.equal(new Set(['status']));
    expect(others.length).to.be.lessThan(6);
  });

  it('announces a reply that comes again the same way again', async () => {
    const el = await chat({ agent: 'agent_echo' });
    const changes = recordChanges(el);
    for (let i = 0; i < 2; i++) {
      const complete = oneEvent(el, 'svc-turn-complete');
      typeAndSend(el, 'same again');
      await complete;
      await until(() => changes.live.filter((c) => c.region === 'announcer').length === i + 1, 'an announcement');
    }
    changes.stop();
    expect(changes.live.filter((c) => c.region === 'announcer').map((c) => c.text)).to.deep.equal([
      'Echo: Echo: same again',
      'Echo: Echo: same again',
    ]);
  });

  it('announces a reply made of a card by the card, and errors as alerts', async function () {
    this.timeout(30_000);
    const el = await chat();
    typeAndSend(el, '/form');
    await until(() => part(el, 'announcer')!.textContent, 'the announcement');
    expect(part(el, 'announcer')!.textContent).to.equal('Aria: Please tell me a little about yourself. Book a demo');

    const before = part(el, 'announcer')!.textContent;
    typeAndSend(el, '/error');
    const error = await waitFor<HTMLElement>(el, '[part~=message-error]', 'the failure');
    expect(error.getAttribute('role')).to.equal('alert');
    expect(error.textContent).to.contain('Aria could not reply. This reply failed on purpose');
    await idle(el);
    expect(part(el, 'announcer')!.textContent, 'a failure is not announced twice').to.equal(before);
  });

  it('names each field of a card by its label, and ties a wrong value to its reason', async () => {
    const request: InfoCollectPayload = {
      toolUseId: 'toolu_sr',
      title: 'Book a demo',
      fields: [
        { name: 'name', label: 'Name', type: 'text', required: true },
        { name: 'email', label: 'Email', type: 'email', required: true },
      ],
    };
    const card = await fixture<SvcInfoCollect>(
      html`<svc-info-collect lang="en" .request=${request}></svc-info-collect>`,
    );
    expect(inShadow(card, '[part~=base]')!.getAttribute('aria-label')).to.equal('Book a demo');
    const inputs = [...card.shadowRoot!.querySelectorAll<HTMLInputElement>('[part~=input]')];
    expect(inputs.map((input) => input.labels?.[0]?.textContent?.replace(/\s+/g, ' ').trim())).to.deep.equal([
      'Name *',
      'Email *',
    ]);
    inShadow<HTMLInputElement>(card, '[name=email]')!.value = 'not an address';
    await card.submit();
    for (const input of inputs) {
      expect(input.getAttribute('aria-invalid')).to.equal('true');
      const reason = card.shadowRoot!.getElementById(input.getAttribute('aria-describedby')!);
      expect(reason?.textContent, `why ${input.name} is wrong`).to.match(/required|email address/);
    }
    expect(card.shadowRoot!.activeElement, 'the first wrong field has the focus').to.equal(inputs[0]);
    // Alone, the card cannot be answered: it says so as an alert.
    inputs[0]!.value = 'Ada';
    inputs[1]!.value = 'ada@example.com';
    await card.submit();
    const alert = await until(() => inShadow(card, '[part~=error]'), 'the alert');
    expect(alert.getAttribute('role')).to.equal('alert');
  });
});
