import type { MessagePart, SendResult, UserRawEvent } from '../../src/client/types.js';
import type { AppContext } from '../context.js';
import { conflict } from '../errors.js';
import { randomId } from '../ids.js';
import type { StoredConversation } from '../store/conversations.js';
import { recentEntries } from '../store/records.js';
import { insertTurn, isTurnRunning } from '../store/turns.js';
import { ActiveTurn } from './active-turn.js';

const RUNNING = 'a reply is still running in this conversation';
/** How many earlier entries a runtime sees as context. */
const HISTORY_FOR_RUNTIME = 100;

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
export function beginTurn(ctx: AppContext, conversation: StoredConversation, message: UserMessage): SendResult {
  const raw: UserRawEvent = {
    type: 'user',
    message: { role: 'user', content: [{ type: 'text', text: message.text }] },
  };
  if (message.parts?.length) raw.parts = message.parts;
  if (message.metadata) raw.metadata = message.metadata;
  if (message.toolAction) raw.toolAction = true;
  if (message.senderName) raw.senderName = message.senderName;
  if (message.senderAvatar) raw.senderAvatar = message.senderAvatar;

  const { turnId, userRecord } = ctx.records.write((append) => {
    if (isTurnRunning(ctx.db, conversation.id)) throw conflict(RUNNING);
    const turnId = insertTurn(ctx.db, conversation.id).id;
    return { turnId, userRecord: append(conversation.id, { sender: 'user', event: 'message', raw, turnId }) };
  });

  const firstMessageIds = new Map(conversation.agentIds.map((agentId) => [agentId, randomId('m')]));
  const results = conversation.agentIds.map((agentId) => ({
    agentId,
    msgId: firstMessageIds.get(agentId)!,
    streamId: turnId,
  }));
  const turn = new ActiveTurn(ctx, conversation, turnId, firstMessageIds);
  ctx.turns.add(turn);
  const history = recentEntries(ctx.db, conversation.id, userRecord.id, HISTORY_FOR_RUNTIME);
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
