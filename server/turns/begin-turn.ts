import type { ChatStreamRecord, MessagePart, SendResult, UserRawEvent } from '@svc/agent-sdk/protocol';
import type { AppContext } from '../services/context.js';
import { LIMITS } from '../services/limits.js';
import { Refusal } from '../services/refusal.js';
import { clock } from '../store/clock.js';
import { getConversation, lockConversation, type StoredConversation } from '../store/conversation-rows.js';
import type { Db } from '../store/db.js';
import { recentEntries } from '../store/history-rows.js';
import { randomId } from '../store/ids.js';
import type { PaymentOrder } from '../store/payment-order-rows.js';
import { conversationBytes } from '../store/record-rows.js';
import { holdSendKey, priorSend, rememberSend, type SendKey } from '../store/send-result-rows.js';
import { insertTurn, insertTurnIfIdle, isTurnRunning } from '../store/turn-rows.js';
import { ActiveTurn, type TurnMessage } from './active-turn.js';

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
  /** The turn this message asks again in place of (regenerate, edit): see replace-turn.ts. */
  replaces?: string;
}

/**
 * Stores the user's message and a new running turn in one transaction, then runs the agents in the
 * background. Whatever can fail before the reply runs does so before the commit: the record is built and
 * sized before the transaction, the conversation (`target`, which may create it) is resolved inside it, and
 * after it the turn is only started (whatever fails from then on, reading its history included, ends it
 * with an error `result`). So a send is either refused with nothing stored, or stored with its turn running.
 *
 * With `once` (a send's `Idempotency-Key`), a repeat of the key answers the first result again instead, and a
 * repeat with another request is refused (`send_key_reused`); so is a send while a turn runs (`reply_running`),
 * to a full conversation (`conversation_full`), and to a draining instance (`draining`: the client sends it
 * again, reaching another).
 */
export async function beginTurn(
  ctx: AppContext,
  target: (tx: Db) => Promise<StoredConversation>,
  message: UserMessage,
  once?: SendKey,
): Promise<SendResult> {
  ctx.drain.refuseWork();
  const raw = userEvent(message);
  const rawBytes = Buffer.byteLength(JSON.stringify(raw));
  const turnId = randomId('t');

  type Begun = { replay: SendResult } | { result: SendResult; turn: ActiveTurn; instanceId: string };
  const begun = await ctx.records.write(async (append, tx): Promise<Begun> => {
    const now = clock.now();
    if (once) await holdSendKey(tx, once);
    const prior = once && (await priorSend(tx, once, now - LIMITS.idempotencyMs));
    if (prior === 'reused') throw new Refusal('send_key_reused');
    if (prior) return { replay: JSON.parse(prior.result) as SendResult };
    const conversation = await target(tx);
    // Checked and stored under the conversation's lock: a send racing it on any instance waits, then finds its turn.
    if (!(await lockConversation(tx, conversation.id))) throw new Refusal('conversation_gone');
    if ((await conversationBytes(tx, conversation.id)) + rawBytes > LIMITS.conversationBytes) {
      throw new Refusal('conversation_full');
    }
    if (await isTurnRunning(tx, conversation.id)) throw new Refusal('reply_running');
    await insertTurn(tx, conversation.id, turnId);
    const userRecord = (await append(conversation.id, { sender: 'user', event: 'message', raw, turnId }))[0]!;
    const firstMessageIds = new Map(conversation.agentIds.map((agentId) => [agentId, randomId('m')]));
    const result: SendResult = {
      conversationId: conversation.id,
      userMessage: userRecord,
      userEventId: userRecord.id,
      results: conversation.agentIds.map((agentId) => ({
        agentId,
        msgId: firstMessageIds.get(agentId)!,
        streamId: turnId,
      })),
    };
    if (once) await rememberSend(tx, once, JSON.stringify(result), now);
    return {
      result,
      turn: new ActiveTurn(ctx, conversation, turnId, firstMessageIds),
      // The instance the turn is stored as running on (`turns.add` checks it is still this one).
      instanceId: tx.instanceId,
    };
  });
  if ('replay' in begun) return begun.replay;

  const { result, turn } = begun;
  const { conversationId, userEventId } = result;
  startTurn(ctx, turn, begun.instanceId, async () => ({
    conversationId,
    turnId,
    userId: turn.conversation.ownerId,
    text: message.text,
    parts: message.parts ?? [],
    metadata: message.metadata,
    toolAction: message.toolAction ?? false,
    senderName: message.senderName,
    mcpTokens: message.mcpTokens ?? {},
    history: withoutReplaced(
      await recentEntries(ctx.db, conversationId, userEventId!, HISTORY_FOR_RUNTIME),
      message.replaces,
    ),
    baseUrl: message.baseUrl,
  }));
  return result;
}

/**
 * The turn that follows a payment (docs/server.md "After a payment"): once the visitor has paid or canceled an
 * order, the agent that asked for it speaks again, given the history up to the order's resolution. It is
 * stored inside the transaction that settles the order (`tx`, which stored `resolution`), and only the write
 * that settles an order gets here: so at most one turn per order, whichever instance or retried click settled
 * it. None when a turn is running (the next turn's history carries the status), while this instance drains, or
 * when the agent left the conversation. Returns what starts the turn once the transaction has committed.
 */
export async function followPayment(
  ctx: AppContext,
  tx: Db,
  order: PaymentOrder,
  resolution: ChatStreamRecord,
  baseUrl: string,
): Promise<(() => void) | undefined> {
  const conversation = await getConversation(tx, order.conversationId);
  if (ctx.drain.draining || !conversation?.agentIds.includes(order.agentId)) return undefined;
  const turnId = randomId('t');
  if (!(await insertTurnIfIdle(tx, conversation.id, turnId))) return undefined;
  // Only the agent that asked for the payment speaks in this turn.
  const turn = new ActiveTurn(
    ctx,
    { ...conversation, agentIds: [order.agentId] },
    turnId,
    new Map([[order.agentId, randomId('m')]]),
  );
  const { instanceId } = tx;
  return () =>
    startTurn(ctx, turn, instanceId, async () => ({
      conversationId: conversation.id,
      turnId,
      userId: conversation.ownerId,
      text: '',
      parts: [],
      toolAction: false,
      mcpTokens: {},
      history: [
        ...withoutReplaced(await recentEntries(ctx.db, conversation.id, resolution.id, HISTORY_FOR_RUNTIME - 1)),
        resolution,
      ],
      baseUrl,
      payment: { orderId: order.id, status: order.status },
    }));
}

/** Registers a stored turn as running on this instance and runs it after the request that began it is answered. */
function startTurn(ctx: AppContext, turn: ActiveTurn, instanceId: string, read: () => Promise<TurnMessage>): void {
  ctx.turns.add(turn, instanceId);
  setImmediate(() => {
    void turn.run(read);
  });
}

/**
 * The history a runtime is given, without the turns a later message (or this one, `replacing`) asked again in
 * place of: a regenerated reply and an edited question are not what the conversation says any more.
 */
export function withoutReplaced(history: ChatStreamRecord[], replacing?: string): ChatStreamRecord[] {
  const replaced = new Set<string>(replacing ? [replacing] : []);
  for (const record of history) {
    if (record.raw.type === 'user' && record.raw.replaces) replaced.add(record.raw.replaces);
  }
  if (!replaced.size) return history;
  return history.filter((record) => !record.turnId || !replaced.has(record.turnId));
}

/** The `user` raw event of a message: only the fields it has. */
function userEvent(message: UserMessage): UserRawEvent {
  const raw: UserRawEvent = {
    type: 'user',
    message: { role: 'user', content: [{ type: 'text', text: message.text }] },
  };
  if (message.parts?.length) raw.parts = message.parts;
  if (message.metadata) raw.metadata = message.metadata;
  if (message.toolAction) raw.toolAction = true;
  if (message.senderName) raw.senderName = message.senderName;
  if (message.senderAvatar) raw.senderAvatar = message.senderAvatar;
  if (message.replaces) raw.replaces = message.replaces;
  return raw;
}
