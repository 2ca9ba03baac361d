/**
 * Streaming render: a 60 KB markdown reply in about 15,000 `assistant_delta` records through the real
 * `<svc-chat>` and its store, fed by a fake ChatApi (bench/render.ts drives it); and the same reply streamed at
 * a model's pace once it already holds some kilobytes (`preparePaced`, `runPaced`).
 */
import { LONG_MARKDOWN } from '../../server/runtimes/demo-content.js';
import { sanitizeFragment } from '../../src/elements/svc-markdown/sanitize.js';
import type { SvcMarkdown } from '../../src/elements/svc-markdown/svc-markdown.js';
import { FakeChatApi, nextTask } from '../../test/helpers/fake-chat-api.js';
import { markdownToHtml } from '../../test/helpers/markdown.js';
import { RecordWriter } from '../../test/helpers/records.js';
import { until } from '../../test/helpers/until.js';
import { conversationOf, frames, mountChat } from './mount.js';
import { chunks, cutAt, type PacedRenderer, pace } from './paced.js';
import { longMarkdown, tokens } from './records.js';

let TEXT = longMarkdown(LONG_MARKDOWN);
let PIECES = tokens(TEXT);
/** Long enough for the longest paced reply (200 KB) and what streams after it. */
const PACED_TEXT = longMarkdown(LONG_MARKDOWN, 40);

let run: () => Promise<void> = async () => {};

/** The fast feed's reply: `copies` of the demo's long reply (10: about 60 KB; fewer for a smoke run). */
function setCopies(copies: number) {
  TEXT = longMarkdown(LONG_MARKDOWN, copies);
  PIECES = tokens(TEXT);
}

const replyOf = (chat: Element) => conversationOf(chat as never)?.querySelector<SvcMarkdown>('svc-markdown');

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
  const last = `part ${TEXT.match(/\(part (\d+)\)/g)?.length ?? 1}`;
  run = async () => {
    const done = new Promise((resolve) => chat.addEventListener('svc-turn-complete', resolve, { once: true }));
    await api.deliver(records, perTask);
    await done;
    await frames(2);
    const shown = replyOf(chat)?.renderRoot.textContent ?? '';
    if (!shown.includes(last)) throw new Error('the reply was not rendered');
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

let paced: { renderer: PacedRenderer; offset: number } | undefined;

/**
 * A chat whose reply already holds `bytes` characters (fed fast, in 1,000-character deltas, not measured) and
 * goes on streaming at a model's pace in `runPaced`.
 */
async function preparePaced(bytes: number, css?: string): Promise<void> {
  const writer = new RecordWriter('c_bench');
  const api = new FakeChatApi([writer.user('Write the long guide', 1)]);
  const chat = await mountChat(api);
  if (css) {
    // An option measured beside the shipped styles (bench/render.ts `PACED_OPTIONS`): added to the reply's styles.
    api.push([writer.delta('m_reply', ' ', 1)]);
    await until(() => replyOf(chat), 'the reply');
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(css);
    const root = replyOf(chat)!.renderRoot as ShadowRoot;
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
  }
  const offset = cutAt(PACED_TEXT, bytes);
  await api.deliver(
    chunks(PACED_TEXT.slice(0, offset), Math.max(1000, Math.ceil(offset / 50))).map((piece) =>
      writer.delta('m_reply', piece, 1),
    ),
    1,
  );
  await until(() => (replyOf(chat)?.text.length ?? 0) >= offset, "the reply's text so far");
  await frames(3);
  paced = {
    offset,
    renderer: {
      feed: (pieces) => api.push(pieces.map((piece) => writer.delta('m_reply', piece, 1))),
      shown: () => replyOf(chat)?.renderRoot.textContent ?? '',
    },
  };
}

/** Streams on at a model's pace for `seconds`. */
async function runPaced(seconds: number) {
  if (!paced) throw new Error('preparePaced first');
  const { offset, ...result } = await pace(paced.renderer, PACED_TEXT, paced.offset, seconds);
  paced.offset = offset;
  return result;
}

Object.assign(window, {
  bench: {
    info: () => ({ bytes: TEXT.length, deltas: PIECES.length }),
    setCopies,
    prepare,
    prepareNaive,
    preparePaced,
    runPaced,
    run: () => run(),
  },
});
