import type { Feedback, FeedbackRating } from '../protocol/types.js';
import type { ChatState } from './chat-state.js';

/** The visitor's feedback on a reply, as a chat shows it. */
export interface ReplyFeedback {
  rating: FeedbackRating;
  reason: string | null;
}

/**
 * The visitor's feedback on the replies of the conversation shown, by message id: what they gave, and what the
 * service kept. One per conversation shown.
 */
export class FeedbackState {
  #given: Readonly<Record<string, ReplyFeedback>> = Object.freeze({});

  readonly #state: ChatState;

  constructor(state: ChatState) {
    this.#state = state;
  }

  get given(): Readonly<Record<string, ReplyFeedback>> {
    return this.#given;
  }

  /** Shown at once, then stored by the service; what was shown before comes back if that fails. */
  async set(messageId: string, rating: FeedbackRating, reason?: string): Promise<Feedback | undefined> {
    const state = this.#state;
    const { conversationId, signal } = state;
    if (!conversationId || !state.api.setFeedback || state.disposed) return undefined;
    const before = this.#given;
    const text = reason?.trim();
    this.#given = Object.freeze({ ...before, [messageId]: { rating, reason: text || null } });
    state.changed();
    try {
      const stored = await state.api.setFeedback(
        conversationId,
        messageId,
        text ? { rating, reason: text } : { rating },
        {
          signal,
        },
      );
      if (signal.aborted) return undefined;
      state.events.emit('feedback', stored);
      return stored;
    } catch (err) {
      if (signal.aborted) return undefined;
      this.#given = before;
      state.fail(err);
      return undefined;
    }
  }

  /** The visitor's feedback in the conversation just shown, kept by the service: shown again after a reload. */
  async load(): Promise<void> {
    const state = this.#state;
    const { conversationId, signal } = state;
    if (!conversationId || !state.api.feedback) return;
    try {
      const { feedback } = await state.api.feedback(conversationId, { signal });
      if (signal.aborted) return;
      const kept = Object.fromEntries(feedback.map((f) => [f.messageId, { rating: f.rating, reason: f.reason }]));
      // What the visitor gave meanwhile wins.
      this.#given = Object.freeze({ ...kept, ...this.#given });
      state.changed();
    } catch {
      // Feedback shown again is a nicety: the conversation works without it.
    }
  }
}
