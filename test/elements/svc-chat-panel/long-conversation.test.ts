import { expect, nextFrame, oneEvent } from '@open-wc/testing';
import '../../../src/elements/svc-chat/svc-chat.js';
import { loadMarkdownEngine } from '../../../src/elements/svc-markdown/engine.js';
import type { ChatRawEvent, ChatStreamRecord } from '../../../src/protocol/types.js';
import { until } from '../../helpers/browser-service.js';
import { belowView, part } from '../../helpers/chat-parts.js';
import { fakeChat } from '../../helpers/fake-chat.js';
import { FakeChatApi } from '../../helpers/fake-chat-api.js';
import { RecordWriter } from '../../helpers/records.js';

/** A conversation of `turns` questions, each answered in markdown. */
function conversation(turns: number, writer = new RecordWriter('c_long')): ChatStreamRecord[] {
  return Array.from({ length: turns }, (_, i) => [
    writer.user(`Question ${i + 1}`, i + 1),
    writer.reply(`m_${i + 1}`, `Answer **${i + 1}**, in two paragraphs.\n\n- with\n- a list`, i + 1),
    writer.result(i + 1),
  ]).flat();
}

/** `turns` turns as `conversation` writes them, then a form of twelve fields, taller than a 500 px view. */
function endingInForm(turns: number): ChatStreamRecord[] {
  const writer = new RecordWriter('c_long');
  const fields = Array.from({ length: 12 }, (_, i) => ({ name: `f${i}`, label: `Field ${i + 1}`, type: 'text' }));
  const form = { type: 'tool_use', id: 'tu_form', name: 'collect_info', input: { title: 'Your details', fields } };
  const message = { id: 'm_form', role: 'assistant', content: [form] };
  const turn = turns + 1;
  return [
    ...conversation(turns, writer),
    writer.user('/form', turn),
    writer.record({ type: 'assistant', agentId: 'agent_bench', message } as ChatRawEvent, turn),
    writer.result(turn),
  ];
}

describe('a long conversation', () => {
  it('shows its newest messages first, with only the rows in view, and the rows around them after that paint', async () => {
    await loadMarkdownEngine();
    const api = new FakeChatApi(conversation(400));
    const el = await fakeChat(api, 'c_long', 500);
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
    await until(() => belowView(list) < 2, 'the end of the conversation');
    expect(newest()).to.equal('Answer 400, in two paragraphs. with a list');
  });

  it('keeps a visitor who read on to the end of a tall form there, also once its row is rendered again', async () => {
    await loadMarkdownEngine();
    const api = new FakeChatApi(endingInForm(60));
    const el = await fakeChat(api, 'c_long', 500);
    const list = await until(() => part(el, 'messages'), 'the list');
    const card = () => list.querySelector<HTMLElement>('[part~=card]');
    const cardTop = () => card()!.getBoundingClientRect().top - list.getBoundingClientRect().top;
    // The form ends the conversation and is taller than the view: the chat shows it from its top.
    await until(() => {
      const box = card()?.getBoundingClientRect();
      return box && box.height > list.clientHeight && cardTop() >= 0 && cardTop() < 40;
    }, 'the form shown from its top');
    // The visitor reads on to its end, then goes up to the first messages (scrolling on until they are there),
    // so far that the form's row is no longer rendered, and back down to the end.
    let scrolled = oneEvent(list, 'scroll');
    list.scrollTop = list.scrollHeight;
    await scrolled;
    await until(() => {
      list.scrollTop = 0;
      return !card();
    }, "the form's row out of the rendered rows");
    // Back down, scrolling on until the end (rows not measured yet make the first move fall short): the chat
    // never brings the visitor back to the form's top, now that its row is rendered again.
    let fromTop = false;
    // Where the chat puts a card it shows from its top: 8 px below the top of the view.
    const seen = () => {
      fromTop ||= !!card() && belowView(list) >= 2 && Math.abs(cardTop() - 8) < 1;
    };
    list.addEventListener('scroll', seen);
    await until(() => {
      seen();
      if (belowView(list) < 2) return card();
      list.scrollTop = list.scrollHeight;
      return undefined;
    }, 'the end of the form again');
    // A message above grows meanwhile (an image in it loads late): the list stays at the end the visitor reads.
    scrolled = oneEvent(list, 'scroll');
    card()!
      .closest('[part~=message]')!
      .previousElementSibling!.querySelector<HTMLElement>('[part~=bubble]')!.style.paddingBottom = '120px';
    await scrolled;
    await nextFrame();
    list.removeEventListener('scroll', seen);
    expect(fromTop, "brought back to the form's top").to.equal(false);
    expect(belowView(list)).to.be.below(2);
  });
});
