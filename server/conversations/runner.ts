import type {
  AgentStatus,
  ChatStreamRecord,
  InterruptResult,
  MessagePart,
  SendResult,
  UserRawEvent,
} from '../../src/client/types.js';
import type { AppContext } from '../context.js';
import { conflict } from '../errors.js';
import { randomId } from '../ids.js';
import {
  type Conversation,
  getConversation,
  insertRecord,
  insertTurn,
  isTurnRunning,
  markTurnEnded,
  type NewRecord,
  parseCursor,
  recentEntries,
  runningTurns,
  turnRecords,
} from '../store/conversations.js';
import { ActiveTurn } from './active-turn.js';

const RUNNING = 'a reply is still running in this conversation';
/** How many earlier entries a runtime sees as context. */
const HISTORY_FOR_RUNTIME = 100;

/** The turns running in this process, by conversation id. */
export class TurnRegistry {
  private readonly running = new Map<string, ActiveTurn>();

  add(turn: ActiveTurn): void {
    this.running.set(turn.conversation.id, turn);
  }

  remove(turn: ActiveTurn): void {
    if (this.running.get(turn.conversation.id) === turn) this.running.delete(turn.conversation.id);
  }

  interrupt(conversationId: string): InterruptResult {
    const turn = this.running.get(conversationId);
    if (!turn) return { interrupted: false, reason: 'no reply is running' };
    turn.interrupt();
    return { interrupted: true, turnId: turn.turnId };
  }

  /** Ends every running turn with an error (the service is stopping), so no reader waits forever. */
  stopAll(): void {
    for (const turn of [...this.running.values()]) turn.end('error', 'the service stopped during this reply');
  }
}

/** A user's message as send and training send take it. */
export interface UserMessage {
  text: string;
  parts?: MessagePart[];
  metadata?: Record<string, unknown>;
  toolAction?: boolean;
  senderName?: string;
  senderAvatar?: string;
  /** Reaches the runtimes only; never stored. */
  mcpTokens?: Record<string, string>;
  baseUrl: string;
}

/**
 * Stores the user's message and a new running turn, then runs the agents in the background.
 * 409 when a turn is already running in the conversation.
 */
export function beginTurn(ctx: AppContext, conversation: Conversation, message: UserMessage): SendResult {
  if (isTurnRunning(ctx.db, conversation.id)) throw conflict(RUNNING);
  const raw: UserRawEvent = {
    type: 'user',
    message: { role: 'user', content: [{ type: 'text', text: message.text }] },
  };
  if (message.parts?.length) raw.parts = message.parts;
  if (message.metadata) raw.metadata = message.metadata;
  if (message.toolAction) raw.toolAction = true;
  if (message.senderName) raw.senderName = message.senderName;
  if (message.senderAvatar) raw.senderAvatar = message.senderAvatar;

  const { turnId, userRecord } = ctx.db.transaction(() => {
    const turnId = insertTurn(ctx.db, conversation.id);
    return {
      turnId,
      userRecord: insertRecord(ctx.db, conversation.id, { sender: 'user', event: 'message', raw, turnId }),
    };
  })();
  ctx.hub.publish(userRecord);

  const firstMessageIds = new Map(conversation.agentIds.map((agentId) => [agentId, randomId('m')]));
  const results = conversation.agentIds.map((agentId) => ({
    agentId,
    msgId: firstMessageIds.get(agentId)!,
    streamId: turnId,
  }));
  const turn = new ActiveTurn(ctx, conversation, turnId, firstMessageIds, () => ctx.turns.remove(turn));
  ctx.turns.add(turn);
  const history = recentEntries(ctx.db, conversation.id, parseCursor(userRecord.id)!, HISTORY_FOR_RUNTIME);
  // The reply runs after the send has been answered.
  setImmediate(() => {
    void turn.run({
      conversationId: conversation.id,
      turnId,
      userId: conversation.ownerId,
      text: message.text,
      parts: message.parts ?? [],
      metadata: message.metadata,
      toolAction: message.toolAction ?? false,
      senderName: message.senderName,
      mcpTokens: message.mcpTokens ?? {},
      history,
      baseUrl: message.baseUrl,
    });
  });
  return { conversationId: conversation.id, userMessage: userRecord, userEventId: userRecord.id, results };
}

/**
 * At start-up, ends the turns a previous process left running (it crashed or was killed mid-reply), so
 * a reader resuming such a turn gets its `result` instead of waiting forever.
 */
export function endAbandonedTurns(ctx: AppContext): void {
  ctx.db.transaction(() => {
    for (const turn of runningTurns(ctx.db)) {
      markTurnEnded(ctx.db, turn.id, 'error');
      for (const record of closingRecords(turnRecords(ctx.db, turn.id))) {
        insertRecord(ctx.db, turn.conversation_id, { ...record, turnId: turn.id });
      }
      insertRecord(ctx.db, turn.conversation_id, {
        sender: 'system',
        event: 'result',
        turnId: turn.id,
        raw: {
          type: 'result',
          subtype: 'error',
          is_error: true,
          duration_ms: Date.now() - Date.parse(turn.started_at),
          agentIds: getConversation(ctx.db, turn.conversation_id)?.agentIds ?? [],
          error: 'the service restarted during this reply',
        },
      });
    }
  })();
}

/**
 * What a turn cut short by a crash left open, closed as `ActiveTurn.end` closes it: each reply streamed
 * without its final `assistant` record gets one holding the text streamed so far (so `messages` and history
 * keep what the reader saw), and each agent not idle is set idle.
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
