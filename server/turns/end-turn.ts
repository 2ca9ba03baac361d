import { setTimeout as sleep } from 'node:timers/promises';
import type { AgentStatus, ChatStreamRecord, ResultRawEvent, ResultSubtype } from '@svc/agent-sdk/protocol';
import { backoff } from '@svc/agent-sdk/protocol';
import { errorText } from '../http/errors.js';
import type { AppContext } from '../services/context.js';
import { getConversation, lockConversation } from '../store/conversation-rows.js';
import { type NewRecord, turnRecords } from '../store/record-rows.js';
import { conversationOfTurn, markTurnEnded, runningTurns } from '../store/turn-rows.js';

/**
 * Ends a running turn of a conversation, however it ends: its agents finished or failed, the user interrupted
 * it, or the process running it died (see endAbandonedTurns). In one transaction, under the conversation's
 * lock, it marks the turn ended, closes what the turn left open (closingRecords) and stores the one `result`
 * record that ends every turn. False when the turn had already ended (an interrupt and the agents' end may race).
 */
/** A turn to end: its id, and its conversation when known. */
export interface TurnToEnd {
  id: string;
  conversationId?: string;
}

export function endTurn(
  ctx: Pick<AppContext, 'records'>,
  { id: turnId, conversationId: known }: TurnToEnd,
  subtype: ResultSubtype,
  error?: string,
): Promise<boolean> {
  return ctx.records.write(async (append, tx) => {
    // A send's turn whose commit went unanswered is known by its id alone (none: it was not stored).
    const conversationId = known ?? (await conversationOfTurn(tx, turnId));
    if (!conversationId) return false;
    await lockConversation(tx, conversationId);
    const turn = await markTurnEnded(tx, turnId, subtype);
    if (!turn) return false;
    const records = await turnRecords(tx, turnId);
    const closing = closingRecords(records).map((record) => ({ ...record, turnId }));
    const result: ResultRawEvent = {
      type: 'result',
      subtype,
      is_error: subtype === 'error',
      duration_ms: Date.now() - Date.parse(turn.startedAt),
      agentIds: agentsOf(records) ?? (await getConversation(tx, turn.conversationId))?.agentIds ?? [],
    };
    if (error !== undefined) result.error = error;
    await append(turn.conversationId, ...closing, { sender: 'system', event: 'result', raw: result, turnId });
    return true;
  });
}

/**
 * endTurn, tried again while the database refuses it (a failover, a full disk), pausing as the client's retries do,
 * for as long as the service runs: a turn left running would refuse every next message of its conversation (409)
 * until the service restarts. Once the service stops it gives up; the next start, or another instance, ends the
 * turn then (endAbandonedTurns).
 */
export async function endTurnSurely(
  ctx: Pick<AppContext, 'records' | 'turns' | 'logError'>,
  turn: TurnToEnd,
  subtype: ResultSubtype,
  error?: string,
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await endTurn(ctx, turn, subtype, error);
      return;
    } catch (err) {
      ctx.logError(`turn ${turn.id} could not be ended: ${errorText(err)}`);
    }
    try {
      await sleep(backoff(attempt), undefined, { signal: ctx.turns.stopped });
    } catch {
      return;
    }
  }
}

/**
 * What a reader of a turn ended by endAbandonedTurns is told: at start-up, what a previous run left; from a running
 * instance, what another instance (on the same database) left when it stopped.
 */
export const ABANDONED = {
  restarted: 'the service restarted during this reply',
  stopped: 'the instance of the service running this reply stopped during it',
} as const;

/**
 * Ends the turns whose instance is gone (a process that crashed or was killed mid-reply: a previous run of
 * this one, or another instance on the same database), so a reader of such a turn gets its `result` instead
 * of waiting forever. Run at start-up, and every few seconds when instances share a database.
 */
export async function endAbandonedTurns(
  ctx: Pick<AppContext, 'db' | 'records'>,
  why: string = ABANDONED.restarted,
): Promise<void> {
  const alive = new Map<string, Promise<boolean>>();
  for (const turn of await runningTurns(ctx.db)) {
    const instance = turn.instanceId;
    if (instance !== null) {
      if (!alive.has(instance)) alive.set(instance, ctx.db.instanceAlive(instance));
      if (await alive.get(instance)) continue;
    }
    await endTurn(ctx, turn, 'error', why);
  }
}

/**
 * What a turn cut short left open: each reply streamed without its final `assistant` record gets one
 * holding the text streamed so far (so `messages` and history keep what the reader saw), and each agent
 * not idle is set idle.
 */
function closingRecords(records: ChatStreamRecord[]): NewRecord[] {
  const open = new Map<string, { agentId: string; agentName?: string; text: string }>();
  const statuses = new Map<string, { status: AgentStatus; agentName?: string }>();
  for (const { raw, agentName } of records) {
    if (raw.type === 'assistant_delta') {
      const reply = open.get(raw.messageId) ?? { agentId: raw.agentId, agentName, text: '' };
      reply.text += raw.text;
      open.set(raw.messageId, reply);
    } else if (raw.type === 'assistant') open.delete(raw.message.id);
    else if (raw.type === 'agent_status') statuses.set(raw.agentId, { status: raw.status, agentName });
  }
  const closing: NewRecord[] = [...open].map(([id, { agentId, agentName, text }]) => ({
    sender: 'agent',
    event: 'message',
    agentId,
    agentName,
    raw: { type: 'assistant', agentId, message: { id, role: 'assistant', content: [{ type: 'text', text }] } },
  }));
  for (const [agentId, { status, agentName }] of statuses) {
    if (status !== 'idle') {
      closing.push({
        sender: 'agent',
        event: 'agent_status',
        agentId,
        agentName,
        raw: { type: 'agent_status', agentId, status: 'idle' },
      });
    }
  }
  return closing;
}

/** The agents that spoke in a turn, in the order they first did; undefined when none did. */
function agentsOf(records: ChatStreamRecord[]): string[] | undefined {
  const agents = new Set(
    records.flatMap((record) => (record.sender === 'agent' && record.agentId ? [record.agentId] : [])),
  );
  return agents.size ? [...agents] : undefined;
}
