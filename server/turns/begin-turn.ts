import type {
  ChatStreamRecord,
  ClientToolDeclaration,
  MessagePart,
  ResultRawEvent,
  SendResult,
  UserRawEvent,
} from '@svc/agent-sdk/protocol';
import { readClientToolAnswer } from '@svc/agent-sdk/protocol';
import { answerClientToolCall, dropClientToolCalls } from '../services/client-tool-calls.js';
import type { AppContext } from '../services/context.js';
import { LIMITS } from '../services/limits.js';
import type { AppendRecords } from '../services/record-log.js';
import { Refusal } from '../services/refusal.js';
import { clock } from '../store/clock.js';
import { getConversation, lockConversation, type StoredConversation } from '../store/conversation-rows.js';
import { DatabaseUnavailable, type Db } from '../store/db.js';
import { recentEntries } from '../store/history-rows.js';
import { randomId } from '../store/ids.js';
import type { PaymentOrder } from '../store/payment-order-rows.js';
import { conversationBytes } from '../store/record-rows.js';
import { holdSendKey, priorSend, rememberSend, type SendKey } from '../store/send-result-rows.js';
import { insertTurn, insertTurnIfIdle, isTurnRunning } from '../store/turn-rows.js';
import { ActiveTurn, type TurnMessage } from './active-turn.js';
import { endTurnSurely } from './end-turn.js';
import { LOST_LIVENESS } from './registry.js';

/** How many earlier entries a runtime sees as context. */
export const HISTORY_FOR_RUNTIME = 100;

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
  /** The page's tools for this turn: reach the runtimes only. */
  clientTools?: ClientToolDeclaration[];
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
 * to a full conversation (`conversation_full`), to a draining instance (`draining`: the client sends it
 * again, reaching another), and an answer to a page tool call that waits for none (`client_tool_not_pending`).
 * While a person is asked for or holds the conversation, the message is stored for them and no agent answers
 * (keepForPerson); asking again in place of a turn is refused then (`person_holds`).
 */
export async function beginTurn(
  ctx: AppContext,
  target: (tx: Db) => Promise<StoredConversation>,
  message: UserMessage,
  once?: SendKey,
): Promise<SendResult> {
  ctx.drain.refuseWork();
  const raw = userEvent(message);
  const answer = readClientToolAnswer(raw);
  const rawBytes = Buffer.byteLength(JSON.stringify(raw));
  const turnId = randomId('t');

  /** `replay`: an answer that starts no turn (a repeated key, or a message to a person). */
  type Begun = { replay: SendResult } | { result: SendResult; turn: ActiveTurn; instanceId: string };
  const begun = await ctx.records
    .write(async (append, tx): Promise<Begun> => {
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
      const held = await ctx.handoffs.holding(tx, conversation.id);
      if (held) {
        // A person is asked for or answers: the message is theirs, and no agent replies (docs/protocol.md).
        if (message.replaces) throw new Refusal('person_holds');
        const result = await keepForPerson(append, conversation.id, raw, turnId);
        await ctx.handoffs.touched(tx, held.workspace_id);
        if (once) await rememberSend(tx, once, JSON.stringify(result), now);
        return { replay: result };
      }
      if (raw.toolAction) await ctx.handoffs.cardAnswered(tx, conversation);
      // A question asked again drops the calls its old reply made; its answer (a regenerated one) answers again.
      if (message.replaces) await dropClientToolCalls(tx, conversation.id, message.replaces);
      else if (answer) await answerClientToolCall(tx, conversation.id, answer.toolUseId);
      await insertTurn(tx, conversation.id, turnId);
      const [userRecord] = await append(conversation.id, { sender: 'user', event: 'message', raw, turnId });
      const firstMessageIds = new Map(conversation.agentIds.map((agentId) => [agentId, randomId('m')]));
      const result: SendResult = {
        conversationId: conversation.id,
        userMessage: userRecord!,
        userEventId: userRecord!.id,
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
    })
    .catch((err: unknown) => {
      // The database went away during the transaction, perhaps after it committed: a turn stored so would run
      // nowhere and refuse every next send (409). It ends as a reply the database cut off (nothing, if it was not
      // stored) once the database answers; the client's retry under its Idempotency-Key then finds its result.
      if (err instanceof DatabaseUnavailable) void endTurnSurely(ctx, { id: turnId }, 'error', LOST_LIVENESS);
      throw err;
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
    clientTools: message.clientTools ?? [],
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
  if (!conversation?.agentIds.includes(order.agentId)) return undefined;
  return agentTurnAfter(ctx, tx, conversation, order.agentId, resolution, {
    baseUrl,
    payment: { orderId: order.id, status: order.status },
  });
}

/**
 * An agent's turn after a system record (a payment's resolution, a handoff nobody took), stored in the transaction
 * that stored `record` (`tx`): only `agentId` speaks, with no user message, given the history up to `record`. None
 * while this instance drains or when a turn is running. Returns what starts the turn once `tx` has committed.
 */
export async function agentTurnAfter(
  ctx: AppContext,
  tx: Db,
  conversation: StoredConversation,
  agentId: string,
  record: ChatStreamRecord,
  why: Pick<TurnMessage, 'baseUrl' | 'payment' | 'unanswered'>,
): Promise<(() => void) | undefined> {
  const turnId = randomId('t');
  if (ctx.drain.draining || !(await insertTurnIfIdle(tx, conversation.id, turnId))) return undefined;
  const turn = new ActiveTurn(
    ctx,
    { ...conversation, agentIds: [agentId] },
    turnId,
    new Map([[agentId, randomId('m')]]),
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
      // The page's tools come with a visitor's send; this turn answers none.
      clientTools: [],
      history: [
        ...withoutReplaced(await recentEntries(ctx.db, conversation.id, record.id, HISTORY_FOR_RUNTIME - 1)),
        record,
      ],
      ...why,
    }));
}

/** Registers a stored turn as running on this instance and runs it after the request that began it is answered. */
export function startTurn(
  ctx: AppContext,
  turn: ActiveTurn,
  instanceId: string,
  read: () => Promise<TurnMessage>,
): void {
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

/**
 * A message while a person is asked for or holds the conversation: stored with a `result` that names no agent in
 * the same transaction, so that every client waiting for the end of its turn hears it at once, and nothing answers.
 */
async function keepForPerson(
  append: AppendRecords,
  conversationId: string,
  raw: UserRawEvent,
  turnId: string,
): Promise<SendResult> {
  const result: ResultRawEvent = {
    type: 'result',
    subtype: 'success',
    is_error: false,
    duration_ms: 0,
    agentIds: [],
  };
  const [userRecord] = await append(
    conversationId,
    { sender: 'user', event: 'message', raw, turnId },
    { sender: 'system', event: 'result', raw: result, turnId },
  );
  return {
    conversationId,
    userMessage: userRecord!,
    userEventId: userRecord!.id,
    results: [],
  };
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
