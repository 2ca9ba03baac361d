import type { ChatRawEvent, ChatStreamRecord } from '../../src/protocol/types.js';

/** Records in the service's shapes (docs/protocol.md), numbered as the service numbers them. */
export class RecordWriter {
  #seq = 0;

  constructor(readonly conversationId: string) {}

  record(raw: ChatRawEvent, turn: number): ChatStreamRecord {
    const seq = ++this.#seq;
    const agent = raw.type !== 'user' && raw.type !== 'result';
    return {
      id: `e${String(seq).padStart(15, '0')}`,
      seq,
      timestamp: new Date(1_700_000_000_000 + seq).toISOString(),
      sessionId: null,
      conversationId: this.conversationId,
      turnId: `t_${turn}`,
      ...(agent ? { agentId: 'agent_bench', agentName: 'Bench' } : {}),
      sender: raw.type === 'user' ? 'user' : raw.type === 'result' ? 'system' : 'agent',
      event: raw.type === 'assistant_delta' ? 'delta' : raw.type === 'result' ? 'result' : 'message',
      raw,
    };
  }

  user(text: string, turn: number): ChatStreamRecord {
    return this.record({ type: 'user', message: { role: 'user', content: [{ type: 'text', text }] } }, turn);
  }

  delta(messageId: string, text: string, turn: number): ChatStreamRecord {
    return this.record({ type: 'assistant_delta', agentId: 'agent_bench', messageId, text }, turn);
  }

  reply(messageId: string, text: string, turn: number): ChatStreamRecord {
    const message = { id: messageId, role: 'assistant' as const, content: [{ type: 'text' as const, text }] };
    return this.record({ type: 'assistant', agentId: 'agent_bench', message }, turn);
  }

  result(turn: number): ChatStreamRecord {
    const raw = { type: 'result', subtype: 'success', is_error: false, duration_ms: 1, agentIds: ['agent_bench'] };
    return this.record(raw as ChatRawEvent, turn);
  }
}

/** About 60 KB of markdown: the demo agent's long reply (headings, lists, code, a table) ten times over. */
export function longMarkdown(base: string, copies = 10): string {
  return Array.from({ length: copies }, (_, i) => base.replace(/^# (.*)$/m, `# $1 (part ${i + 1})`)).join('\n\n');
}

/** Splits text into pieces of 2 to 6 characters, as a model's tokens arrive: about 15,000 for 60 KB. */
export function tokens(text: string): string[] {
  const pieces: string[] = [];
  for (let i = 0, n = 0; i < text.length; n++) {
    const size = 2 + ((n * 7) % 5);
    pieces.push(text.slice(i, i + size));
    i += size;
  }
  return pieces;
}

const REPLIES = [
  'Sure. Here is **what changed** since your last visit:\n\n- the `billing` page loads faster\n- invoices can be exported as CSV\n\nAnything else?',
  'The order ships on *Monday*. You can follow it at [the tracking page](https://example.com/track).',
  '```js\nconst total = items.reduce((sum, item) => sum + item.price, 0);\n```\n\nThat sums the prices.',
  '| plan | price |\n| --- | --- |\n| basic | 5 |\n| pro | 12 |\n\nThe **pro** plan includes priority support.',
];

/** The long conversation of the history benchmarks, `messages / 2` turns of a question and a short markdown reply. */
export function historyTurns(messages: number): { question: string; reply: string }[] {
  return Array.from({ length: messages / 2 }, (_, i) => ({
    question: `Question number ${i + 1}: how does this work?`,
    reply: `${REPLIES[(i + 1) % REPLIES.length]}\n\n(reply ${i + 1})`,
  }));
}
