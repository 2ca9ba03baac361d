/**
 * A person in the conversation (our extension, docs/protocol.md): who holds a conversation, its records, an
 * operator's session, the queue.
 */
import type { MessagePart } from './conversation-types.js';
import type { TextBlock } from './record-types.js';

/**
 * Who answers a conversation: its agents (`agent`), nobody yet while a person of the site's staff is asked for
 * (`waiting`), or one such person (`human`). The records say each change, in order.
 */
export type HandoffState = 'agent' | 'waiting' | 'human';

/** A person of the site's staff (an operator), as records and the queue name them. */
export interface OperatorIdentity {
  id: string;
  name: string;
  avatarUrl?: string;
}

/** A person was asked for: by the agent (its reserved tool `handoff`) or by the visitor. Sender `system`. */
export interface HandoffRequestedRawEvent {
  type: 'handoff_requested';
  by: 'agent' | 'visitor';
  reason?: string;
  /** The agent that asked (with `by: 'agent'`). */
  agentId?: string;
}

/** A person took the conversation: the agents stop answering. */
export interface OperatorJoinedRawEvent {
  type: 'operator_joined';
  operator: OperatorIdentity;
}

/** A person's message, marked as theirs (sender `system`: no agent wrote it). */
export interface OperatorMessageRawEvent {
  type: 'operator_message';
  operator: OperatorIdentity;
  message: { id: string; content: TextBlock[] };
  parts?: MessagePart[];
}

/** The person left: gave the conversation back to the agents (`released`) or closed it (`closed`). */
export interface OperatorLeftRawEvent {
  type: 'operator_left';
  operator: OperatorIdentity;
  action: 'released' | 'closed';
}

/** Nobody took the conversation in time: it is the agents' again, and one of them asks for contact details. */
export interface HandoffUnansweredRawEvent {
  type: 'handoff_unanswered';
  waitedSeconds: number;
}

/** Who holds a conversation, and the record that said so (null: never handed to a person). */
export interface HandoffStatus {
  state: HandoffState;
  /** The person who holds it: only in `human` (and not even then once that operator is gone). */
  operator?: OperatorIdentity;
  at: string | null;
}

/** The body of `POST /conversations/{id}/handoff`: the visitor asks for a person. */
export interface HandoffRequest {
  /** Why, in the visitor's words (at most 500 characters). */
  reason?: string;
}

/** What `POST /conversations/{id}/handoff` and the operators' take, release and close answer. */
export interface HandoffResult extends HandoffStatus {
  conversationId: string;
}

/** The body of `POST /workspaces/{slug}/operators/sessions`: the site's backend signs a person of its staff in. */
export interface MintOperatorSessionRequest {
  /** The site's own reference for the person: the same reference is the same operator. */
  operator_ref: string;
  /** Shown to visitors beside the person's messages. */
  display_name: string;
  avatar_url?: string;
  /** Default 3600, at most 86400. */
  ttl_seconds?: number;
}

/** An operator's session token (`ot_…`): for the operators' routes only. */
export interface OperatorSession {
  token: string;
  operator_id: string;
  expires_at: string;
}

/** One message of a queue entry, as the inbox previews it. */
export interface QueueMessage {
  from: 'visitor' | 'agent' | 'operator';
  /** The agent's or the person's name. */
  name?: string;
  text: string;
}

/** A conversation handed to the staff, as an operator's queue lists it. */
export interface QueueEntry {
  conversationId: string;
  /** `missed`: nobody took it in time, and it went back to its agents. */
  state: 'waiting' | 'human' | 'missed';
  requestedAt: string;
  requestedBy: 'agent' | 'visitor';
  reason: string | null;
  visitor: { userId: string; name: string | null };
  /** Who holds it (`human`). */
  operator: OperatorIdentity | null;
  /** Its newest messages (at most 3), oldest first. */
  lastMessages: QueueMessage[];
  /** What the visitor left in the contact card after nobody came (`missed`), or null. */
  contact: Record<string, unknown> | null;
}

/**
 * An operator's view of the workspace (`GET /operators/queue`, and each event of its stream): the conversations
 * waiting for a person (newest request first), those this operator holds, and the latest missed ones.
 */
export interface OperatorQueue {
  waiting: QueueEntry[];
  mine: QueueEntry[];
  missed: QueueEntry[];
}

/** The body of `POST /operators/conversations/{id}/messages`. */
export interface OperatorMessageRequest {
  message: string;
  parts?: MessagePart[];
}
