import type { RecordStreamOptions } from '../client/record-stream.js';
import type {
  AgentPrompts,
  ClientToolDeclaration,
  Feedback,
  FeedbackRequest,
  HistoryOptions,
  HistoryResult,
  InterruptResult,
  SendRequest,
  SendResult,
} from '../protocol/conversation-types.js';
import type { ChatStreamRecord } from '../protocol/record-types.js';

/**
 * What the store needs of the client: exactly this subset of `SvcClient#chat`, so
 * `new ChatStore({ api: client.chat })` type-checks and tests can hand in a fake. Errors thrown carry
 * `status` and `message` (the service's `detail`).
 */
export interface ChatApi {
  /** `idempotencyKey`: the same for every try of one message, so the service stores it once. */
  send(req: SendRequest, opts?: { signal?: AbortSignal; idempotencyKey?: string }): Promise<SendResult>;
  stream(
    conversationId: string,
    opts?: Pick<RecordStreamOptions, 'lastEventId' | 'signal' | 'onConnectionChange'>,
  ): AsyncIterable<ChatStreamRecord>;
  history(conversationId: string, opts?: HistoryOptions & { signal?: AbortSignal }): Promise<HistoryResult>;
  interrupt(conversationId: string, opts?: { signal?: AbortSignal }): Promise<InterruptResult>;
  /** Regenerate, edit and feedback (our extensions): a client without them offers none of these actions. */
  regenerate?(
    conversationId: string,
    req?: { clientTools?: ClientToolDeclaration[] },
    opts?: { signal?: AbortSignal; idempotencyKey?: string },
  ): Promise<SendResult>;
  edit?(
    conversationId: string,
    req: { message: string; clientTools?: ClientToolDeclaration[] },
    opts?: { signal?: AbortSignal; idempotencyKey?: string },
  ): Promise<SendResult>;
  setFeedback?(
    conversationId: string,
    messageId: string,
    feedback: FeedbackRequest,
    opts?: { signal?: AbortSignal },
  ): Promise<Feedback>;
  feedback?(conversationId: string, opts?: { signal?: AbortSignal }): Promise<{ feedback: Feedback[] }>;
  agentPrompts?(agentId: string, opts?: { signal?: AbortSignal }): Promise<AgentPrompts>;
}
