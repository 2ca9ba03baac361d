/**
 * Every resource of the service interface (spec section 2) and the wire shapes of docs/protocol.md.
 * Shared by the client, the chat store, the elements and the reference service.
 */

// ---------------------------------------------------------------- workspace routes

export interface Workspace {
  workspace_id: string;
  slug: string;
  display_name: string;
  status: string;
  api_key_id: string;
}

export type MemberStatus = 'active' | 'suspended' | (string & {});

export interface Member {
  user_id: string;
  billing_account_id: string;
  sp_user_ref: string;
  status: MemberStatus;
  joined_at: string;
  balance: number;
}

export interface MemberList {
  members: Member[];
}

export interface ProvisionMemberRequest {
  sp_user_ref: string;
  display_name?: string;
}

export interface ProvisionResult {
  member_id: string;
  billing_account_id: string;
  created: boolean;
}

export interface GrantCreditsRequest {
  /** Greater than 0, at most 2 decimal places (credits are whole cents). */
  amount: number;
  idempotency_key: string;
}

export interface GrantResult {
  balance: number;
  purchase_id: string;
  idempotent: boolean;
}

/** A workspace's cap on SMS sign-in codes (our extension: `GET`/`PUT /workspaces/{slug}/sms/limit`). */
export interface SmsLimit {
  /** Codes the workspace sends in any 24 hours, at most. */
  daily_limit: number;
  /** Set by the owner; otherwise the service's default. */
  custom: boolean;
  sent_last_24h: number;
}

export interface MintSessionRequest {
  sp_user_ref: string;
  ttl_seconds?: number;
}

export interface StartVisitorSessionRequest {
  sp_user_ref: string;
  display_name?: string;
  ttl_seconds?: number;
}

export interface SessionToken {
  token: string;
  user_id: string;
  expires_at: string;
}

export interface WorkspaceAgent {
  id: string;
  name: string;
  description: string;
  avatar_url: string | null;
  runtime: string;
  created_at: string;
}

export interface AgentList {
  scope: 'workspace';
  workspace_id: string;
  agents: WorkspaceAgent[];
}

export interface SingleAgent {
  scope: 'workspace';
  workspace_id: string;
  agent: WorkspaceAgent;
}

// ---------------------------------------------------------------- conversation routes

export type MessagePart =
  | { type: 'image_url'; image_url: { url: string } }
  | { type: 'file'; file: { filename: string; file_url: string } }
  | { type: 'text'; text: string };

export interface SendRequest {
  message: string;
  conversationId?: string;
  targetAgentIds?: string[];
  newConversation?: boolean;
  parts?: MessagePart[];
  mcpTokens?: Record<string, string>;
  metadata?: Record<string, unknown>;
  toolAction?: boolean;
  senderName?: string;
  senderAvatar?: string;
  /**
   * Our extension: the tools the host page offers the model for this turn (docs/protocol.md "Tools the page
   * gives the chat"); a call of one ends the turn, and the page answers it with `toolAction` and `metadata`
   * from `clientToolResultMetadata` or `clientToolErrorMetadata`.
   */
  clientTools?: ClientToolDeclaration[];
}

/** A tool the host page offers the model (our extension): what the model reads of it. */
export interface ClientToolDeclaration {
  /** CLIENT_TOOL_NAME, and never a reserved tool's name (`clientToolNameProblem`). */
  name: string;
  /** What it does and when to use it, for the model. */
  description: string;
  /** A JSON Schema of an object: the input the model writes. */
  parameters: Record<string, unknown>;
}

/** A call of a page tool, as `extractClientToolCalls` reads it from an `assistant` record. */
export interface ClientToolCall {
  /** The `tool_use` block's id: the answer names it. */
  toolUseId: string;
  name: string;
  /** As the model wrote it: a JSON object, not checked against the tool's `parameters`. */
  input: Record<string, unknown>;
  /** The agent that called it. */
  agentId?: string;
}

/** How a page answers a call of one of its tools: what it returned (JSON), or a sentence saying why it could not. */
export type ClientToolAnswer = { output: unknown } | { error: string };

/**
 * Our extension: the body of `POST /conversations/{id}/regenerate` (no `message`: the last question is asked
 * again) and of `POST /conversations/{id}/edit` (`message` replaces the visitor's last message).
 */
export interface ReplaceRequest {
  message?: string;
  parts?: MessagePart[];
  mcpTokens?: Record<string, string>;
  /** The page's tools for the new turn, as in a send. */
  clientTools?: ClientToolDeclaration[];
}

/** Our extension: what a chat offers before its first message (`GET /agents/{agentId}/prompts`). */
export interface AgentPrompts {
  agentId: string;
  /** Shown as buttons; a tapped one is sent as the visitor's message. */
  starter_prompts: string[];
}

/** Our extension: a visitor's verdict on an agent's reply. */
export type FeedbackRating = 'up' | 'down';

/** The body of `PUT /conversations/{id}/messages/{messageId}/feedback`. */
export interface FeedbackRequest {
  rating: FeedbackRating;
  /** Why, in the visitor's words (at most 500 characters). */
  reason?: string;
}

/** One visitor's feedback on one reply, as the visitor's route answers it. */
export interface Feedback {
  conversationId: string;
  messageId: string;
  agentId: string;
  rating: FeedbackRating;
  reason: string | null;
  created_at: string;
  updated_at: string;
}

/** Feedback as the workspace owner reads it (`GET /workspaces/{slug}/feedback`): who, and on what. */
export interface FeedbackEntry extends Feedback {
  id: string;
  user_id: string;
  /** The reply's text when the feedback was given. */
  text: string;
}

/** A page of a workspace's feedback, newest first; `next` is the cursor of the next page, if any. */
export interface FeedbackPage {
  feedback: FeedbackEntry[];
  next: string | null;
}

/** Query of `GET /workspaces/{slug}/feedback`. */
export interface FeedbackListOptions {
  /** The `next` of the previous page. */
  before?: string;
  /** 1 to 100, default 50. */
  limit?: number;
  agentId?: string;
  rating?: FeedbackRating;
}

export interface SendResultEntry {
  agentId: string;
  /** Id the agent's first reply message will carry (`raw.message.id`). */
  msgId: string;
  /** The turn id. */
  streamId: string;
}

export interface SendResult {
  conversationId: string;
  userMessage?: ChatStreamRecord;
  /** Stream cursor of the sent message: reading after it yields the reply. */
  userEventId?: string;
  results: SendResultEntry[];
}

/** The newest message of a conversation with text, as the conversation list previews it (our extension). */
export interface ConversationPreview {
  /** Who wrote it: the visitor, or an agent. */
  role: 'user' | 'agent';
  /** Its text, at most 200 characters. */
  text: string;
  agentName?: string;
}

/** One conversation of the caller's conversation list (`GET /conversations`, our extension). */
export interface ConversationSummary {
  id: string;
  /** The first message's text (at most 80 characters) until renamed; null before a message with text. */
  title: string | null;
  agentIds: string[];
  createdAt: string;
  /** When its newest record was stored: the list's order, newest first. */
  updatedAt: string;
  lastMessage: ConversationPreview | null;
}

/** A page of the conversation list, newest first; `nextCursor` asks for the next page (null: the last). */
export interface ConversationList {
  conversations: ConversationSummary[];
  nextCursor: string | null;
}

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

export interface AgentTurn {
  conversationId: string;
  text: string;
  toolCalls: ToolCall[];
  records: ChatStreamRecord[];
  result?: ChatRawEvent;
  sessionId: string | null;
  lastEventId?: string;
}

export interface ToolCall {
  id?: string;
  name: string;
  input: Record<string, unknown>;
}

export interface MessagesResult {
  entries: ChatStreamRecord[];
}

export interface HistoryOptions {
  /** Cursor: the page ends before this record. */
  before?: string;
  turns?: number;
  maxEntries?: number;
  includeThinking?: boolean;
}

export interface HistoryResult {
  entries: ChatStreamRecord[];
  hasMore: boolean;
  /**
   * Our extension: who holds the conversation now (a person may have joined many pages back). Absent from
   * services without it, and from training conversations.
   */
  handoff?: HandoffStatus;
}

export type InterruptResult = { interrupted: true; turnId: string } | { interrupted: false; reason: string };

export interface MessageAudioResult {
  messageId: string;
  conversationId: string;
  mimeType: string;
  size: number;
  durationMs: number;
  /** Base64 audio bytes. */
  data: string;
  cached: boolean;
}

export interface ConnectorCredentialsResult {
  connectorTypeId: string;
  fields: string[];
  updatedAt: string;
}

// ---------------------------------------------------------------- cards (reserved tool names)

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

// ---------------------------------------------------------------- files and payments

export interface UploadedFile {
  url: string;
  filename: string;
  size: number;
  mimeType: string;
  provider: string;
  nasPath?: string;
  agentPath?: string;
}

export interface ConversationFile {
  content: string;
  encoding: 'utf-8' | 'base64';
  mimeType: string;
}

export interface PaymentStatusResult {
  status: PaymentStatus;
  amountCny?: number;
}

// ---------------------------------------------------------------- training

export interface TrainingSendRequest {
  message: string;
  parts?: MessagePart[];
  metadata?: Record<string, unknown>;
}

export interface TrainingSendResult {
  ok: boolean;
  msgId?: string;
}

// ---------------------------------------------------------------- a person in the conversation (our extension)

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
