/** The 5,000-message history of bench/pages/history.ts in deep-chat 2.4.2 (its `history` property). */
import 'deep-chat';
import { until } from '../../test/helpers/until.js';
import { countElements, frames } from './mount.js';
import { historyTurns } from './records.js';

type History = { role: 'user' | 'ai'; text: string }[];
type DeepChat = HTMLElement & { history: History };

let history: History = [];

const chat = () => document.querySelector<DeepChat>('deep-chat');
const texts = () => [...(chat()?.shadowRoot?.querySelectorAll('.message-bubble') ?? [])];

Object.assign(window, {
  bench: {
    async prepare(messages: number) {
      chat()?.remove();
      history = historyTurns(messages).flatMap(({ question, reply }) => [
        { role: 'user' as const, text: question },
        { role: 'ai' as const, text: reply },
      ]);
    },
    /** Milliseconds from adding the element to the newest message painted. */
    async firstPaint(messages: number): Promise<number> {
      const start = performance.now();
      const element = document.createElement('deep-chat') as unknown as DeepChat;
      element.style.cssText = 'display:block;width:400px;height:680px';
      element.history = history;
      history = [];
      document.body.append(element);
      const newest = `(reply ${messages / 2})`;
      await until(() => texts().at(-1)?.textContent?.includes(newest), 'the newest message');
      await frames(2);
      return performance.now() - start;
    },
    stats() {
      const memory = (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory;
      return { elements: countElements(), rows: texts().length, heapMb: memory ? memory.usedJSHeapSize / 1e6 : 0 };
    },
  },
});
