/**
 * `@svc/agent-sdk`: the client, the record helpers, the error classes and every wire type.
 * Import only what you use: each part stands alone, so a chat-only bundle has no workspace admin code.
 */

export { type AudioEntry, downloadMessageAudio, MessageAudioCache } from './client/audio.js';
export type { SessionGrant, TokenProvider } from './client/auth.js';
export { ChatClient, type ResumeTurnOptions } from './client/chat.js';
export { SvcClient } from './client/client.js';
export type { McpTokens, RequestOptions, SvcClientConfig } from './client/config.js';
export { type ConnectorSetupOptions, Conversation, type ConversationOptions } from './client/conversation.js';
export {
  AbortError,
  ApiConnectionError,
  ApiError,
  ApiTimeoutError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  NotFoundError,
  NotImplementedError,
  PermissionDeniedError,
  PreconditionRequiredError,
  RateLimitError,
  SvcSdkError,
} from './client/errors.js';
export { FilesClient, type PartType, toPart, type UploadInput, type UploadOptions } from './client/files.js';
export { DEFAULT_BASE_URL, HttpClient } from './client/http.js';
export { OperatorInbox, type QueueStreamOptions } from './client/operators.js';
export {
  PAGE_TOOL_ERRORS,
  type PageTool,
  type PageToolContext,
  pageToolDeclarations,
  type RunPageToolOptions,
  runPageTool,
} from './client/page-tools.js';
export { PaymentsClient } from './client/payments.js';
export type { ConnectionState, RecordStreamOptions, TurnReadOptions } from './client/record-stream.js';
export { HttpTransport, hookMatcher, query } from './client/reserved.js';
export { TrainingChat, type TrainingStreamOptions } from './client/training.js';
export type { MessageOptions } from './client/turn.js';
export { WorkspaceHandle, WorkspacesClient } from './client/workspaces.js';
export * from './protocol/index.js';
