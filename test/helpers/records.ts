/**
 * Hand-written records in the exact shapes of docs/protocol.md ("Record" and its `raw` table), numbered so
 * `record id n` is `e` + n padded to 15 digits, as the service writes them.
 */
import type { MessagePart } from '../../src/protocol/conversation-types.js';
import type {
  ChatRawEvent,
  ChatStreamRecord,
  ContentBlock,
  FileAttachment,
  PaymentGatePayload,
  PaymentStatus,
  RecordSender,
  ResultSubtype,
} from '../../src/protocol/record-types.js';

export const CONVERSATION = 'c_test';

export const id = (n: number) => `e${String(n).padStart(15, '0')}`;

const SHAPE: Record<ChatRawEvent['type'], { sender: RecordSender; event: string }> = {
  user: { sender: 'user', event: 'message' },
  agent_status: { sender: 'agent', event: 'agent_status' },
  assistant_delta: { sender: 'agent', event: 'delta' },
  assistant: { sender: 'agent', event: 'message' },
  attachment: { sender: 'agent', event: 'attachment' },
  payment_gate: { sender: 'agent', event: 'payment_gate' },
  payment_gate_resolution: { sender: 'system', event: 'payment_gate_resolution' },
  result: { sender: 'system', event: 'result' },
  handoff_requested: { sender: 'system', event: 'handoff' },
  operator_joined: { sender: 'system', event: 'handoff' },
  operator_message: { sender: 'system', event: 'message' },
  operator_left: { sender: 'system', event: 'handoff' },
  handoff_unanswered: { sender: 'system', event: 'handoff' },
};

interface On {
  turn?: string;
  agent?: string;
}

/** A record of any kind, numbered `n` (the id's order). */
export function record(n: number, raw: ChatRawEvent, { turn = 't_1', agent }: On = {}): ChatStreamRecord {
  const agentId = agent ?? ('agentId' in raw ? raw.agentId : undefined);
  return {
    id: id(n),
    seq: n,
    timestamp: new Date(Date.UTC(2026, 10, 21, 10, 0, n)).toISOString(),
    sessionId: CONVERSATION,
    conversationId: CONVERSATION,
    turnId: turn,
    ...(agentId ? { agentId } : {}),
    ...SHAPE[raw.type],
    raw,
  };
}

export function user(
  n: number,
  text: string,
  extra: {
    parts?: MessagePart[];
    metadata?: Record<string, unknown>;
    toolAction?: boolean;
    replaces?: string;
    senderName?: string;
  } & On = {},
): ChatStreamRecord {
  const { turn, agent, ...fields } = extra;
  return record(
    n,
    { type: 'user', message: { role: 'user', content: [{ type: 'text', text }] }, ...fields },
    { turn, agent },
  );
}

export const status = (
  n: number,
  agentId: string,
  value: 'thinking' | 'typing' | 'tool' | 'idle',
  on: On = {},
): ChatStreamRecord => record(n, { type: 'agent_status', agentId, status: value }, on);

export const delta = (n: number, messageId: string, text: string, on: On = {}): ChatStreamRecord =>
  record(n, { type: 'assistant_delta', agentId: on.agent ?? 'agent_echo', messageId, text }, on);

export const assistant = (
  n: number,
  messageId: string,
  content: string | ContentBlock[],
  on: On = {},
): ChatStreamRecord =>
  record(
    n,
    {
      type: 'assistant',
      agentId: on.agent ?? 'agent_echo',
      message: {
        id: messageId,
        role: 'assistant',
        content: typeof content === 'string' ? [{ type: 'text', text: content }] : content,
      },
    },
    on,
  );

export const attachment = (n: number, file: FileAttachment, on: On = {}): ChatStreamRecord =>
  record(n, { type: 'attachment', agentId: on.agent ?? 'agent_demo', file }, on);

export const paymentGate = (n: number, payment: PaymentGatePayload, on: On = {}): ChatStreamRecord =>
  record(n, { type: 'payment_gate', agentId: on.agent ?? 'agent_demo', payment }, on);

export const resolution = (n: number, orderId: string, value: PaymentStatus, on: On = {}): ChatStreamRecord =>
  record(n, { type: 'payment_gate_resolution', orderId, status: value }, on);

export const result = (
  n: number,
  subtype: ResultSubtype,
  extra: { error?: string; agentIds?: string[] } & On = {},
): ChatStreamRecord => {
  const { turn, agent, error, agentIds = ['agent_echo'] } = extra;
  return record(
    n,
    {
      type: 'result',
      subtype,
      is_error: subtype === 'error',
      duration_ms: 1200,
      agentIds,
      ...(error ? { error } : {}),
    },
    { turn, agent },
  );
};

/** A `collect_info` card (reserved tool name) as an agent asks for it. */
export const collectInfo = (toolUseId: string): ContentBlock => ({
  type: 'tool_use',
  id: toolUseId,
  name: 'collect_info',
  input: {
    title: 'Shipping address',
    fields: [
      { name: 'street', label: 'Street', type: 'text', required: true },
      { name: 'city', label: 'City', type: 'text' },
    ],
  },
});

/** A `suggest_replies` call (reserved tool name): replies the visitor may send next. */
export const suggestReplies = (toolUseId: string, suggestions: unknown[]): ContentBlock => ({
  type: 'tool_use',
  id: toolUseId,
  name: 'suggest_replies',
  input: { suggestions },
});

export const setupConnector = (toolUseId: string, connectorTypeId: string): ContentBlock => ({
  type: 'tool_use',
  id: toolUseId,
  name: 'setup_connector',
  input: { connectorTypeId, name: 'GitHub', fields: [{ name: 'token', label: 'Token', secret: true }] },
});

export const ORDER: PaymentGatePayload = {
  orderId: 'o_1',
  amountCny: 12.5,
  title: 'Report',
  payUrl: 'http://127.0.0.1/pay/o_1',
  expiresAt: '2026-11-21T10:15:00.000Z',
};

/**
 * Records of conversation `conversationId` numbered as they are written, by turn number (the benchmarks' long
 * conversations, and the chat tests that render them).
 */
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
