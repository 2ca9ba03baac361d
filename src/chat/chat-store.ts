import type { ConnectionState } from '../client/record-stream.js';
import { clientToolAnswerMetadata } from '../protocol/client-tools.js';
import type {
  ClientToolAnswer,
  ClientToolCall,
  ClientToolDeclaration,
  Feedback,
  FeedbackRating,
  InterruptResult,
  SendRequest,
  SendResult,
} from '../protocol/conversation-types.js';
import type { AgentStatus, ResultSubtype } from '../protocol/record-types.js';
import type { ChatApi } from './chat-api.js';
import type { ChatMessage, MessageFields } from './chat-message.js';
import { ChatState } from './chat-state.js';
import { ConversationReader } from './conversation-reader.js';
import { Outbox } from './outbox.js';
import type { PageToolCallState } from './page-tool-calls.js';
import { FeedbackState, type ReplyFeedback } from './reply-feedback.js';
import { SendQueue } from './send-queue.js';

const NO_SUGGESTIONS: readonly string[] = Object.freeze([]);

/** What a host page cares about; `<svc-chat>` re-emits each as a DOM event. */
export interface ChatStoreEvents {
  /** The service stored a message (also a card answer sent with `toolAction`). */
  'message-sent': { request: SendRequest; result: SendResult };
  /** A turn read live from the stream ended; `text` is what its agents replied. */
  'turn-complete': { conversationId: string; turnId?: string; subtype: ResultSubtype; text: string; error?: string };
  /** A request or a turn failed; `message` is readable, `status` the HTTP status when there was one. */
  error: { message: string; status?: number; cause: unknown };
  /** The conversation shown changed; `null`: the next message starts a new one. What `persist` keeps. */
  'conversation-change': { conversationId: string | null };
  /** The service stored the visitor's feedback on a reply. */
  feedback: Feedback;
}

export interface ChatStoreOptions {
  api: ChatApi;
  /** Agents of a new conversation; without them the service picks the workspace's first agent. */
  targetAgentIds?: string[];
  /** Turns per page of history (the service's default is 10). */
  historyTurns?: number;
}

/**
 * The state of one chat, shared by `<svc-chat>` and `useSvcChat`: records of the conversation turned into
 * messages, and the conversation driven through a {@link ChatApi}. No DOM; runs in Node and browsers.
 * Read the getters, `subscribe` to hear about changes (at most once per task), compare `version` to skip work.
 * Each job is a part of its own: the state records are applied to (`chat-state.ts`), sending
 * (`send-queue.ts`), the outbox (`outbox.ts`), reading the conversation (`conversation-reader.ts`) and
 * feedback (`reply-feedback.ts`); the store is their one face.
 */
export class ChatStore {
  /** Agents of the next new conversation. */
  targetAgentIds?: string[];
  /**
   * The tools the page offers the model with each send, regenerate and edit (docs/elements.md "Tools the page
   * gives the chat"): their declarations only; the page runs its handlers and answers with `answerPageTool`.
   */
  clientTools?: ClientToolDeclaration[];
  /**
   * The visitor's messages the service was not reached for (`ids`, `messages`): sent by themselves with
   * `outbox.send()`, each under its first key, and kept across a reload with `outbox.keepIn(slot)`.
   */
  readonly outbox: Outbox;
  readonly #state: ChatState;
  // The parts of the conversation shown, made anew for each (`#show`).
  #reader!: ConversationReader;
  #sends!: SendQueue;
  #feedback!: FeedbackState;
  readonly #historyTurns?: number;

  constructor(options: ChatStoreOptions) {
    this.targetAgentIds = options.targetAgentIds;
    this.#historyTurns = options.historyTurns;
    this.#state = new ChatState(options.api);
    this.outbox = new Outbox(this.#state, (localId) => this.retry(localId));
    this.#newParts();
  }

  get messages(): readonly ChatMessage[] {
    return this.#state.log.messages;
  }

  get conversationId(): string | null {
    return this.#state.conversationId;
  }

  /**
   * A reply is running, or a message is being sent: what a stop button shows. Not while messages wait in the
   * outbox (sent again by themselves, the new ones behind them): nothing runs there to stop.
   */
  get running(): boolean {
    return this.#state.log.turn.open || (this.#sends.pending > 0 && !this.outbox.ids.length);
  }

  /**
   * The replies the visitor may send next with one tap: those the conversation's last message suggests when it
   * is an agent's finished reply; none while a message is sent or a reply runs, nor after a failed one.
   */
  get suggestions(): readonly string[] {
    const last = this.messages.at(-1);
    const finished = last?.role === 'agent' && !last.streaming && !last.error && !last.interrupted;
    return finished && !this.running ? last.suggestions : NO_SUGGESTIONS;
  }

  /** The latest status of each agent heard from in this conversation. */
  get agentStatus(): Readonly<Record<string, AgentStatus>> {
    return this.#state.log.turn.agentStatus;
  }

  /** The display name of each agent heard from in this conversation, by id. */
  get agentNames(): Readonly<Record<string, string>> {
    return this.#state.log.turn.agentNames;
  }

  /** The visitor's feedback on the replies shown, by message id (what they gave, and what the service kept). */
  get feedback(): Readonly<Record<string, ReplyFeedback>> {
    return this.#feedback.given;
  }

  /** The service offers regenerate, edit and feedback (the client has them). */
  get canActOnReplies(): boolean {
    const api = this.#state.api;
    return !!(api.regenerate && api.edit && api.setFeedback);
  }

  get connection(): ConnectionState {
    return this.#state.connection;
  }

  get hasMoreHistory(): boolean {
    return this.#reader.hasMore;
  }

  get loadingHistory(): boolean {
    return this.#reader.loading;
  }

  /** The last error, readable; cleared by `clearError` and when another conversation is shown. */
  get error(): string | null {
    return this.#state.error;
  }

  /** Grows with every change. */
  get version(): number {
    return this.#state.version;
  }

  /**
   * Every change since the last notification only added streamed text to replies that show text already: a view
   * may render it with the reply's next render instead of at once (`<svc-chat>` renders a streaming reply 30
   * times a second, and its panel's update waits for that).
   */
  get streamedOnly(): boolean {
    return this.#state.streamedOnly;
  }

  /**
   * `listener` runs after changes, once per task however many records it applied. Bound, so it can be
   * handed on as it is: `useSyncExternalStore(store.subscribe, () => store.version)`.
   */
  readonly subscribe = (listener: () => void): (() => void) => this.#state.subscribe(listener);

  on<K extends keyof ChatStoreEvents>(type: K, listener: (detail: ChatStoreEvents[K]) => void): () => void {
    return this.#state.events.on(type, listener);
  }

  /**
   * Shows the message at once (status `sending`), sends it, then reads the reply from the stream. A card
   * answer (`toolAction`) is not shown: it marks its card answered. Resolves to the send's result, or
   * `undefined` when it failed (the message stays, `failed`, for `retry`) or had nothing to send.
   */
  send(text: string, options: MessageFields = {}): Promise<SendResult | undefined> {
    return this.#sends.send(text, options);
  }

  /**
   * Sends a `failed` message again, under the key of its first try: if that try was stored after all (its
   * answer was lost on the way), the service answers with it and the message is not stored twice.
   */
  retry(messageId: string): Promise<SendResult | undefined> {
    return this.#sends.retry(messageId);
  }

  /**
   * Asks the conversation's last message again: the new reply replaces the last one (whose turn is no longer
   * shown), also a reply that failed (its Retry). `message-sent` tells the question asked again. Resolves to the
   * result, or `undefined` when nothing could be asked (no conversation, a reply runs) or it failed (the error
   * is the store's `error`).
   */
  async regenerate(): Promise<SendResult | undefined> {
    const api = this.#state.api;
    if (!this.canActOnReplies) return undefined;
    const asked = this.messages.findLast((m) => m.role === 'user')?.text ?? '';
    return this.#sends.askAgain(
      (conversationId, opts) => api.regenerate!(conversationId, this.#sends.clientTools(), opts),
      (conversationId) => ({ message: asked, conversationId }),
    );
  }

  /** Replaces the visitor's last message with `text` and asks it again, as `regenerate` does. */
  async editLast(text: string): Promise<SendResult | undefined> {
    const api = this.#state.api;
    if (!text.trim() || !this.canActOnReplies) return undefined;
    return this.#sends.askAgain(
      (conversationId, opts) => api.edit!(conversationId, { message: text, ...this.#sends.clientTools() }, opts),
      (conversationId) => ({ message: text, conversationId }),
    );
  }

  /**
   * Gives the visitor's 👍 or 👎 (with an optional reason) on reply `messageId`: shown at once, then stored by
   * the service (one per visitor per reply: a second call changes it). Resolves to what was stored, or
   * `undefined` when it failed (the feedback shown goes back to what it was, and the error is the store's).
   */
  setFeedback(messageId: string, rating: FeedbackRating, reason?: string): Promise<Feedback | undefined> {
    return this.#feedback.set(messageId, rating, reason);
  }

  /** The calls of the page's tools that wait for the page's answer, oldest first. */
  get pageToolCalls(): readonly ClientToolCall[] {
    return this.#state.pageTools.pending;
  }

  /** Where call `toolUseId` of a page tool stands: waiting, asking the visitor, running, answered, dropped. */
  pageToolCall(toolUseId: string): PageToolCallState {
    return this.#state.pageTools.state(toolUseId);
  }

  /** The page is asking the visitor to allow call `toolUseId`, or running it: shown so. */
  markPageToolCall(toolUseId: string, phase: 'asking' | 'running'): void {
    this.#state.pageTools.mark(toolUseId, phase);
    this.#state.changed();
  }

  /**
   * Answers call `toolUseId` of a page tool (its handler's value, or why not), with the page's tools again, and
   * reads the reply that follows, once the call's turn has ended. Shown answered at once; tried again while the
   * service is busy or away; dropped if the chat shows another conversation meanwhile. Resolves
   * to the result, or `undefined` when it failed: the error is the store's, and the call waits again once the
   * conversation is loaded again (its Retry).
   */
  async answerPageTool(toolUseId: string, answer: ClientToolAnswer): Promise<SendResult | undefined> {
    const state = this.#state;
    const { signal } = state;
    state.pageTools.mark(toolUseId, { answered: answer });
    state.changed();
    // The call's turn ends waiting for it: the service takes no message while a turn runs (409).
    await state.replyEnded();
    if (signal.aborted) return undefined;
    return this.send('', { toolAction: true, metadata: clientToolAnswerMetadata(toolUseId, answer) });
  }

  /** Stops the running reply (after a message still being sent is stored); the stream reports the end. */
  interrupt(): Promise<InterruptResult | undefined> {
    return this.#sends.interrupt();
  }

  /** Shows conversation `conversationId`: its latest page of history, then its live records. */
  async load(conversationId: string): Promise<void> {
    if (this.#state.disposed) return;
    this.#show(conversationId);
    void this.#feedback.load();
    await this.#reader.latest();
  }

  /** Prepends the page of history before the oldest record shown, while `hasMoreHistory`. */
  loadOlder(): Promise<void> {
    return this.#reader.older();
  }

  /** Starts a new conversation with the next message. */
  reset(): void {
    if (!this.#state.disposed) this.#show(null);
  }

  clearError(): void {
    if (this.#state.error === null) return;
    this.#state.error = null;
    this.#state.changed();
  }

  /** Aborts every request and the stream; the store stays readable but does nothing more. */
  dispose(): void {
    if (!this.#state.disposed) this.#state.dispose();
  }

  /** Shows conversation `conversationId` (`null`: a new one) with parts of its own; the outbox keeps none of the last. */
  #show(conversationId: string | null): void {
    this.outbox.clear();
    this.#newParts();
    this.#state.clear(conversationId);
  }

  #newParts(): void {
    const state = this.#state;
    this.#reader = new ConversationReader(state, this.#historyTurns);
    this.#sends = new SendQueue(
      state,
      this.outbox,
      this.#reader,
      () => this.targetAgentIds,
      () => this.clientTools,
    );
    this.#feedback = new FeedbackState(state);
  }
}
