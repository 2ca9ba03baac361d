import { idempotencyKey } from '../client/idempotency.js';
import type { ConnectionState } from '../client/record-stream.js';
import { compareRecordIds } from '../protocol/records.js';
import type {
  AgentStatus,
  ChatStreamRecord,
  Feedback,
  FeedbackRating,
  InterruptResult,
  ResultRawEvent,
  ResultSubtype,
  SendRequest,
  SendResult,
} from '../protocol/types.js';
import type { ChatApi } from './chat-api.js';
import type { ChatMessage } from './chat-message.js';
import { Emitter } from './emitter.js';
import { MessageLog, TURN_FAILED } from './message-log.js';
import { afterTask } from './schedule.js';

/** Records of a history page applied per task: about 10 ms on a slow phone. */
const HISTORY_SLICE = 500;

const NO_SUGGESTIONS: readonly string[] = Object.freeze([]);

/** What a message carries besides its text. */
/** A message's fields besides its text, as the visitor's client sends them. */
export type MessageFields = Pick<SendRequest, 'parts' | 'metadata' | 'toolAction' | 'senderName' | 'senderAvatar'>;

/**
 * A message as it is sent, the first time and on every retry: one `Idempotency-Key` and, once sent, one
 * request for all of them (a retry goes where the first try went, so the service can answer it with that).
 */
interface Outgoing {
  text: string;
  options: MessageFields;
  key: string;
  request?: SendRequest;
}

/** A message of the outbox as it can be kept across a reload (`waitingMessages`, `restoreWaiting`). */
export type WaitingMessage = Readonly<Outgoing>;

export interface ChatStoreOptions {
  api: ChatApi;
  /** Agents of a new conversation; without them the service picks the workspace's first agent. */
  targetAgentIds?: string[];
  /** Turns per page of history (the service's default is 10). */
  historyTurns?: number;
}

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

/** The visitor's feedback on a reply, as a chat shows it. */
export interface ReplyFeedback {
  rating: FeedbackRating;
  reason: string | null;
}

/**
 * The state of one chat, shared by `<svc-chat>` and `useSvcChat`: records of the conversation turned into
 * messages, and the conversation driven through a {@link ChatApi}. No DOM; runs in Node and browsers.
 * Read the getters, `subscribe` to hear about changes (at most once per task), compare `version` to skip work.
 */
export class ChatStore {
  /** Agents of the next new conversation. */
  targetAgentIds?: string[];

  readonly #api: ChatApi;
  readonly #historyTurns?: number;
  readonly #events = new Emitter<ChatStoreEvents>();
  readonly #listeners = new Set<() => void>();
  #conversationId: string | null = null;
  #version = 0;
  #notifying = false;
  #streamedOnly = false;
  /**
   * Aborted by `reset`, `load` and `dispose`: every request and the stream of the conversation shown
   * before, whose results are then dropped.
   */
  #scope = new AbortController();
  /** The signal of the stream being read. */
  #stream?: AbortSignal;
  #disposed = false;

  // The state of the conversation shown, set by #resetState.
  #log!: MessageLog;
  /** What each unsent or failed message was, and the key it is sent under every time, for `retry`. */
  #outgoing!: Map<string, Outgoing>;
  #pendingSends!: number;
  #connection!: ConnectionState;
  #hasMore!: boolean;
  #loadingHistory!: boolean;
  /** `load` is fetching the latest page; the stream opens after it. */
  #loadingLatest!: boolean;
  #error!: string | null;
  /** Sends go one at a time: the first message of a new conversation must create it before the next. */
  #sendQueue!: Promise<unknown>;
  /** The visitor's feedback on the replies shown, by message id. */
  #feedback!: Readonly<Record<string, ReplyFeedback>>;
  /**
   * The outbox: messages that did not reach the service (no answer), oldest first. A message sent while one
   * waits waits behind it, so they arrive in order; `sendWaiting` sends them, each under its first key.
   */
  #waiting!: string[];
  #flushing!: boolean;

  constructor(options: ChatStoreOptions) {
    this.#api = options.api;
    this.targetAgentIds = options.targetAgentIds;
    this.#historyTurns = options.historyTurns;
    this.#resetState();
  }

  get messages(): readonly ChatMessage[] {
    return this.#log.messages;
  }

  get conversationId(): string | null {
    return this.#conversationId;
  }

  /** A message is being sent or a reply is running: what a stop button shows. */
  get running(): boolean {
    return this.#log.turnOpen || this.#pendingSends > 0;
  }

  /**
   * The replies the visitor may send next with one tap: those the conversation's last message suggests when it
   * is an agent's finished reply; none while a message is sent or a reply runs, nor after a failed one.
   */
  get suggestions(): readonly string[] {
    const last = this.#log.messages.at(-1);
    const finished = last?.role === 'agent' && !last.streaming && !last.error && !last.interrupted;
    return finished && !this.running ? last.suggestions : NO_SUGGESTIONS;
  }

  /** The latest status of each agent heard from in this conversation. */
  get agentStatus(): Readonly<Record<string, AgentStatus>> {
    return this.#log.agentStatus;
  }

  /** The display name of each agent heard from in this conversation, by id. */
  get agentNames(): Readonly<Record<string, string>> {
    return this.#log.agentNames;
  }

  /** The visitor's feedback on the replies shown, by message id (what they gave, and what the service kept). */
  get feedback(): Readonly<Record<string, ReplyFeedback>> {
    return this.#feedback;
  }

  /** The service offers regenerate, edit and feedback (the client has them). */
  get canActOnReplies(): boolean {
    return !!(this.#api.regenerate && this.#api.edit && this.#api.setFeedback);
  }

  get connection(): ConnectionState {
    return this.#connection;
  }

  /** The ids of the messages in the outbox, oldest first: not sent because the service was not reached. */
  get waiting(): readonly string[] {
    return this.#waiting;
  }

  /** The outbox's messages, oldest first, as `restoreWaiting` takes them back (plain data: they can be stored). */
  get waitingMessages(): WaitingMessage[] {
    return this.#waiting.flatMap((id) => this.#outgoing.get(id) ?? []);
  }

  /**
   * Puts messages kept from an earlier page (`waitingMessages`) back in the outbox, after what it holds, shown
   * as waiting; `sendWaiting` sends them under their first keys, so one the service stored meanwhile is not
   * stored twice. Call it once the conversation they were written in is shown.
   */
  restoreWaiting(messages: readonly WaitingMessage[]): void {
    if (this.#disposed) return;
    const known = new Set(this.waitingMessages.map((m) => m.key));
    for (const message of messages) {
      if (known.has(message.key)) continue;
      const localId = this.#log.addLocal({ ...message.options, text: message.text });
      this.#log.markFailed(localId, 'waiting to be sent');
      this.#outgoing.set(localId, { ...message });
      this.#waiting.push(localId);
    }
    this.#changed();
  }

  get hasMoreHistory(): boolean {
    return this.#hasMore;
  }

  get loadingHistory(): boolean {
    return this.#loadingHistory;
  }

  /** The last error, readable; cleared by `clearError` and when another conversation is shown. */
  get error(): string | null {
    return this.#error;
  }

  /** Grows with every change. */
  get version(): number {
    return this.#version;
  }

  /**
   * Every change since the last notification only added streamed text to replies that show text already: a view
   * may render it with the reply's next render instead of at once (`<svc-chat>` renders a streaming reply 30
   * times a second, and its panel's update waits for that).
   */
  get streamedOnly(): boolean {
    return this.#streamedOnly;
  }

  /**
   * `listener` runs after changes, once per task however many records it applied. Bound, so it can be
   * handed on as it is: `useSyncExternalStore(store.subscribe, () => store.version)`.
   */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  };

  on<K extends keyof ChatStoreEvents>(type: K, listener: (detail: ChatStoreEvents[K]) => void): () => void {
    return this.#events.on(type, listener);
  }

  /**
   * Shows the message at once (status `sending`), sends it, then reads the reply from the stream. A card
   * answer (`toolAction`) is not shown: it marks its card answered. Resolves to the send's result, or
   * `undefined` when it failed (the message stays, `failed`, for `retry`) or had nothing to send.
   */
  send(text: string, options: MessageFields = {}): Promise<SendResult | undefined> {
    if (this.#disposed || (!text.trim() && !options.parts?.length && !options.toolAction)) {
      return Promise.resolve(undefined);
    }
    const outgoing: Outgoing = { text, options, key: idempotencyKey() };
    let localId: string | undefined;
    if (!options.toolAction) {
      localId = this.#log.addLocal({ ...options, text });
      this.#outgoing.set(localId, outgoing);
    }
    return this.#enqueue(outgoing, localId);
  }

  /**
   * Sends a `failed` message again, under the key of its first try: if that try was stored after all (its
   * answer was lost on the way), the service answers with it and the message is not stored twice.
   */
  retry(messageId: string): Promise<SendResult | undefined> {
    const outgoing = this.#outgoing.get(messageId);
    if (!outgoing || !this.#log.markRetrying(messageId)) return Promise.resolve(undefined);
    return this.#enqueue(outgoing, messageId);
  }

  /**
   * Asks the conversation's last message again: the new reply replaces the last one (whose turn is no longer
   * shown). Resolves to the result, or `undefined` when nothing could be asked (no conversation, a reply runs)
   * or it failed (the error is the store's `error`).
   */
  regenerate(): Promise<SendResult | undefined> {
    const api = this.#api;
    return this.#replace(
      (conversationId, opts) => api.regenerate!(conversationId, {}, opts),
      (conversationId) => ({ message: '', conversationId }),
    );
  }

  /** Replaces the visitor's last message with `text` and asks it again, as `regenerate` does. */
  editLast(text: string): Promise<SendResult | undefined> {
    if (!text.trim()) return Promise.resolve(undefined);
    const api = this.#api;
    return this.#replace(
      (conversationId, opts) => api.edit!(conversationId, { message: text }, opts),
      (conversationId) => ({ message: text, conversationId }),
    );
  }

  /**
   * Gives the visitor's 👍 or 👎 (with an optional reason) on reply `messageId`: shown at once, then stored by
   * the service (one per visitor per reply: a second call changes it). Resolves to what was stored, or
   * `undefined` when it failed (the feedback shown goes back to what it was, and the error is the store's).
   */
  async setFeedback(messageId: string, rating: FeedbackRating, reason?: string): Promise<Feedback | undefined> {
    const conversationId = this.#conversationId;
    const { signal } = this.#scope;
    if (!conversationId || !this.#api.setFeedback || this.#disposed) return undefined;
    const before = this.#feedback;
    this.#feedback = Object.freeze({ ...before, [messageId]: { rating, reason: reason?.trim() || null } });
    this.#changed();
    try {
      const stored = await this.#api.setFeedback(
        conversationId,
        messageId,
        reason?.trim() ? { rating, reason: reason.trim() } : { rating },
        { signal },
      );
      if (signal.aborted) return undefined;
      this.#events.emit('feedback', stored);
      return stored;
    } catch (err) {
      if (signal.aborted) return undefined;
      this.#feedback = before;
      this.#fail(err);
      return undefined;
    }
  }

  async #replace(
    call: (conversationId: string, opts: { signal: AbortSignal; idempotencyKey: string }) => Promise<SendResult>,
    request: (conversationId: string) => SendRequest,
  ): Promise<SendResult | undefined> {
    const conversationId = this.#conversationId;
    if (!conversationId || this.running || this.#disposed || !this.canActOnReplies) return undefined;
    const { signal } = this.#scope;
    this.#pendingSends++;
    this.#changed();
    const done = this.#sendQueue.then(async () => {
      try {
        const result = await call(conversationId, { signal, idempotencyKey: idempotencyKey() });
        if (signal.aborted) return undefined;
        const resumeFrom = this.#log.lastId ?? result.userEventId;
        this.#stored(result, undefined);
        this.#events.emit('message-sent', { request: request(conversationId), result });
        void this.#openStream(resumeFrom);
        return result;
      } catch (err) {
        if (!signal.aborted) this.#fail(err);
        return undefined;
      } finally {
        if (!signal.aborted) {
          this.#pendingSends--;
          this.#changed();
        }
      }
    });
    this.#sendQueue = done;
    return done;
  }

  /** The visitor's feedback in the conversation shown, kept by the service: shown again after a reload. */
  async #loadFeedback(conversationId: string, signal: AbortSignal): Promise<void> {
    if (!this.#api.feedback) return;
    try {
      const { feedback } = await this.#api.feedback(conversationId, { signal });
      if (signal.aborted) return;
      const kept = Object.fromEntries(feedback.map((f) => [f.messageId, { rating: f.rating, reason: f.reason }]));
      // What the visitor gave meanwhile wins.
      this.#feedback = Object.freeze({ ...kept, ...this.#feedback });
      this.#changed();
    } catch {
      // Feedback shown again is a nicety: the conversation works without it.
    }
  }

  /**
   * Sends the outbox, oldest first, each under the key of its first try (the service stores each once, even
   * one whose answer was lost); stops at the first that still cannot be sent. Each goes once the reply to the
   * one before it ended, as a visitor's would: the service takes no message while a reply runs. Called when
   * the service answers again; a second call while one runs does nothing.
   */
  async sendWaiting(): Promise<void> {
    if (this.#flushing || this.#disposed) return;
    this.#flushing = true;
    try {
      while (this.#waiting.length) {
        await this.#replyEnded();
        const next = this.#waiting[0];
        if (next === undefined || this.#scope.signal.aborted) return;
        if (!(await this.retry(next)) && this.#waiting[0] === next) return;
      }
    } finally {
      this.#flushing = false;
    }
  }

  /** Resolves once no reply runs in the conversation shown, or the chat left it. */
  #replyEnded(): Promise<void> {
    const { signal } = this.#scope;
    return new Promise((resolve) => {
      const check = () => {
        if (this.#log.turnOpen && !signal.aborted) return;
        unsubscribe();
        signal.removeEventListener('abort', check);
        resolve();
      };
      const unsubscribe = this.subscribe(check);
      signal.addEventListener('abort', check);
      check();
    });
  }

  /** Stops the running reply (after a message still being sent is stored); the stream reports the end. */
  async interrupt(): Promise<InterruptResult | undefined> {
    const { signal } = this.#scope;
    await this.#sendQueue;
    const conversationId = this.#conversationId;
    if (signal.aborted || !conversationId) return undefined;
    try {
      const result = await this.#api.interrupt(conversationId, { signal });
      if (!signal.aborted && !result.interrupted && this.#log.turnOpen) {
        // Nothing runs on the service: the end of the turn was missed.
        this.#log.closeTurn();
        this.#changed();
      }
      return result;
    } catch (err) {
      if (!signal.aborted) this.#fail(err);
      return undefined;
    }
  }

  /** Shows conversation `conversationId`: its latest page of history, then its live records. */
  async load(conversationId: string): Promise<void> {
    if (this.#disposed) return;
    this.#clear(conversationId);
    this.#loadingLatest = true;
    void this.#loadFeedback(conversationId, this.#scope.signal);
    await this.#loadPage(undefined);
  }

  /** Prepends the page of history before the oldest record shown, while `hasMoreHistory`. */
  async loadOlder(): Promise<void> {
    const before = this.#log.firstId;
    if (!this.#conversationId || !this.#hasMore || this.#loadingHistory || !before) return;
    await this.#loadPage(before);
  }

  /** Starts a new conversation with the next message. */
  reset(): void {
    if (!this.#disposed) this.#clear(null);
  }

  clearError(): void {
    if (this.#error === null) return;
    this.#error = null;
    this.#changed();
  }

  /** Aborts every request and the stream; the store stays readable but does nothing more. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#abortAll();
    this.#listeners.clear();
    this.#events.clear();
  }

  #enqueue(outgoing: Outgoing, localId: string | undefined): Promise<SendResult | undefined> {
    const { signal } = this.#scope;
    this.#pendingSends++;
    this.#changed();
    const sent = this.#sendQueue.then(() => this.#dispatch(signal, outgoing, localId));
    this.#sendQueue = sent;
    return sent;
  }

  async #dispatch(
    signal: AbortSignal,
    outgoing: Outgoing,
    localId: string | undefined,
  ): Promise<SendResult | undefined> {
    if (signal.aborted) return undefined;
    // Behind a message in the outbox, a new one waits too: messages arrive in the order they were written.
    const ahead = localId !== undefined && this.#waiting.length > 0 && this.#waiting[0] !== localId;
    if (ahead && !this.#waiting.includes(localId)) {
      this.#log.markFailed(localId, 'waiting for an earlier message');
      this.#waiting.push(localId);
      return undefined;
    }
    outgoing.request ??= this.#request(outgoing.text, outgoing.options);
    const { request } = outgoing;
    try {
      const result = await this.#api.send(request, { signal, idempotencyKey: outgoing.key });
      if (signal.aborted) return undefined;
      // A stream that is not open resumes after the newest record seen before, so no gap is left.
      const resumeFrom = this.#log.lastId ?? result.userEventId;
      this.#adopt(result.conversationId);
      if (localId !== undefined) this.#waiting = this.#waiting.filter((id) => id !== localId);
      this.#stored(result, localId);
      this.#events.emit('message-sent', { request, result });
      void this.#openStream(resumeFrom);
      return result;
    } catch (err) {
      if (signal.aborted) return undefined;
      // A message the stream meanwhile showed as stored was delivered after all.
      if (localId === undefined || this.#log.markFailed(localId, readError(err).message)) {
        // Not answered (the service was not reached): it waits in the outbox, in the order it was written.
        if (localId !== undefined) {
          const unanswered = readError(err).status === undefined;
          if (unanswered && !this.#waiting.includes(localId)) this.#waiting.push(localId);
          // Refused by the service: its Retry is the visitor's, the outbox goes on without it.
          if (!unanswered) this.#waiting = this.#waiting.filter((id) => id !== localId);
        }
        this.#fail(err);
      }
      return undefined;
    } finally {
      if (!signal.aborted) {
        this.#pendingSends--;
        this.#changed();
      }
    }
  }

  #request(text: string, options: MessageFields): SendRequest {
    const request: SendRequest = { message: text, ...options };
    if (this.#conversationId) return { ...request, conversationId: this.#conversationId };
    // Without an id the service would continue the user's latest conversation, which this chat does not show.
    const agents = this.targetAgentIds;
    return { ...request, newConversation: true, ...(agents?.length ? { targetAgentIds: agents } : {}) };
  }

  /** Reconciles the sent message with what the service stored. */
  #stored(result: SendResult, localId: string | undefined): void {
    if (localId !== undefined) this.#outgoing.delete(localId);
    if (result.userMessage) {
      this.#ingest([result.userMessage], true, localId);
      return;
    }
    const { userEventId } = result;
    if (localId !== undefined) {
      if (!userEventId) this.#log.markSent(localId);
      else if (!this.#log.confirm(localId, userEventId)) return;
    }
    this.#log.openTurn(userEventId);
  }

  /** Applies records (the log moves the turn and the agents' statuses); a live one that ends the turn is told. */
  #ingest(records: readonly ChatStreamRecord[], live: boolean, localId?: string): void {
    let streamed = true;
    for (const record of records) {
      const { raw } = record;
      streamed &&= raw.type === 'assistant_delta' && this.#log.streamsText(raw.messageId);
      const applied = this.#log.apply(record, localId);
      // A `result` ends the turn shown only as the newest record; an older one is history.
      if (applied && live && raw.type === 'result' && this.#log.lastId === record.id) {
        this.#turnComplete(record, raw);
      }
    }
    this.#changed(streamed);
  }

  #turnComplete(record: ChatStreamRecord, raw: ResultRawEvent): void {
    const error = raw.subtype === 'error' ? raw.error || TURN_FAILED : undefined;
    if (error) {
      this.#error = error;
      this.#events.emit('error', { message: error, cause: raw });
    }
    this.#events.emit('turn-complete', {
      // Live records come from a send or the stream, both of a known conversation.
      conversationId: this.#conversationId!,
      turnId: record.turnId,
      subtype: raw.subtype,
      text: this.#log.turnText(record),
      ...(error ? { error } : {}),
    });
  }

  async #loadPage(before: string | undefined): Promise<void> {
    const conversationId = this.#conversationId!;
    const { signal } = this.#scope;
    this.#loadingHistory = true;
    this.#changed();
    try {
      const page = await this.#api.history(conversationId, {
        before,
        includeThinking: true,
        ...(this.#historyTurns ? { turns: this.#historyTurns } : {}),
        signal,
      });
      if (signal.aborted) return;
      this.#hasMore = page.hasMore;
      const records = [...page.entries].sort((a, b) => compareRecordIds(a.id, b.id));
      // A long page in slices, a task each, newest first (the log is order-independent): the end of the
      // conversation shows at once and no task blocks the page for the whole history. The first slice too
      // waits for a task: the page may have come in the task that mounts the chat.
      const long = records.length > HISTORY_SLICE;
      for (let end = records.length; end > 0; end -= HISTORY_SLICE) {
        if (long) {
          await new Promise<void>((next) => afterTask(next));
          if (signal.aborted) return;
        }
        this.#ingest(records.slice(Math.max(0, end - HISTORY_SLICE), end), false);
      }
      if (before === undefined) {
        this.#loadingLatest = false;
        // An open turn is replayed from its start: history leaves out the deltas streamed so far.
        void this.#openStream(this.#log.turnOpen ? this.#log.turnStart : undefined);
      }
    } catch (err) {
      if (signal.aborted) return;
      // A conversation that is gone (or never was this user's) is forgotten: the next message starts anew.
      if (before === undefined && readError(err).status === 404) this.#adopt(null);
      this.#fail(err);
    } finally {
      if (!signal.aborted) {
        this.#loadingHistory = false;
        this.#loadingLatest = false;
        this.#changed();
      }
    }
  }

  /** Reads the live records of the conversation unless already reading; resumes after `cursor` or the newest record. */
  async #openStream(cursor?: string): Promise<void> {
    const conversationId = this.#conversationId;
    if (this.#stream || this.#loadingLatest || !conversationId || this.#disposed) return;
    const signal = this.#scope.signal;
    this.#stream = signal;
    this.#setConnection('connecting');
    const onConnectionChange = (state: ConnectionState) => {
      if (this.#stream === signal) this.#setConnection(state);
    };
    try {
      const lastEventId = cursor ?? this.#log.lastId;
      const records = this.#api.stream(conversationId, { lastEventId, signal, onConnectionChange });
      for await (const record of records) {
        if (this.#stream !== signal) break;
        // A record proves the connection is open, whatever the client reported.
        this.#setConnection('open');
        this.#ingest([record], true);
      }
    } catch (err) {
      if (this.#stream === signal) this.#fail(err);
    } finally {
      if (this.#stream === signal) {
        this.#stream = undefined;
        this.#setConnection('idle');
      }
    }
  }

  #clear(conversationId: string | null): void {
    this.#abortAll();
    this.#resetState();
    this.#adopt(conversationId);
    this.#changed();
  }

  #resetState(): void {
    this.#log = new MessageLog();
    this.#outgoing = new Map();
    this.#pendingSends = 0;
    this.#connection = 'idle';
    this.#hasMore = false;
    this.#loadingHistory = false;
    this.#loadingLatest = false;
    this.#error = null;
    this.#sendQueue = Promise.resolve();
    this.#feedback = Object.freeze({});
    this.#waiting = [];
    this.#flushing = false;
  }

  #abortAll(): void {
    this.#scope.abort();
    this.#scope = new AbortController();
    this.#stream = undefined;
  }

  #adopt(conversationId: string | null): void {
    if (this.#conversationId === conversationId) return;
    this.#conversationId = conversationId;
    this.#events.emit('conversation-change', { conversationId });
  }

  #setConnection(state: ConnectionState): void {
    if (this.#connection === state) return;
    this.#connection = state;
    this.#changed();
  }

  #fail(err: unknown): void {
    const error = readError(err);
    this.#error = error.message;
    this.#events.emit('error', { ...error, cause: err });
    this.#changed();
  }

  /** `streamed`: the change only added streamed text (`streamedOnly`, for the changes of one notification). */
  #changed(streamed = false): void {
    this.#version++;
    this.#streamedOnly = streamed && (!this.#notifying || this.#streamedOnly);
    if (this.#notifying || this.#disposed) return;
    this.#notifying = true;
    afterTask(() => {
      this.#notifying = false;
      if (this.#disposed) return;
      for (const listener of [...this.#listeners]) listener();
    });
  }
}

/** The client's errors carry `message` (the service's `detail`) and `status`. */
function readError(err: unknown): { message: string; status?: number } {
  const { message, status } = (typeof err === 'object' && err !== null ? err : {}) as {
    message?: unknown;
    status?: unknown;
  };
  return {
    message: typeof message === 'string' && message ? message : String(err),
    ...(typeof status === 'number' ? { status } : {}),
  };
}
