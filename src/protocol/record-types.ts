/**
 * The record of a conversation's stream and its raw events (docs/protocol.md "Record"), and the cards'
 * payloads (reserved tool names) that records carry.
 */
import type { MessagePart } from './conversation-types.js';
import type {
  HandoffRequestedRawEvent,
  HandoffUnansweredRawEvent,
  OperatorJoinedRawEvent,
  OperatorLeftRawEvent,
  OperatorMessageRawEvent,
} from './handoff-types.js';

export type RecordSender = 'user' | 'assistant' | 'agent' | 'system';

export interface ChatStreamRecord<R extends ChatRawEvent = ChatRawEvent> {
  /** Opaque cursor, strictly increasing within a conversation. */
  id: string;
  seq: number;
  timestamp: string;
  sessionId: string | null;
  conversationId?: string;
  turnId?: string;
  agentId?: string;
  /** The agent's display name, on every record an agent emits. */
  agentName?: string;
  sender: RecordSender;
  event:
    | 'message'
    | 'agent_status'
    | 'attachment'
    | 'delta'
    | 'payment_gate'
    | 'payment_gate_resolution'
    | 'result'
    | 'handoff'
    | (string & {});
  raw: R;
}

export interface TextBlock {
  type: 'text';
  text: string;
}
export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
}
export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
  /** Our extension: a call of a tool the page declared (`clientTools`); the page answers it, and the turn ended waiting. */
  client?: boolean;
}
export interface ImageBlock {
  type: 'image';
  source: { type: 'url'; url: string };
}
/** What a tool call (`tool_use` block `tool_use_id`) returned: kept for the agent's own context, not shown. */
export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: string;
  is_error?: boolean;
}
export type ContentBlock = TextBlock | ThinkingBlock | ToolUseBlock | ImageBlock | ToolResultBlock;

export interface UserRawEvent {
  type: 'user';
  message: { role: 'user'; content: TextBlock[] };
  parts?: MessagePart[];
  metadata?: Record<string, unknown>;
  toolAction?: boolean;
  senderName?: string;
  senderAvatar?: string;
  /**
   * Our extension: this message asks again in place of turn `replaces` (regenerate, or an edit of the visitor's
   * last message). The replaced turn's records stay in history; runtimes and the widget leave them out.
   */
  replaces?: string;
}

export type AgentStatus = 'thinking' | 'typing' | 'tool' | 'idle';

export interface AgentStatusRawEvent {
  type: 'agent_status';
  agentId: string;
  status: AgentStatus;
}

export interface AssistantDeltaRawEvent {
  type: 'assistant_delta';
  agentId: string;
  messageId: string;
  /** Only the new text. */
  text: string;
}

export interface AssistantRawEvent {
  type: 'assistant';
  agentId: string;
  message: { id: string; role: 'assistant'; content: ContentBlock[] };
}

/** A file an agent produced in the conversation's workspace. */
export interface FileAttachment {
  name: string;
  workspacePath: string;
  mimeType?: string;
  size?: number;
  [key: string]: unknown;
}

export interface AttachmentRawEvent {
  type: 'attachment';
  agentId: string;
  file: FileAttachment;
}

export interface PaymentGatePayload {
  orderId: string;
  amountCny: number;
  title: string;
  description?: string;
  payUrl: string;
  expiresAt: string;
}

export interface PaymentGateRawEvent {
  type: 'payment_gate';
  agentId: string;
  payment: PaymentGatePayload;
}

export type PaymentStatus = 'pending' | 'paid' | 'expired' | 'canceled';

export interface PaymentResolution {
  orderId: string;
  status: PaymentStatus;
}

export interface PaymentGateResolutionRawEvent extends PaymentResolution {
  type: 'payment_gate_resolution';
}

export type ResultSubtype = 'success' | 'error' | 'interrupted';

export interface ResultRawEvent {
  type: 'result';
  subtype: ResultSubtype;
  is_error: boolean;
  duration_ms: number;
  agentIds: string[];
  /** A readable message when `subtype` is `error`. */
  error?: string;
}

export type ChatRawEvent =
  | UserRawEvent
  | AgentStatusRawEvent
  | AssistantDeltaRawEvent
  | AssistantRawEvent
  | AttachmentRawEvent
  | PaymentGateRawEvent
  | PaymentGateResolutionRawEvent
  | ResultRawEvent
  | HandoffRequestedRawEvent
  | OperatorJoinedRawEvent
  | OperatorMessageRawEvent
  | OperatorLeftRawEvent
  | HandoffUnansweredRawEvent;

export type InfoCollectFieldType = 'text' | 'email' | 'phone' | 'number' | 'date' | 'select' | 'textarea';

export interface InfoCollectField {
  name: string;
  label: string;
  type: InfoCollectFieldType;
  required?: boolean;
  placeholder?: string;
  options?: string[];
}

export interface InfoCollectPayload {
  /** The `tool_use` block's id. */
  toolUseId: string;
  title: string;
  description?: string;
  submitLabel?: string;
  fields: InfoCollectField[];
}

export interface ConnectorSetupField {
  name: string;
  label: string;
  secret?: boolean;
  placeholder?: string;
  required?: boolean;
}

export interface ConnectorSetupRequest {
  toolUseId: string;
  connectorTypeId: string;
  name: string;
  description?: string;
  /**
   * Set when an agent's MCP server asks: the server's host (`billing.example.com`), which the card shows.
   * The credentials are then saved for that server of that agent only (`agentId`), never sent elsewhere.
   */
  server?: string;
  /** The agent whose server asks (with `server`). */
  agentId?: string;
  fields: ConnectorSetupField[];
}

export interface Delegation {
  toolUseId: string;
  /** The agent handing over. */
  fromAgentId?: string;
  agentId: string;
  agentName?: string;
  task: string;
}
