import type {
  ChatStreamRecord,
  HandoffResult,
  HandoffStatus,
  HistoryResult,
  MessagePart,
  OperatorIdentity,
} from '@svc/agent-sdk/protocol';
import { clock } from '../store/clock.js';
import { lockConversation, type StoredConversation } from '../store/conversation-rows.js';
import type { Db } from '../store/db.js';
import {
  endHandoff,
  type HandoffRow,
  handoffOf,
  markHandoffRecord,
  missHandoff,
  openHandoff,
  takeHandoff,
  waitingHandoffs,
} from '../store/handoff-rows.js';
import { type HistoryPage, historyPage } from '../store/history-rows.js';
import { randomId } from '../store/ids.js';
import { cursorOf, parseCursor } from '../store/record-rows.js';
import { holdSendKey, priorSend, rememberSend, type SendKey } from '../store/send-result-rows.js';
import { workspaceById } from '../store/workspace-rows.js';
import { LIMITS } from './limits.js';
import { operatorIdentity } from './operators.js';
import type { AppendRecords, RecordLog } from './record-log.js';
import { Refusal } from './refusal.js';

/** The channel on which every instance hears which workspace's queue changed (the payload: its id). */
export const QUEUE_CHANNEL = 'svc_handoffs';

/**
 * What follows a handoff nobody took, inside the transaction that stored its `handoff_unanswered` record: returns
 * what to do once that has committed (turns/handoff-turn.ts starts the agent's turn that asks for contact details).
 */
export type FollowUnanswered = (
  tx: Db,
  handoff: HandoffRow,
  record: ChatStreamRecord,
) => Promise<(() => void) | undefined>;

/** Who asks for a person: the visitor, or an agent in its turn (with its id and the turn's). */
export type Asker =
  | { by: 'visitor'; reason?: string }
  | { by: 'agent'; reason?: string; agentId: string; turnId: string };

/** A person's message: its text and attachments. */
export interface PersonMessage {
  text: string;
  parts?: MessagePart[];
}

/** What a person's message answers: the conversation and the record stored (or, for a repeated key, the first). */
export interface PersonMessageResult {
  conversationId: string;
  message: ChatStreamRecord;
}

/** A time of `clock` as the store keeps times: ISO 8601. */
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * A person in the conversation (docs/protocol.md): who holds each conversation, and every change of it, each
 * stored as a record in the transaction that changes the state (store/handoff-rows.ts), so a reload, another tab or
 * another instance sees the same; every instance's queues hear of it (QUEUE_CHANNEL). A conversation waits for a
 * person until its workspace's deadline: a timer of the instance that stored the request, `armWaiting` at start-up
 * and `missDue` (the job instances sharing a database run) end it, whichever comes first, once. A timer whose end
 * failed (the database away) does not try again: on PostgreSQL every instance's `missDue` does, each second, until
 * one of them ends it; on SQLite the next start does.
 */
export class Handoffs {
  /** The deadline timer of each waiting conversation, by id. */
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly db: Db,
    private readonly records: RecordLog,
    private readonly log: (line: string) => void,
    /** How long a visitor waits for a person where the workspace sets nothing (`--handoff-wait`). */
    private readonly waitSeconds: number,
    private readonly followUnanswered: FollowUnanswered,
    /** Stops the conversation's running agent turn, on whichever instance (TurnRegistry.interrupt). */
    private readonly stopAgents: (conversationId: string) => Promise<unknown>,
  ) {}

  /** Who holds the conversation now (read through `db`: a transaction's or the service's). */
  async status(db: Db, conversationId: string): Promise<HandoffStatus> {
    const row = await handoffOf(db, conversationId);
    const at = row?.record_id ? cursorOf(row.record_id) : null;
    if (row?.state === 'waiting') return { state: 'waiting', at };
    if (row?.state === 'human' && row.operator_id) {
      const operator = await operatorIdentity(db, row.operator_id);
      return { state: 'human', ...(operator ? { operator } : {}), at };
    }
    return { state: 'agent', at };
  }

  /** A page of a chat's history and who holds the conversation now, as its visitor and its operators read it. */
  async historyPage(conversationId: string, page: HistoryPage): Promise<HistoryResult> {
    const entries = await historyPage(this.db, conversationId, page);
    return { ...entries, handoff: await this.status(this.db, conversationId) };
  }

  /** The handoff that keeps a conversation from its agents (waiting for a person, or held by one), if any. */
  async holding(tx: Db, conversationId: string): Promise<HandoffRow | undefined> {
    const row = await handoffOf(tx, conversationId);
    return row?.state === 'waiting' || row?.state === 'human' ? row : undefined;
  }

  /** Whether the workspace's staff take conversations over. */
  async enabled(db: Db, workspaceId: string): Promise<boolean> {
    return !!(await workspaceById(db, workspaceId))?.operators;
  }

  /**
   * Asks for a person, inside a `RecordLog.write`: stores `handoff_requested` and arms the deadline. Nothing changes
   * (undefined) when a person is asked for or holds the conversation already, or the workspace has no operators.
   */
  async ask(
    append: AppendRecords,
    tx: Db,
    conversation: StoredConversation,
    asker: Asker,
  ): Promise<ChatStreamRecord | undefined> {
    const workspace = await workspaceById(tx, conversation.workspaceId);
    if (!workspace?.operators) return undefined;
    const deadline = iso(clock.now() + (workspace.handoff_wait_seconds ?? this.waitSeconds) * 1000);
    const agentId = asker.by === 'agent' ? asker.agentId : null;
    const reason = asker.reason || undefined;
    const row = await openHandoff(tx, {
      conversation_id: conversation.id,
      workspace_id: conversation.workspaceId,
      requested_by: asker.by,
      reason: reason ?? null,
      agent_id: agentId,
      deadline,
    });
    if (!row) return undefined;
    const [record] = await append(conversation.id, {
      sender: 'system',
      event: 'handoff',
      raw: { type: 'handoff_requested', by: asker.by, ...(reason ? { reason } : {}), ...(agentId ? { agentId } : {}) },
      ...(asker.by === 'agent' ? { turnId: asker.turnId } : {}),
    });
    await this.changed(tx, row, record);
    this.arm(conversation.id, deadline);
    return record;
  }

  /** The visitor asks for a person (`operators_off` where the workspace has none); asking again changes nothing. */
  request(conversation: StoredConversation, reason?: string): Promise<HandoffResult> {
    return this.lockedWrite(conversation.id, undefined, async (append, tx) => {
      if (!(await this.enabled(tx, conversation.workspaceId))) throw new Refusal('operators_off');
      await this.ask(append, tx, conversation, { by: 'visitor', reason });
      return { conversationId: conversation.id, ...(await this.status(tx, conversation.id)) };
    });
  }

  /**
   * `operator` takes a waiting conversation, exactly once: of two operators at once (on any instances), one holds
   * it and the other is refused (`already_taken`); its holder taking it again is answered as before. An agent's
   * reply still running stops (`interrupted`) before the take answers: the agents say nothing while a person holds
   * the conversation, and the visitor can write to the person at once (a running reply refuses sends).
   */
  async take(operator: OperatorIdentity, conversation: StoredConversation): Promise<HandoffResult> {
    const taken = await this.lockedWrite(conversation.id, undefined, async (append, tx): Promise<HandoffResult> => {
      const row = await takeHandoff(tx, conversation.id, operator.id);
      if (!row) {
        const now = await handoffOf(tx, conversation.id);
        if (now?.state === 'human' && now.operator_id === operator.id) {
          return { conversationId: conversation.id, ...(await this.status(tx, conversation.id)) };
        }
        throw new Refusal(now?.state === 'human' ? 'already_taken' : 'not_waiting');
      }
      const [record] = await append(conversation.id, {
        sender: 'system',
        event: 'handoff',
        raw: { type: 'operator_joined', operator },
      });
      await this.changed(tx, row, record);
      this.disarm(conversation.id);
      return { conversationId: conversation.id, state: 'human', operator, at: record.id };
    });
    await this.stopAgents(conversation.id);
    return taken;
  }

  /** The holder gives the conversation back to its agents (`released`) or closes it (`closed`); else `not_holder`. */
  leave(
    operator: OperatorIdentity,
    conversation: StoredConversation,
    action: 'released' | 'closed',
  ): Promise<HandoffResult> {
    return this.lockedWrite(conversation.id, undefined, async (append, tx) => {
      const row = await endHandoff(tx, conversation.id, operator.id, action);
      if (!row) throw new Refusal('not_holder');
      const [record] = await append(conversation.id, {
        sender: 'system',
        event: 'handoff',
        raw: { type: 'operator_left', operator, action },
      });
      await this.changed(tx, row, record);
      return { conversationId: conversation.id, state: 'agent', at: record.id };
    });
  }

  /**
   * The holder's message to the visitor, stored as a person's (`operator_message`); anyone else is `not_holder`.
   * With `once` (its `Idempotency-Key`), a repeat answers the first result and stores nothing, as a send does.
   */
  say(
    operator: OperatorIdentity,
    conversation: StoredConversation,
    message: PersonMessage,
    once?: SendKey,
  ): Promise<PersonMessageResult> {
    // The key before the conversation, in the order a send takes them (beginTurn).
    return this.lockedWrite(conversation.id, once, async (append, tx) => {
      const now = clock.now();
      const prior = once && (await priorSend(tx, once, now - LIMITS.idempotencyMs));
      if (prior === 'reused') throw new Refusal('send_key_reused');
      if (prior) return JSON.parse(prior.result) as PersonMessageResult;
      const row = await this.holding(tx, conversation.id);
      if (row?.state !== 'human' || row.operator_id !== operator.id) throw new Refusal('not_holder');
      const [stored] = await append(conversation.id, {
        sender: 'system',
        event: 'message',
        raw: {
          type: 'operator_message',
          operator,
          message: { id: randomId('m'), content: [{ type: 'text', text: message.text }] },
          ...(message.parts?.length ? { parts: message.parts } : {}),
        },
      });
      await this.touched(tx, conversation.workspaceId);
      const result: PersonMessageResult = { conversationId: conversation.id, message: stored };
      if (once) await rememberSend(tx, once, JSON.stringify(result), now);
      return result;
    });
  }

  /** Tells every instance's queues of the workspace that something they show changed (a message came in). */
  touched(tx: Db, workspaceId: string): Promise<void> {
    return tx.notify(QUEUE_CHANNEL, workspaceId);
  }

  /**
   * The visitor answered a card: after nobody came it is the contact card, whose details the queues show with the
   * missed conversation, so they hear of it.
   */
  async cardAnswered(tx: Db, conversation: StoredConversation): Promise<void> {
    if ((await handoffOf(tx, conversation.id))?.state === 'missed') await this.touched(tx, conversation.workspaceId);
  }

  /**
   * The conversation is being deleted (inside its transaction, before its rows go): its wait, if any, ends with it,
   * and the queues that list it hear of it.
   */
  async deleting(tx: Db, conversation: StoredConversation): Promise<void> {
    if (!(await handoffOf(tx, conversation.id))) return;
    this.disarm(conversation.id);
    await this.touched(tx, conversation.workspaceId);
  }

  /** Arms the deadline of every waiting conversation (at start-up, beside the recovery of turns). */
  async armWaiting(): Promise<void> {
    for (const waiting of await waitingHandoffs(this.db)) this.arm(waiting.conversation_id, waiting.deadline);
  }

  /** Ends every wait past its deadline (the job instances sharing a database run). */
  async missDue(): Promise<void> {
    for (const due of await waitingHandoffs(this.db, iso(clock.now()))) await this.miss(due.conversation_id);
  }

  /** Clears every timer (the service is stopping, or a test plays a lost timer). */
  stopTimers(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  /**
   * What a wait's timer runs at its deadline: ends the wait, or arms again when the timer fired a moment before the
   * clock reached the deadline. Nothing when the conversation was deleted meanwhile (on any instance).
   */
  async expire(conversationId: string): Promise<void> {
    if (!(await this.miss(conversationId))) return;
    const row = await handoffOf(this.db, conversationId);
    if (row?.state === 'waiting') this.arm(conversationId, row.deadline);
  }

  /** A deadline is a day away at most (`wait_seconds`): well within what a timer holds. */
  private arm(conversationId: string, deadline: string): void {
    this.disarm(conversationId);
    const timer = setTimeout(
      () => {
        this.timers.delete(conversationId);
        this.expire(conversationId).catch((err: Error) =>
          this.log(
            `handoff of ${conversationId}: its end failed, left to the recovery job or the next start: ${err.message}`,
          ),
        );
      },
      Math.max(0, Date.parse(deadline) - clock.now()),
    );
    timer.unref();
    this.timers.set(conversationId, timer);
  }

  private disarm(conversationId: string): void {
    clearTimeout(this.timers.get(conversationId));
    this.timers.delete(conversationId);
  }

  /**
   * Nobody took the conversation by its deadline: it is its agents' again (`handoff_unanswered`), and what
   * `followUnanswered` stores beside it (the agent's turn) starts once that has committed. Only the write that
   * ends the wait gets there, on whichever instance. False when this instance did not try: the others do not take it
   * for alive (its own connection is down), and the agent's turn it stored would end at once (TurnRegistry.add), so
   * it leaves the wait to an instance that is alive, or to itself once it is back (`missDue`).
   */
  private async miss(conversationId: string): Promise<boolean> {
    if (!this.db.liveness.alive) return false;
    const then = await this.records.write(async (append, tx) => {
      // Deleted meanwhile, on any instance: its wait went with it.
      if (!(await lockConversation(tx, conversationId))) return undefined;
      const row = await missHandoff(tx, conversationId, iso(clock.now()));
      if (!row) return undefined;
      const waitedSeconds = Math.round((Date.parse(row.deadline) - Date.parse(row.requested_at)) / 1000);
      const [record] = await append(conversationId, {
        sender: 'system',
        event: 'handoff',
        raw: { type: 'handoff_unanswered', waitedSeconds },
      });
      await this.changed(tx, row, record);
      return this.followUnanswered(tx, row, record);
    });
    this.disarm(conversationId);
    then?.();
    return true;
  }

  /**
   * A write of the conversation's handoff and records under the conversation's lock (lockConversation), taken
   * first as every writer of its records does, after a send's key when there is one; `conversation_gone` once deleted.
   */
  private lockedWrite<T>(
    conversationId: string,
    once: SendKey | undefined,
    write: (append: AppendRecords, tx: Db) => Promise<T>,
  ): Promise<T> {
    return this.records.write(async (append, tx) => {
      if (once) await holdSendKey(tx, once);
      if (!(await lockConversation(tx, conversationId))) throw new Refusal('conversation_gone');
      return write(append, tx);
    });
  }

  /** Notes the record that said the new state, and tells the queues. */
  private async changed(tx: Db, row: HandoffRow, record: ChatStreamRecord): Promise<void> {
    await markHandoffRecord(tx, row.conversation_id, parseCursor(record.id)!);
    await this.touched(tx, row.workspace_id);
  }
}
