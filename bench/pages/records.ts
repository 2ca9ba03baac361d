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
