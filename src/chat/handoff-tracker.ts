import { handoffStatusOf } from '../protocol/handoff.js';
import type { HandoffStatus } from '../protocol/handoff-types.js';
import type { ChatStreamRecord } from '../protocol/record-types.js';
import { compareRecordIds } from '../protocol/records.js';

/** Who answers the conversation shown, as the widget tells the visitor: a person's comings and goings. */
export interface ChatHandoff extends HandoffStatus {
  /** Why it is the agents' again: a person released or closed it, or nobody came in time. */
  ended?: 'released' | 'closed' | 'unanswered';
}

const AGENTS: ChatHandoff = Object.freeze({ state: 'agent', at: null });

/**
 * The handoff state of the conversation shown (docs/protocol.md "A person in the conversation"): the newest
 * record that changes it decides, whatever order records and history pages arrive in, so a reload shows what
 * the live stream showed.
 */
export class HandoffTracker {
  status: ChatHandoff = AGENTS;

  /** A record or a history page's `handoff`; true when it changed who answers. */
  see(record: ChatStreamRecord): boolean {
    const status = handoffStatusOf(record);
    if (!status) return false;
    const { raw } = record;
    const ended =
      raw.type === 'operator_left' ? raw.action : raw.type === 'handoff_unanswered' ? 'unanswered' : undefined;
    return this.adopt(ended ? { ...status, ended } : status);
  }

  /** `status` if it is newer than the one held (a history page says who holds it now, from its last such record). */
  adopt(status: ChatHandoff): boolean {
    const held = this.status.at;
    if (status.at === null || (held !== null && compareRecordIds(status.at, held) <= 0)) return false;
    this.status = status;
    return true;
  }
}
