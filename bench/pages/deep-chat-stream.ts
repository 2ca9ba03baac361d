/** deep-chat streaming the same 60 KB reply in the same pieces, through its own `handler` connection. */
import 'deep-chat';
import { LONG_MARKDOWN } from '../../server/runtimes/demo-content.js';
import { nextTask } from './fake-chat-api.js';
import { frames, until } from './mount.js';
import { longMarkdown, tokens } from './records.js';

const TEXT = longMarkdown(LONG_MARKDOWN);
const PIECES = tokens(TEXT);

interface Signals {
  onOpen(): void;
  onClose(): void;
  onResponse(response: { text: string }): Promise<void>;
}

interface DeepChat extends HTMLElement {
  connect: { stream: boolean; handler: (body: unknown, signals: Signals) => void };
  submitUserMessage(content: { text: string }): void;
}

let run: () => Promise<void> = async () => {};

async function prepare(perTask: number): Promise<void> {
  const chat = document.createElement('deep-chat') as unknown as DeepChat;
  chat.style.cssText = 'display:block;width:400px;height:680px';
  let finished: () => void = () => {};
  chat.connect = {
    stream: true,
    handler: async (_body, signals) => {
      signals.onOpen();
      for (let i = 0; i < PIECES.length; i += perTask) {
        for (const piece of PIECES.slice(i, i + perTask)) void signals.onResponse({ text: piece });
        await nextTask();
      }
      signals.onClose();
      finished();
    },
  };
  document.body.replaceChildren(chat);
  await until(() => chat.shadowRoot?.querySelector('#messages, .messages, #chat-view'));
  await frames(2);
  run = async () => {
    const done = new Promise<void>((resolve) => (finished = resolve));
    chat.submitUserMessage({ text: 'Write the long guide' });
    await done;
    await frames(2);
  };
}

Object.assign(window, { bench: { prepare, run: () => run() } });
