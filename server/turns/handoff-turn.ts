import type { ChatStreamRecord } from '@svc/agent-sdk/protocol';
import type { AppContext } from '../services/context.js';
import { getConversation } from '../store/conversation-rows.js';
import type { Db } from '../store/db.js';
import type { HandoffRow } from '../store/handoff-rows.js';
import { agentTurnAfter } from './begin-turn.js';

/**
 * The turn after a handoff nobody took (docs/protocol.md "A person in the conversation"): the agent that asked for
 * the person (else the conversation's first) tells the visitor and offers the contact card. It is stored inside the
 * transaction that ended the wait (`tx`, which stored `record`), so one instance starts it once. None when a turn is
 * running already, while this instance drains, or when the conversation is gone. Returns what starts the turn once
 * the transaction has committed.
 */
export async function followUnanswered(
  ctx: AppContext,
  tx: Db,
  handoff: HandoffRow,
  record: ChatStreamRecord,
): Promise<(() => void) | undefined> {
  const conversation = await getConversation(tx, handoff.conversation_id);
  if (!conversation) return undefined;
  const agentId =
    handoff.agent_id && conversation.agentIds.includes(handoff.agent_id) ? handoff.agent_id : conversation.agentIds[0];
  if (!agentId) return undefined;
  return agentTurnAfter(ctx, tx, conversation, agentId, record, {
    baseUrl: ctx.publicUrl ?? ctx.linkHosts.own,
    unanswered: { waitedSeconds: record.raw.type === 'handoff_unanswered' ? record.raw.waitedSeconds : 0 },
  });
}
