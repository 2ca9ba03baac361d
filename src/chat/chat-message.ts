import type { InfoCollectAnswer } from '../protocol/card-answers.js';
import type { MessagePart, SendRequest } from '../protocol/conversation-types.js';
import type { OperatorIdentity } from '../protocol/handoff-types.js';
import type {
  ConnectorSetupRequest,
  ContentBlock,
  Delegation,
  FileAttachment,
  InfoCollectPayload,
  PaymentGatePayload,
  PaymentStatus,
} from '../protocol/record-types.js';

export type ChatRole = 'user' | 'agent' | 'system';

/** Delivery of the user's own messages: `sending` until the service stored it, `failed` until retried. */
export type MessageStatus = 'sending' | 'sent' | 'failed';

export interface InfoCollectCard {
  request: InfoCollectPayload;
  /** A later `toolAction` message answered it (live or in history). */
  answered: boolean;
  answer?: InfoCollectAnswer;
}

export interface ConnectorSetupCard {
  request: ConnectorSetupRequest;
  answered: boolean;
}

export interface PaymentCard {
  gate: PaymentGatePayload;
  /** `pending` until a `payment_gate_resolution` record for the order arrives. */
  status: PaymentStatus;
}

/**
 * One row of the conversation as a UI renders it. Snapshots are immutable: a message that changes is
 * replaced by a new object, one that does not keeps its identity, so renderers can skip it.
 */
export interface ChatMessage {
  /**
   * The record id of a user message (a local id until the service stored it), `message.id` of an agent
   * reply, the record id of an attachment, payment card or turn-failure notice.
   */
  readonly id: string;
  /** Stable for the life of the row, also when a sent message gets its stored id: key rendered rows by it. */
  readonly key: string;
  readonly role: ChatRole;
  readonly agentId?: string;
  readonly turnId?: string;
  readonly timestamp?: string;
  readonly senderName?: string;
  readonly senderAvatar?: string;
  /** A person of the site's staff wrote it (an `operator_message`), not an agent. */
  readonly operator?: OperatorIdentity;
  /** Grows with each `assistant_delta` while streaming; the `assistant` record replaces it with the final text. */
  readonly text: string;
  /** Non-text content of a reply: `thinking`, `image` and `tool_use` (reserved tools become cards instead). */
  readonly blocks: readonly ContentBlock[];
  /**
   * How many of `blocks` come before the text: render them in the order the agent produced them (a tool call
   * after the sentence that introduces it, thinking before the answer).
   */
  readonly blocksBeforeText: number;
  /** Attachments the user sent. */
  readonly parts: readonly MessagePart[];
  /** A file the agent produced: each `attachment` record is a message of its own. */
  readonly attachment?: FileAttachment;
  /** A payment card: each `payment_gate` record is a message of its own. */
  readonly payment?: PaymentCard;
  readonly infoCollect: readonly InfoCollectCard[];
  readonly connectorSetup: readonly ConnectorSetupCard[];
  readonly delegations: readonly Delegation[];
  /**
   * Replies the agent suggests the visitor send next (its `suggest_replies` call; checked, at most 4): a chat
   * offers them after the conversation's last reply (`ChatStore.suggestions`).
   */
  readonly suggestions: readonly string[];
  readonly streaming: boolean;
  /** Only on the user's own messages. */
  readonly status?: MessageStatus;
  /** Why a send or a turn failed (a `result` of subtype `error`), readable. */
  readonly error?: string;
  /** The turn this reply belongs to was stopped. */
  readonly interrupted: boolean;
}

/** A message's fields besides its text, as the visitor's client sends them. */
export type MessageFields = Pick<SendRequest, 'parts' | 'metadata' | 'toolAction' | 'senderName' | 'senderAvatar'>;
