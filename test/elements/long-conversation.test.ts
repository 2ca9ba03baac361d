import { expect, fixture, html } from '@open-wc/testing';
import '../../src/elements/svc-chat.js';
import { FakeChatApi } from '../../bench/pages/fake-chat-api.js';
import { RecordWriter } from '../../bench/pages/records.js';
import type { ChatClient } from '../../src/client/chat.js';
import { loadMarkdownEngine } from '../../src/elements/markdown/engine.js';
import type { SvcChat } from '../../src/elements/svc-chat.js';
import type { ChatStreamRecord } from '../../src/protocol/types.js';
import { until } from '../helpers/browser-service.js';
import { part } from '../helpers/chat-parts.js';
import { chatReady } from '../helpers/chat-ready.js';

/** A conversation of `turns` questions, each answered in markdown. */
function conversation(turns: number): ChatStreamRecord[] {
  const writer = new RecordWriter('c_long');
  return Array.from({ length: turns }, (_, i) => [
    writer.user(`Question ${i + 1}`, i + 1),
    writer.reply(`m_${i + 1}`, `Answer **${i + 1}**, in two paragraphs.\n\n- with\n- a list`, i + 1),
    writer.result(i + 1),
  ]).flat();
}

describe('a long conversation', () => {
  it('shows its newest messages first, with only the rows in view, and the rows around them after that paint', async () => {
    await loadMarkdownEngine();
    const api = new FakeChatApi(conversation(400));
    const el = await fixture<SvcChat>(
      html`<div style="height: 500px"><svc-chat conversation-id="c_long" .client=${{ chat: api as unknown as ChatClient }}></svc-chat></div>`,
    ).then((d) => chatReady(d.querySelector('svc-chat')!));
    const rows = () => [...(part(el, 'messages')?.querySelectorAll<HTMLElement>(':scope > [part~=message]') ?? [])];
    // The first frame that shows rows (this waits a frame at a time).
    await until(() => rows().length, 'the newest rows');
    const list = part(el, 'messages')!;
    const newest = () => rows().at(-1)?.querySelector('svc-markdown')?.plainText;
    expect(newest()).to.equal('Answer 400, in two paragraphs. with a list');
    // Only what the view shows was rendered (and its markdown parsed) before that paint: without the top one,
    // which may be cut by the top of the view, the rows fit in it.
    const below = rows()
      .slice(1)
      .reduce((height, row) => height + row.offsetHeight, 0);
    expect(below).to.be.at.most(list.clientHeight);
    // Then the rows above the view arrive, a few a task: a flick up shows messages, not blank space.
    await until(
      () => rows().reduce((height, row) => height + row.offsetHeight, 0) > list.clientHeight + 1000,
      'the rows around the view',
    );
    // And the chat still shows the end of the conversation.
    await until(() => list.scrollHeight - list.scrollTop - list.clientHeight < 2, 'the end of the conversation');
    expect(newest()).to.equal('Answer 400, in two paragraphs. with a list');
  });
});
