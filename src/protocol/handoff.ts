/**
 * A person in the conversation (docs/protocol.md): which records change who holds a conversation, and what a
 * person's message says. Order-independent like every record helper: the newest such record decides.
 */
import type { ChatStreamRecord, HandoffStatus, MessagePart, OperatorIdentity } from './types.js';

/** What a handoff's reason may take: characters, as the visitor or the agent words it. */
export const HANDOFF_LIMITS = { reason: 500 } as const;

/** Who holds the conversation after `record`; undefined for a record that changes nothing of it. */
export function handoffStatusOf(record: ChatStreamRecord): HandoffStatus | undefined {
  const raw = record.raw;
  if (raw.type === 'handoff_requested') return { state: 'waiting', at: record.id };
  if (raw.type === 'operator_joined') return { state: 'human', operator: raw.operator, at: record.id };
  if (raw.type === 'operator_left' || raw.type === 'handoff_unanswered') return { state: 'agent', at: record.id };
  return undefined;
}

/** A person's message (an `operator_message` record): who wrote it, its text and attachments; else null. */
export function extractOperatorMessage(
  record: ChatStreamRecord,
): { operator: OperatorIdentity; messageId: string; text: string; parts: MessagePart[] } | null {
  const raw = record.raw;
  if (raw.type !== 'operator_message' || !Array.isArray(raw.message?.content)) return null;
  const text = raw.message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
  return { operator: raw.operator, messageId: raw.message.id, text, parts: raw.parts ?? [] };
}
