import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import '../../../src/elements/svc-chat/svc-chat.js';
import type { SvcChat } from '../../../src/elements/svc-chat/svc-chat.js';
import { part, parts } from '../../cards/helpers.js';
import { axeViolations, describeViolations } from '../../helpers/axe.js';
import { mintVisitorSession, service, until } from '../../helpers/browser-service.js';
import { chatReady } from '../../helpers/chat-ready.js';

/** The list of a chat in `lang` after the demo agent answered `/help` (a reply in markdown). */
async function listAfterHelp(lang: string): Promise<SvcChat> {
  const { url } = await service();
  const { token } = await mintVisitorSession();
  const el = await fixture<SvcChat>(html`<div style="height: 560px; width: 420px"><svc-chat base-url=${url}
    token=${token} lang=${lang} agent-ids="agent_aria"></svc-chat></div>`).then((d) =>
    chatReady(d.querySelector('svc-chat')!),
  );
  const done = oneEvent(el, 'svc-turn-complete');
  await el.send('/help');
  await done;
  part(el, 'list-button')!.click();
  await until(() => part(el, 'conversation-preview'), 'the preview of the last message');
  return el;
}

const text = (element: Element) => element.textContent!.replace(/\s+/g, ' ').trim();

describe('the conversation list: previews', () => {
  it('reads the last reply as plain text, after its time as the language writes it', async () => {
    const el = await listAfterHelp('en');
    const meta = parts(el, 'conversation-meta')[0]!;
    const time = meta.querySelector('time')!;
    // Markdown's marks are gone: `**Demo commands**`, the list's `- ` and `` `/markdown` `` read as the reply
    // shows them (the service keeps a preview's line breaks, so a list item is one).
    expect(text(part(el, 'conversation-preview')!)).to.match(/^Aria: Demo commands \/markdown: a long formatted reply/);
    expect(text(meta)).not.to.match(/[*`#]/);
    expect(time.textContent).to.equal(
      new Intl.DateTimeFormat('en', { timeStyle: 'short' }).format(new Date(time.getAttribute('datetime')!)),
    );
    expect(text(meta).startsWith(`${time.textContent} · Aria: `)).to.equal(true);
    const violations = await axeViolations(el);
    expect(violations, describeViolations(violations)).to.deep.equal([]);
  });

  it('writes the time and who said it as Chinese does', async () => {
    const el = await listAfterHelp('zh-CN');
    const time = parts(el, 'conversation-meta')[0]!.querySelector('time')!;
    expect(time.textContent).to.equal(
      new Intl.DateTimeFormat('zh-CN', { timeStyle: 'short' }).format(new Date(time.getAttribute('datetime')!)),
    );
    expect(text(part(el, 'conversation-preview')!)).to.match(/^Aria：Demo commands \/markdown: a long formatted reply/);
  });
});
