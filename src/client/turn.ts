import type { AgentTurn, SendRequest } from '../protocol/conversation-types.js';
import type { ChatStreamRecord } from '../protocol/record-types.js';
import { extractText, extractToolCalls } from '../protocol/records.js';
import type { McpTokens } from './config.js';
import type { TurnReadOptions } from './record-stream.js';

/** Options of `sendMessage`, `runTurn` and a Conversation's `send`/`stream` (spec 4.4): any SendRequest field plus the wait's bounds. */
export type MessageOptions = Omit<SendRequest, 'message'> & TurnReadOptions;

/** Splits message options into the SendRequest and the bounds of the wait for the reply. */
export function toSendRequest(
  message: string,
  options: MessageOptions,
  defaultAgentId: string | undefined,
): { request: SendRequest; wait: TurnReadOptions } {
  const { idleTimeoutMs, signal, ...fields } = options;
  const request: SendRequest = { ...fields, message };
  // The default agent matters only when a conversation is created; an existing one keeps its agents.
  if (!request.conversationId && !request.targetAgentIds && defaultAgentId) request.targetAgentIds = [defaultAgentId];
  return { request, wait: { idleTimeoutMs, signal } };
}

/** The client's tokens, then the message's: the message's win on the same key. Undefined when there are none. */
export async function mergeMcpTokens(
  base: McpTokens | undefined,
  own: Record<string, string> | undefined,
): Promise<Record<string, string> | undefined> {
  const merged = { ...(typeof base === 'function' ? await base() : base), ...own };
  return Object.keys(merged).length > 0 ? merged : undefined;
}

/** Collects a turn's records into an AgentTurn: the reply text of its `assistant` records, tool calls, result. */
export async function collectTurn(
  conversationId: string,
  records: AsyncIterable<ChatStreamRecord>,
): Promise<AgentTurn> {
  const turn: AgentTurn = { conversationId, text: '', toolCalls: [], records: [], sessionId: null };
  const texts: string[] = [];
  for await (const record of records) {
    turn.records.push(record);
    const text = record.raw.type === 'assistant' ? extractText(record) : '';
    if (text) texts.push(text);
    turn.toolCalls.push(...extractToolCalls(record));
    if (record.raw.type === 'result') turn.result = record.raw;
    turn.sessionId = record.sessionId ?? turn.sessionId;
    turn.lastEventId = record.id;
  }
  // Separate messages of one turn (text before and after a tool call, several agents) read as paragraphs.
  turn.text = texts.join('\n\n');
  return turn;
}
