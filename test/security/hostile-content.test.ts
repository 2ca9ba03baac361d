import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import '../../src/elements/svc-chat/svc-chat.js';
import { ChatClient } from '../../src/client/chat.js';
import { HttpClient } from '../../src/client/http.js';
import type { SvcChat } from '../../src/elements/svc-chat/svc-chat.js';
import { mintVisitorSession, service, until } from '../helpers/browser-service.js';
import { allInShadow } from '../helpers/chat-parts.js';
import { chatReady } from '../helpers/chat-ready.js';
import { attributeDangers, attributeOf, forbiddenElement, tagOf, walk } from '../helpers/dangers.js';
import { loadsSettled } from '../helpers/loads.js';
import { markdownToHtml } from '../helpers/markdown.js';

interface Vector {
  source: string;
  payload: string;
}

/** Vectors per message: the quick size sends every vector in a few dozen messages. */
const PER_MESSAGE = 12;

/**
 * What is dangerous in the messages of a chat: anything that could run script, restyle the page or leak.
 * Attributes are checked on every element of a message (the chat's own buttons and icons included); forbidden
 * elements only in rendered content (user bubbles and the markdown of replies), where the chat's own controls
 * are just the copy buttons it puts before code blocks after sanitizing.
 */
function dangers(chat: SvcChat, origins: Set<string>): string[] {
  const found: string[] = [];
  for (const message of allInShadow(chat, '[part~="message"]')) {
    for (const el of walk(message)) {
      found.push(...attributeDangers(el));
      const src = attributeOf(el, 'src');
      if (tagOf(el) === 'img' && src && !origins.has(new URL(src, location.href).origin))
        found.push(`<img src=${src}>`);
    }
    const content = [
      ...message.querySelectorAll('[part~="bubble"]:not(:has(svc-markdown))'),
      ...[...message.querySelectorAll('svc-markdown')].map((md) => md.shadowRoot!.querySelector('[part=base]')!),
    ];
    for (const root of content) {
      for (const el of walk(root)) {
        const forbidden = forbiddenElement(el);
        if (forbidden) found.push(`${forbidden} in content`);
      }
    }
  }
  return found;
}

/** What ran or loaded: dialogs, the flag our own vectors set, and requests to any origin but ours. */
const executions = { dialogs: 0 };
const win = window as unknown as Record<string, unknown>;
for (const name of ['alert', 'confirm', 'prompt', 'print']) {
  win[name] = () => {
    executions.dialogs++;
  };
}
const requested: string[] = [];
const requests = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) requested.push(entry.name);
});
requests.observe({ type: 'resource', buffered: true });

describe('hostile content in <svc-chat>: the XSS corpus as agent replies and user messages', function () {
  this.timeout(120_000);
  let vectors: Vector[] = [];
  let origins: Set<string>;
  let serviceUrl: string;

  before(async () => {
    const response = await fetch(new URL('../fixtures/xss-vectors.json', import.meta.url));
    vectors = ((await response.json()) as { vectors: Vector[] }).vectors;
    serviceUrl = (await service()).url;
    origins = new Set([location.origin, new URL(serviceUrl).origin]);
  });

  // Entries the observer has not been handed yet are taken too.
  const unexpected = () => {
    for (const entry of requests.takeRecords()) requested.push(entry.name);
    return requested.filter((name) => !origins.has(new URL(name).origin));
  };

  it('detects script, dangerous markup and foreign requests when nothing sanitizes (positive control)', async () => {
    const raw = await fixture<HTMLDivElement>(html`<div></div>`);
    raw.innerHTML = markdownToHtml(
      '<img src="data:,x" onerror="alert(1); window.__xssFlag = 1"> [a](https://a.example)',
    );
    await oneEvent(raw.querySelector('img')!, 'error');
    expect(executions.dialogs).to.equal(1);
    expect(win.__xssFlag).to.equal(1);
    // A request to another origin (the service under another host name) is seen.
    const foreign = serviceUrl.replace('127.0.0.1', 'localhost');
    const image = new Image();
    image.src = `${foreign}/api/v2/positive-control.png`;
    await until(() => requested.some((name) => name.startsWith(foreign)), 'the foreign request');
    requested.length = 0;
    executions.dialogs = 0;
    win.__xssFlag = undefined;
  });

  it(`renders ${PER_MESSAGE} vectors per message, streamed back by the echo agent, with nothing run or loaded`, async () => {
    const { token } = await mintVisitorSession();
    const host = new URL(serviceUrl).hostname;
    // Agent images may come only from the service itself: any other image host becomes a link.
    const chat = await fixture<SvcChat>(html`<div style="height: 600px"><svc-chat base-url=${serviceUrl}
      token=${token} agent-ids="agent_echo" image-hosts=${host}></svc-chat></div>`).then((d) =>
      chatReady(d.querySelector('svc-chat')!),
    );
    const problems: string[] = [];
    for (let i = 0; i < vectors.length; i += PER_MESSAGE) {
      const batch = vectors.slice(i, i + PER_MESSAGE);
      const complete = oneEvent(chat, 'svc-turn-complete');
      await chat.send(batch.map((v) => v.payload).join('\n\n'));
      const { detail } = await complete;
      expect(detail.subtype, `batch ${i / PER_MESSAGE}`).to.equal('success');
      // Checked while the next reply streams too: every rendering step must be safe.
      for (const danger of dangers(chat, origins)) problems.push(`vectors ${i}–${i + batch.length - 1}: ${danger}`);
    }
    const agents = () => allInShadow(chat, '[part~="message-agent"]');
    await until(() => agents().length === Math.ceil(vectors.length / PER_MESSAGE), 'every reply');
    // Read once the chat has drawn the last turn: the last reply's events can come before its next render.
    const users = allInShadow(chat, '[part~="message-user"]');
    expect(users.length).to.equal(Math.ceil(vectors.length / PER_MESSAGE));
    // The replies are the payloads, rendered: the echo text arrived (sanitized markup may drop some of it).
    expect(agents()[0]!.querySelector('svc-markdown')!.shadowRoot!.textContent).to.contain('Echo:');
    // Whatever a surviving payload could run on (load and error events) has had its turn.
    await loadsSettled(chat.shadowRoot!);
    problems.push(...dangers(chat, origins));
    expect(problems).to.deep.equal([]);
    expect(executions.dialogs).to.equal(0);
    expect(win.__xssFlag).to.equal(undefined);
    expect(unexpected()).to.deep.equal([]);
    const links = [...walk(chat.shadowRoot!)].filter((el) => tagOf(el) === 'a');
    expect(links.length, 'the corpus holds links').to.be.greaterThan(10);
  });

  it('renders the same conversation safely again from history', async () => {
    const { token } = await mintVisitorSession();
    const chatClient = new ChatClient(new HttpClient({ baseUrl: serviceUrl, apiKey: token }));
    let conversationId: string | undefined;
    for (let i = 0; i < vectors.length; i += 4 * PER_MESSAGE) {
      const message = vectors
        .slice(i, i + 4 * PER_MESSAGE)
        .map((v) => v.payload)
        .join('\n\n');
      const turn = await chatClient.sendMessage({
        message,
        targetAgentIds: ['agent_echo'],
        ...(conversationId ? { conversationId } : { newConversation: true }),
      });
      conversationId = turn.conversationId;
    }
    const chat = await fixture<SvcChat>(html`<div style="height: 600px"><svc-chat base-url=${serviceUrl}
      token=${token} conversation-id=${conversationId!} image-hosts=${new URL(serviceUrl).hostname}></svc-chat></div>`).then(
      (d) => chatReady(d.querySelector('svc-chat')!),
    );
    await until(() => allInShadow(chat, '[part~="message-agent"]').length >= 8, 'the history');
    await loadsSettled(chat.shadowRoot!);
    expect(dangers(chat, origins)).to.deep.equal([]);
    expect(executions.dialogs).to.equal(0);
    expect(win.__xssFlag).to.equal(undefined);
    expect(unexpected()).to.deep.equal([]);
  });
});
