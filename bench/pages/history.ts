/** Long conversations: 5,000 messages in history through the real `<svc-chat>`, fed by a fake ChatApi. */

import { loadMarkdownEngine } from '../../src/elements/svc-markdown/engine.js';
import type { ChatStreamRecord } from '../../src/protocol/types.js';
import { FakeChatApi } from '../../test/helpers/fake-chat-api.js';
import { RecordWriter } from '../../test/helpers/records.js';
import { conversationOf, countElements, frames, mountChat } from './mount.js';
import { historyTurns } from './records.js';

function conversation(messages: number): ChatStreamRecord[] {
  const writer = new RecordWriter('c_bench');
  return historyTurns(messages).flatMap(({ question, reply }, i) => [
    writer.user(question, i + 1),
    writer.reply(`m_${i + 1}`, reply, i + 1),
    writer.result(i + 1),
  ]);
}

let api = new FakeChatApi();

const list = () => conversationOf(document.querySelector('svc-chat'))?.querySelector<HTMLElement>('[part~=messages]');

Object.assign(window, {
  bench: {
    async prepare(messages: number) {
      document.querySelector('svc-chat')?.remove();
      // As text and parsed, as the client reads records from the service: one flat string per field, not the
      // templates' joined strings, which a page never holds.
      api = new FakeChatApi(JSON.parse(JSON.stringify(conversation(messages))));
      await loadMarkdownEngine(); // Outside the measured first paint (see mountChat).
    },
    /** Milliseconds from adding the element to the newest message painted at the bottom of the list. */
    async firstPaint(messages: number): Promise<number> {
      const start = performance.now();
      await mountChat(api);
      const newest = `(reply ${messages / 2})`;
      const shown = [...(list()?.querySelectorAll('svc-markdown') ?? [])].at(-1)?.renderRoot.textContent ?? '';
      if (!shown.includes(newest)) throw new Error(`the newest message is not shown: ${shown.slice(-80)}`);
      // mountChat waited two frames: the paint is one frame before it returned.
      return performance.now() - start;
    },
    stats() {
      const memory = (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory;
      return {
        elements: countElements(),
        rows: list()?.querySelectorAll('[part~=message]').length ?? 0,
        heapMb: memory ? memory.usedJSHeapSize / 1e6 : 0,
      };
    },
    /** Scrolls the list to the top 1,200 px a frame, as a fast flick does; returns each frame's duration. */
    async scrollToTop(): Promise<number[]> {
      const element = list();
      if (!element) throw new Error('no list');
      const times: number[] = [];
      let last = performance.now();
      for (let i = 0; i < 5000 && element.scrollTop > 0; i++) {
        element.scrollTop -= 1200;
        await frames(1);
        const now = performance.now();
        times.push(now - last);
        last = now;
      }
      if (element.scrollTop > 0) throw new Error('the list did not reach the top');
      const first = element.querySelector('[part~=message-user] [part~=bubble]')?.textContent ?? '';
      if (!first.includes('Question number 1:')) throw new Error(`the oldest message is not shown: ${first}`);
      return times;
    },
  },
});
