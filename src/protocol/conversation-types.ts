/**
 * The conversation routes' shapes (spec section 2): a send and its result, the page's tools, asking again,
 * feedback, the conversation list, history, files, payments and training.
 */
import type { HandoffStatus } from './handoff-types.js';
import type { ChatRawEvent, ChatStreamRecord, PaymentStatus } from './record-types.js';

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

export interface TrainingSendRequest {
  message: string;
  parts?: MessagePart[];
  metadata?: Record<string, unknown>;
}

export interface TrainingSendResult {
  ok: boolean;
  msgId?: string;
}
