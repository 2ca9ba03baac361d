/**
 * Streaming render: a 60 KB markdown reply in about 15,000 `assistant_delta` records through the real
 * `<svc-chat>` and its store, fed by a fake ChatApi (bench/render.ts drives it).
 */
import { LONG_MARKDOWN } from '../../server/runtimes/demo-content.js';
import { sanitizeFragment } from '../../src/elements/markdown/sanitize.js';
import { markdownToHtml } from '../../test/helpers/markdown.js';
import { FakeChatApi, nextTask } from './fake-chat-api.js';
import { conversationOf, frames, mountChat } from './mount.js';
import { longMarkdown, RecordWriter, tokens } from './records.js';

const TEXT = longMarkdown(LONG_MARKDOWN);
const PIECES = tokens(TEXT);

let run: () => Promise<void> = async () => {};

/** A chat whose open turn's reply is then delivered in deltas (or, with `once`, as its final record only). */
async function prepare(mode: 'deltas' | 'once', perTask: number): Promise<void> {
  const writer = new RecordWriter('c_bench');
  const api = new FakeChatApi([writer.user('Write the long guide', 1)]);
  const chat = await mountChat(api);
  const records = [
    ...(mode === 'deltas' ? PIECES.map((piece) => writer.delta('m_reply', piece, 1)) : []),
    writer.reply('m_reply', TEXT, 1),
    writer.result(1),
  ];
  run = async () => {
    const done = new Promise((resolve) => chat.addEventListener('svc-turn-complete', resolve, { once: true }));
    await api.deliver(records, perTask);
    await done;
    await frames(2);
    const shown = conversationOf(chat)?.querySelector('svc-markdown')?.renderRoot.textContent ?? '';
    if (!shown.includes('part 10')) throw new Error('the reply was not rendered');
  };
}

/** The naive renderer: the whole text parsed, sanitized and put in place again on every delta. */
async function prepareNaive(perTask: number): Promise<void> {
  document.querySelector('svc-chat')?.remove();
  const target = document.createElement('div');
  document.body.replaceChildren(target);
  run = async () => {
    let text = '';
    for (let i = 0; i < PIECES.length; i += perTask) {
      for (const piece of PIECES.slice(i, i + perTask)) {
        text += piece;
        target.replaceChildren(sanitizeFragment(markdownToHtml(text)));
      }
      await nextTask();
    }
    await frames(2);
  };
}

Object.assign(window, {
  bench: {
    info: () => ({ bytes: TEXT.length, deltas: PIECES.length }),
    prepare,
    prepareNaive,
    run: () => run(),
  },
});
