import type { OperatorQueue, QueueEntry, QueueMessage } from '@svc/agent-sdk/protocol';
import { extractOperatorMessage, extractText, readCardAnswer } from '@svc/agent-sdk/protocol';
import type { Db } from '../store/db.js';
import type { HandoffRowState } from '../store/handoff-rows.js';
import { type QueueRow, queueRows, userRecordsAfter } from '../store/queue-rows.js';
import { messageRecords, shortened } from '../store/record-rows.js';
import { QUEUE_CHANNEL } from './handoffs.js';
import { operatorOf } from './operators.js';

/** How many conversations each list of a queue holds at most, and how many messages each entry previews. */
export const QUEUE_LIMITS = { waiting: 50, mine: 50, missed: 20, messages: 3 } as const;

/** What a previewed message shows of its text, at most (characters). */
const PREVIEW_CHARACTERS = 200;

/** The visitor's messages searched for the contact card's answer after a missed handoff. */
const CONTACT_SEARCH = 20;

/**
 * An operator's queue (docs/protocol.md "A person in the conversation"): what `GET /operators/queue` answers, and
 * the workspaces whose queues changed, heard from every instance (QUEUE_CHANNEL, services/handoffs.ts) by the queue
 * streams open on this one. A change is only a wake-up: each stream reads the queue again, so a lost or repeated
 * notification changes nothing.
 */
export class OperatorQueues {
  private readonly watchers = new Map<string, Set<() => void>>();
  private stopListening: (() => Promise<void>) | undefined;

  constructor(private readonly db: Db) {}

  /** Starts hearing changes; once this instance is back after its connection dropped, every queue is read again. */
  async listen(): Promise<void> {
    this.stopListening = await this.db.listen(QUEUE_CHANNEL, (workspaceId) => this.wake(workspaceId));
    this.db.liveness.watch({ back: () => this.wakeAll() });
  }

  /** Calls `changed` whenever the workspace's queue may have changed; returns what stops it. */
  watch(workspaceId: string, changed: () => void): () => void {
    let set = this.watchers.get(workspaceId);
    if (!set) {
      set = new Set();
      this.watchers.set(workspaceId, set);
    }
    set.add(changed);
    return () => {
      set.delete(changed);
      if (!set.size) this.watchers.delete(workspaceId);
    };
  }

  /** The queue as `operatorId` sees it: the workspace's waiting and missed conversations, and those it holds. */
  async read(workspaceId: string, operatorId: string): Promise<OperatorQueue> {
    const list = async (state: HandoffRowState, limit: number, only?: string) =>
      Promise.all((await queueRows(this.db, workspaceId, state, limit, only)).map((row) => this.entryOf(row)));
    const [waiting, mine, missed] = await Promise.all([
      list('waiting', QUEUE_LIMITS.waiting),
      list('human', QUEUE_LIMITS.mine, operatorId),
      list('missed', QUEUE_LIMITS.missed),
    ]);
    return { waiting, mine, missed };
  }

  /** Stops hearing changes (the service is stopping). */
  async close(): Promise<void> {
    await this.stopListening?.();
  }

  private wake(workspaceId: string): void {
    for (const changed of this.watchers.get(workspaceId) ?? []) changed();
  }

  private wakeAll(): void {
    for (const workspaceId of this.watchers.keys()) this.wake(workspaceId);
  }

  private async entryOf(row: QueueRow): Promise<QueueEntry> {
    const newest = await messageRecords(this.db, row.conversation_id, 'newest', QUEUE_LIMITS.messages * 2);
    const lastMessages = newest
      .flatMap((record): QueueMessage[] => {
        const person = extractOperatorMessage(record);
        const text = shortened(person?.text ?? extractText(record), PREVIEW_CHARACTERS);
        if (!text || (record.raw.type === 'user' && record.raw.toolAction)) return [];
        if (person) return [{ from: 'operator', name: person.operator.name, text }];
        return record.sender === 'user'
          ? [{ from: 'visitor', text }]
          : [{ from: 'agent', ...(record.agentName ? { name: record.agentName } : {}), text }];
      })
      .slice(0, QUEUE_LIMITS.messages)
      .reverse();
    return {
      conversationId: row.conversation_id,
      state: row.state === 'missed' ? 'missed' : row.state === 'human' ? 'human' : 'waiting',
      requestedAt: row.requested_at,
      requestedBy: row.requested_by,
      reason: row.reason,
      visitor: { userId: row.owner_id, name: row.visitor_name },
      operator:
        row.operator_id && row.operator_name
          ? operatorOf(row.operator_id, row.operator_name, row.operator_avatar)
          : null,
      lastMessages,
      contact: row.state === 'missed' ? await this.contactOf(row) : null,
    };
  }

  /** What the visitor left in the contact card after the missed handoff: the newest card answer since. */
  private async contactOf(row: QueueRow): Promise<Record<string, unknown> | null> {
    for (const raw of await userRecordsAfter(this.db, row.conversation_id, row.record_id, CONTACT_SEARCH)) {
      const answer = raw.type === 'user' && raw.toolAction ? readCardAnswer(raw, '') : undefined;
      if (answer?.kind === 'infoCollect' && answer.action === 'submit') return answer.values ?? {};
    }
    return null;
  }
}
