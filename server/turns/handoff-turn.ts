import type { ChatStreamRecord } from '@svc/agent-sdk/protocol';
import type { AppContext } from '../services/context.js';
import { getConversation } from '../store/conversation-rows.js';
import type { Db } from '../store/db.js';
import type { HandoffRow } from '../store/handoff-rows.js';
import { recentEntries } from '../store/history-rows.js';
import { randomId } from '../store/ids.js';
import { insertTurnIfIdle } from '../store/turn-rows.js';
import { ActiveTurn } from './active-turn.js';
import { HISTORY_FOR_RUNTIME, startTurn } from './begin-turn.js';

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
  if (ctx.drain.draining || !conversation) return undefined;
  const agentId =
    handoff.agent_id && conversation.agentIds.includes(handoff.agent_id) ? handoff.agent_id : conversation.agentIds[0];
  const turnId = randomId('t');
  if (!agentId || !(await insertTurnIfIdle(tx, conversation.id, turnId))) return undefined;
  const turn = new ActiveTurn(
    ctx,
    { ...conversation, agentIds: [agentId] },
    turnId,
    new Map([[agentId, randomId('m')]]),
  );
  const { instanceId } = tx;
  const waitedSeconds = record.raw.type === 'handoff_unanswered' ? record.raw.waitedSeconds : 0;
  return () =>
    startTurn(ctx, turn, instanceId, async () => ({
      conversationId: conversation.id,
      turnId,
      userId: conversation.ownerId,
      text: '',
      parts: [],
      toolAction: false,
      mcpTokens: {},
      // The page's tools come with a visitor's send; this turn answers none (nobody came).
      clientTools: [],
      history: [...(await recentEntries(ctx.db, conversation.id, record.id, HISTORY_FOR_RUNTIME - 1)), record],
      baseUrl: ctx.publicUrl ?? ctx.linkHosts.own,
      unanswered: { waitedSeconds },
    }));
}
