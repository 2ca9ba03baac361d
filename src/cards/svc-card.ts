import { ContextConsumer } from '@lit/context';
import type { PropertyDeclarations, ReactiveController } from 'lit';
import { type CardClient, cardHostContext } from '../internal/context.js';
import { localize } from '../internal/localize.js';
import { SvcLocalizedElement } from '../internal/svc-localized-element.js';
import type { SendResult } from '../protocol/types.js';

/**
 * What every card shares: the client (its own `client` property, else the chat around it, through the
 * card-host context) and an optional theme of its own; the language of its labels and its direction come
 * from `SvcLocalizedElement`.
 */
export class SvcCard extends SvcLocalizedElement {
  static override properties: PropertyDeclarations = {
    client: { attribute: false },
    theme: { reflect: true },
  };

  /** A client (e.g. an `SvcClient`) for a card used alone; inside `<svc-chat>` the chat's is used. */
  declare client?: CardClient;
  /**
   * `light`, `dark` or `auto`: the card sets the design tokens itself. Unset, it inherits them (inside
   * `<svc-chat>` the chat's theme, on a page whatever `--svc-*` values apply, else the light defaults).
   */
  declare theme?: 'light' | 'dark' | 'auto';

  protected readonly language = localize(this);
  readonly #host = new ContextConsumer(this, { context: cardHostContext, subscribe: true });

  constructor() {
    super();
    this.addController(new KeepFocus(this));
  }

  /** The chat that provides this card, unless the card has a client of its own. */
  protected get chatHost() {
    return this.client ? undefined : this.#host.value;
  }

  protected get cardClient(): CardClient | undefined {
    return this.client ?? this.#host.value?.client;
  }
}

/**
 * When the control that had the focus leaves a card (the form once it is sent, the pay button once the order
 * is paid), the focus moves to the card's status line (`tabindex="-1"`), which says what happened, instead
 * of falling back to the page.
 */
class KeepFocus implements ReactiveController {
  #hadFocus = false;

  constructor(private readonly card: SvcCard) {}

  hostUpdate(): void {
    this.#hadFocus = !!this.card.shadowRoot?.activeElement;
  }

  hostUpdated(): void {
    if (this.#hadFocus && !this.card.shadowRoot?.activeElement) {
      this.card.shadowRoot?.querySelector<HTMLElement>('[part~=status]')?.focus();
    }
  }
}

/** Why a card answer was not sent. */
export class CardActionError extends Error {
  constructor(
    message: string,
    readonly reason: 'no-conversation' | 'failed',
  ) {
    super(message);
  }
}

/** A card the user answers with a `toolAction` message: a form whose fields are checked before it is sent. */
export class SvcAnswerCard extends SvcCard {
  static override properties: PropertyDeclarations = {
    conversationId: { attribute: 'conversation-id' },
    answered: { type: Boolean },
    _errors: { state: true },
    _busy: { state: true },
    _error: { state: true },
  };

  /** The conversation the card belongs to, when it is used alone with `client`. */
  declare conversationId?: string;
  /** The card was answered (e.g. seen in history), even when the answer is unknown. */
  answered = false;
  /** Why each field's value cannot be sent; a field without one can. */
  _errors: Record<string, string | undefined> = {};
  /** The answer is being sent. */
  _busy = false;
  /** Why the answer was not sent, as the card says it. */
  _error = '';

  /** True when an answer can reach the agent: inside a chat, or alone with a client and a conversation. */
  protected get canAnswer(): boolean {
    return this.chatHost ? true : !!(this.client && this.conversationId);
  }

  /**
   * Sends a card action (`toolAction: true` with `metadata`): through the chat around the card, or with
   * the card's own client into `conversationId`. Throws a {@link CardActionError} when it was not sent.
   */
  protected async sendAction(message: string, metadata: Record<string, unknown>): Promise<SendResult> {
    const host = this.chatHost;
    if (host) {
      const result = await host.send(message, { toolAction: true, metadata });
      if (!result) throw new CardActionError('the chat could not send it', 'failed');
      return result;
    }
    if (!this.client || !this.conversationId) throw new CardActionError('no conversation', 'no-conversation');
    try {
      return await this.client.chat.send({ message, conversationId: this.conversationId, toolAction: true, metadata });
    } catch (err) {
      throw new CardActionError(err instanceof Error ? err.message : String(err), 'failed');
    }
  }
}
