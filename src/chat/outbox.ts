import type { SendRequest, SendResult } from '../protocol/conversation-types.js';
import type { MessageFields } from './chat-message.js';
import type { ChatState } from './chat-state.js';

/**
 * A message as it is sent, the first time and on every retry: one `Idempotency-Key` and, once sent, one
 * request for all of them (a retry goes where the first try went, so the service can answer it with that).
 */
export interface Outgoing {
  text: string;
  options: MessageFields;
  key: string;
  request?: SendRequest;
}

/** A message of the outbox as it can be kept across a reload (`Outbox.messages`, `Outbox.restore`). */
export type OutboxMessage = Readonly<Outgoing>;

/** Where an outbox is kept across a reload: one string (`<svc-chat persist>` keeps it for the tab). */
export interface OutboxSlot {
  load(): string | undefined;
  save(value: string | null): void;
}

/**
 * The visitor's messages the service has not stored: each with the key and request it is sent under every
 * time (`get`, for a retry), and the outbox proper, the messages that did not reach the service (no answer),
 * oldest first. A message sent while one waits waits behind it, so they arrive in the order written; `send`
 * sends them, each under its first key, so one the service stored meanwhile is not stored twice. `keepIn`
 * keeps them across a reload.
 */
export class Outbox {
  readonly #outgoing = new Map<string, Outgoing>();
  #waiting: string[] = [];
  #sending = false;

  readonly #state: ChatState;
  readonly #resend: (localId: string) => Promise<SendResult | undefined>;

  /** `resend`: sends a failed message again (the store's `retry`); undefined when it was not stored. */
  constructor(state: ChatState, resend: (localId: string) => Promise<SendResult | undefined>) {
    this.#state = state;
    this.#resend = resend;
  }

  /** The ids of the messages in the outbox, oldest first: not sent because the service was not reached. */
  get ids(): readonly string[] {
    return this.#waiting;
  }

  /** The outbox's messages, oldest first, as `restore` takes them back (plain data: they can be stored). */
  get messages(): OutboxMessage[] {
    return this.#waiting.flatMap((id) => this.#outgoing.get(id) ?? []);
  }

  /** The message shown as `localId`, as it is sent every time; undefined once stored. */
  get(localId: string): Outgoing | undefined {
    return this.#outgoing.get(localId);
  }

  /** A message is shown, to be sent as `outgoing`. */
  add(localId: string, outgoing: Outgoing): void {
    this.#outgoing.set(localId, outgoing);
  }

  /**
   * Whether message `localId`, about to be sent, waits behind older messages of the outbox instead (shown as
   * waiting): messages arrive in the order they were written. `afterReply`: it waits for the running reply to
   * end in any case, and the outbox sends it then.
   */
  holds(localId: string, afterReply = false): boolean {
    const waiting = this.#waiting;
    if (waiting.includes(localId) || (!afterReply && (!waiting.length || waiting[0] === localId))) return false;
    this.#state.log.markFailed(localId, 'waiting for an earlier message');
    waiting.push(localId);
    if (afterReply) void this.send();
    return true;
  }

  /** The service stored the message: it leaves the outbox. */
  stored(localId: string): void {
    this.#outgoing.delete(localId);
    this.#waiting = this.#waiting.filter((id) => id !== localId);
  }

  /**
   * A try failed. Not answered (the service was not reached): it waits in the outbox, in the order it was
   * written. Refused by the service: its Retry is the visitor's, and the outbox goes on without it.
   */
  failed(localId: string, answered: boolean): void {
    if (answered) this.#waiting = this.#waiting.filter((id) => id !== localId);
    else if (!this.#waiting.includes(localId)) this.#waiting.push(localId);
  }

  /**
   * Puts messages kept from an earlier page (`messages`) back in the outbox, after what it holds, shown as
   * waiting; `send` sends them under their first keys. Call it once the conversation they were written in is
   * shown.
   */
  restore(messages: readonly OutboxMessage[]): void {
    if (this.#state.disposed) return;
    const known = new Set(this.messages.map((m) => m.key));
    for (const message of messages) {
      if (known.has(message.key)) continue;
      const localId = this.#state.log.addLocal({ ...message.options, text: message.text });
      this.#state.log.markFailed(localId, 'waiting to be sent');
      this.#outgoing.set(localId, { ...message });
      this.#waiting.push(localId);
    }
    this.#state.changed();
  }

  /**
   * Sends the outbox, oldest first, each under the key of its first try (the service stores each once, even
   * one whose answer was lost); stops at the first that still cannot be sent. Each goes once the reply to the
   * one before it ended, as a visitor's would: the service takes no message while a reply runs. Called when
   * the service answers again; a second call while one runs does nothing.
   */
  async send(): Promise<void> {
    if (this.#sending || this.#state.disposed) return;
    this.#sending = true;
    try {
      while (this.#waiting.length) {
        await this.#state.replyEnded();
        const next = this.#waiting[0];
        if (next === undefined || this.#state.signal.aborted) return;
        if (!(await this.#resend(next)) && this.#waiting[0] === next) return;
      }
    } finally {
      this.#sending = false;
    }
  }

  /**
   * Keeps the outbox in `slot` for the page after a reload. What the slot holds comes back with `restore`, to
   * call once the conversation is shown: put back and sent if it was written in that conversation. From then
   * on every change is written (a reload before that keeps what was there). `stop` ends the keeping.
   */
  keepIn(slot: OutboxSlot): { restore(): void; stop(): void } {
    const earlier = readKept(slot.load());
    let kept: string | undefined;
    let restored = false;
    const save = () => {
      const { conversationId } = this.#state;
      const now = this.#waiting.length ? JSON.stringify({ conversationId, messages: this.messages }) : undefined;
      if (restored && now !== kept) {
        kept = now;
        slot.save(now ?? null);
      }
    };
    const restore = () => {
      restored = true;
      if (!earlier.messages.length || earlier.conversationId !== this.#state.conversationId) return save();
      this.restore(earlier.messages);
      void this.send();
    };
    return { restore, stop: this.#state.subscribe(save) };
  }

  /** Another conversation is shown: its messages are not this one's. */
  clear(): void {
    this.#outgoing.clear();
    this.#waiting = [];
    this.#sending = false;
  }
}

/** The outbox a page before this one kept (`{ conversationId, messages }`); nothing when it is unreadable. */
function readKept(json: string | undefined): { conversationId: string | null; messages: OutboxMessage[] } {
  try {
    const kept = json ? JSON.parse(json) : undefined;
    if (Array.isArray(kept?.messages)) return kept;
  } catch {
    // Storage written by something else: nothing to restore.
  }
  return { conversationId: null, messages: [] };
}
