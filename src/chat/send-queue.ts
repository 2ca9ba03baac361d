import { idempotencyKey } from '../client/idempotency.js';
import { sendAnswer } from '../client/page-tools.js';
import type {
  ClientToolDeclaration,
  InterruptResult,
  SendRequest,
  SendResult,
} from '../protocol/conversation-types.js';
import type { MessageFields } from './chat-message.js';
import { type ChatState, readError } from './chat-state.js';
import type { ConversationReader } from './conversation-reader.js';
import type { Outbox, Outgoing } from './outbox.js';

/** A request that stores a visitor's message and starts a turn: a send, a regenerate, an edit. */
type Ask = (conversationId: string, opts: { signal: AbortSignal; idempotencyKey: string }) => Promise<SendResult>;

/**
 * The visitor's messages to the service, one at a time (the first message of a new conversation must create it
 * before the next): each shown at once, sent under its key, reconciled with what the service stored, and the
 * reply read after it; also asking the last message again (regenerate, edit) and stopping the reply.
 */
export class SendQueue {
  /** Messages being sent: a chat shows a stop button meanwhile. One queue per conversation shown. */
  #pending = 0;
  #queue: Promise<unknown> = Promise.resolve();

  readonly #state: ChatState;
  readonly #outbox: Outbox;
  readonly #reader: ConversationReader;
  readonly #agents: () => string[] | undefined;
  readonly #tools: () => ClientToolDeclaration[] | undefined;

  /**
   * `agents`: the agents of a new conversation (the store's `targetAgentIds`); `tools`: the page's tools each
   * request offers the model (the store's `clientTools`).
   */
  constructor(
    state: ChatState,
    outbox: Outbox,
    reader: ConversationReader,
    agents: () => string[] | undefined,
    tools: () => ClientToolDeclaration[] | undefined,
  ) {
    this.#state = state;
    this.#outbox = outbox;
    this.#reader = reader;
    this.#agents = agents;
    this.#tools = tools;
  }

  /** The page's tools a request offers: left out of the body when the page gives none. */
  clientTools(): { clientTools?: ClientToolDeclaration[] } {
    const tools = this.#tools();
    return tools?.length ? { clientTools: tools } : {};
  }

  get pending(): number {
    return this.#pending;
  }

  async send(text: string, options: MessageFields): Promise<SendResult | undefined> {
    if (this.#state.disposed || (!text.trim() && !options.parts?.length && !options.toolAction)) return undefined;
    const outgoing: Outgoing = { text, options, key: idempotencyKey() };
    let localId: string | undefined;
    if (!options.toolAction) {
      localId = this.#state.log.addLocal({ ...options, text });
      this.#outbox.add(localId, outgoing);
    }
    const behind = this.#outbox.ids.length > 0;
    return this.#enqueue((signal) => this.#message(signal, outgoing, localId, behind));
  }

  async retry(localId: string): Promise<SendResult | undefined> {
    const outgoing = this.#outbox.get(localId);
    if (!outgoing || !this.#state.log.markRetrying(localId)) return undefined;
    return this.#enqueue((signal) => this.#message(signal, outgoing, localId));
  }

  /**
   * Asks the conversation's last message again with `ask` (the service's regenerate or edit), `request` being
   * what the page hears was sent. Undefined when nothing could be asked (no conversation, a reply runs).
   */
  async askAgain(ask: Ask, request: (conversationId: string) => SendRequest): Promise<SendResult | undefined> {
    const { conversationId } = this.#state;
    if (!conversationId || this.#state.disposed || this.#pending > 0 || this.#state.log.turn.open) return undefined;
    return this.#enqueue(async (signal) => {
      try {
        const result = await ask(conversationId, { signal, idempotencyKey: idempotencyKey() });
        if (!signal.aborted) this.#sent(request(conversationId), result, undefined);
        return signal.aborted ? undefined : result;
      } catch (err) {
        if (!signal.aborted) this.#state.fail(err);
        return undefined;
      }
    });
  }

  /** Stops the running reply (after a message still being sent is stored); the stream reports the end. */
  async interrupt(): Promise<InterruptResult | undefined> {
    const state = this.#state;
    const { signal } = state;
    await this.#queue;
    const { conversationId } = state;
    if (signal.aborted || !conversationId) return undefined;
    try {
      const result = await state.api.interrupt(conversationId, { signal });
      if (!signal.aborted && !result.interrupted && state.log.turn.open) {
        // Nothing runs on the service: the end of the turn was missed.
        state.log.turn.end();
        state.changed();
      }
      return result;
    } catch (err) {
      if (!signal.aborted) state.fail(err);
      return undefined;
    }
  }

  #enqueue(request: (signal: AbortSignal) => Promise<SendResult | undefined>): Promise<SendResult | undefined> {
    const state = this.#state;
    const { signal } = state;
    this.#pending++;
    state.changed();
    const done = this.#queue.then(async () => {
      try {
        return signal.aborted ? undefined : await request(signal);
      } finally {
        if (!signal.aborted) {
          this.#pending--;
          state.changed();
        }
      }
    });
    this.#queue = done;
    return done;
  }

  /** `behind`: written while messages waited in the outbox. */
  async #message(
    signal: AbortSignal,
    outgoing: Outgoing,
    localId: string | undefined,
    behind = false,
  ): Promise<SendResult | undefined> {
    const state = this.#state;
    const outbox = this.#outbox;
    // Behind a message in the outbox, a new one waits too: messages arrive in the order they were written. One
    // written behind them finds them stored by now, and the reply to the last running: it waits for its end.
    if (localId !== undefined && outbox.holds(localId, behind && state.log.turn.open)) return undefined;
    outgoing.request ??= this.#request(outgoing.text, outgoing.options);
    const { request } = outgoing;
    try {
      const post = () => state.api.send(request, { signal, idempotencyKey: outgoing.key });
      // A page tool's answer has no outbox: it is tried again while the service is busy or away.
      const result = await (request.metadata?.clientTool ? sendAnswer(post, signal) : post());
      if (signal.aborted) return undefined;
      if (localId !== undefined) outbox.stored(localId);
      this.#sent(request, result, localId);
      return result;
    } catch (err) {
      if (signal.aborted) return undefined;
      // A message the stream meanwhile showed as stored was delivered after all.
      if (localId !== undefined && !state.log.markFailed(localId, readError(err).message)) return undefined;
      if (localId !== undefined) outbox.failed(localId, readError(err).status !== undefined);
      state.fail(err);
      return undefined;
    }
  }

  #request(text: string, options: MessageFields): SendRequest {
    const request: SendRequest = { message: text, ...options, ...this.clientTools() };
    const { conversationId } = this.#state;
    if (conversationId) return { ...request, conversationId };
    // Without an id the service would continue the user's latest conversation, which this chat does not show.
    const agents = this.#agents();
    return { ...request, newConversation: true, ...(agents?.length ? { targetAgentIds: agents } : {}) };
  }

  /** The service stored `request` (as the message shown as `localId`): shown as stored, and its reply read. */
  #sent(request: SendRequest, result: SendResult, localId: string | undefined): void {
    const state = this.#state;
    const { log } = state;
    // A stream that is not open resumes after the newest record seen before, so no gap is left.
    const resumeFrom = log.lastId ?? result.userEventId;
    state.adopt(result.conversationId);
    if (result.userMessage) state.apply([result.userMessage], true, localId);
    else if (localId === undefined || !result.userEventId) {
      if (localId !== undefined) log.markSent(localId);
      log.turn.begin(result.userEventId);
    } else if (log.confirm(localId, result.userEventId)) log.turn.begin(result.userEventId);
    state.events.emit('message-sent', { request, result });
    void this.#reader.live(resumeFrom);
  }
}
