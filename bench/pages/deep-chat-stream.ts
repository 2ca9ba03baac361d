/**
 * deep-chat streaming the same 60 KB reply in the same pieces, through its own `handler` connection; and at a
 * model's pace once the reply holds some kilobytes, by default and with its `partialRender` option.
 */
import 'deep-chat';
import { LONG_MARKDOWN } from '../../server/runtimes/demo-content.js';
import { nextTask } from '../../test/helpers/fake-chat-api.js';
import { until } from '../../test/helpers/until.js';
import { frames } from './mount.js';
import { chunks, cutAt, type PacedRenderer, pace } from './paced.js';
import { longMarkdown, tokens } from './records.js';

let TEXT = longMarkdown(LONG_MARKDOWN);
let PIECES = tokens(TEXT);
const PACED_TEXT = longMarkdown(LONG_MARKDOWN, 40);

interface Signals {
  onOpen(): void;
  onClose(): void;
  onResponse(response: { text: string }): Promise<void>;
}

interface DeepChat extends HTMLElement {
  connect: { stream: boolean | { partialRender: boolean }; handler: (body: unknown, signals: Signals) => void };
  submitUserMessage(content: { text: string }): void;
}

let run: () => Promise<void> = async () => {};

function setCopies(copies: number) {
  TEXT = longMarkdown(LONG_MARKDOWN, copies);
  PIECES = tokens(TEXT);
}

async function mount(stream: DeepChat['connect']['stream'], handler: DeepChat['connect']['handler']) {
  const chat = document.createElement('deep-chat') as unknown as DeepChat;
  chat.style.cssText = 'display:block;width:400px;height:680px';
  chat.connect = { stream, handler };
  document.body.replaceChildren(chat);
  await until(() => messagesOf(chat), "deep-chat's messages");
  await frames(2);
  return chat;
}

const messagesOf = (chat: DeepChat) => chat.shadowRoot?.querySelector('#messages, .messages, #chat-view');

async function prepare(perTask: number): Promise<void> {
  let finished: () => void = () => {};
  const chat = await mount(true, async (_body, signals) => {
    signals.onOpen();
    for (let i = 0; i < PIECES.length; i += perTask) {
      for (const piece of PIECES.slice(i, i + perTask)) void signals.onResponse({ text: piece });
      await nextTask();
    }
    signals.onClose();
    finished();
  });
  run = async () => {
    const done = new Promise<void>((resolve) => (finished = resolve));
    chat.submitUserMessage({ text: 'Write the long guide' });
    await done;
    await frames(2);
  };
}

let paced: { renderer: PacedRenderer; offset: number } | undefined;

/** deep-chat (its default, or `partialRender`) whose reply already holds `bytes` characters, streaming on in `runPaced`. */
async function preparePaced(bytes: number, partialRender: boolean): Promise<void> {
  const offset = cutAt(PACED_TEXT, bytes);
  let open: (signals: Signals) => void = () => {};
  const opened = new Promise<Signals>((resolve) => (open = resolve));
  const chat = await mount(partialRender ? { partialRender: true } : true, (_body, signals) => {
    signals.onOpen();
    open(signals);
  });
  chat.submitUserMessage({ text: 'Write the long guide' });
  const signals = await opened;
  for (const piece of chunks(PACED_TEXT.slice(0, offset), Math.max(1000, Math.ceil(offset / 50)))) {
    void signals.onResponse({ text: piece });
    await nextTask();
  }
  await frames(3);
  paced = {
    offset,
    renderer: {
      feed: (pieces) => {
        for (const text of pieces) void signals.onResponse({ text });
      },
      shown: () => messagesOf(chat)?.textContent ?? '',
    },
  };
}

async function runPaced(seconds: number) {
  if (!paced) throw new Error('preparePaced first');
  const { offset, ...result } = await pace(paced.renderer, PACED_TEXT, paced.offset, seconds);
  paced.offset = offset;
  return result;
}

Object.assign(window, { bench: { setCopies, prepare, preparePaced, runPaced, run: () => run() } });
