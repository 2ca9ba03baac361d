import { createContext } from '@lit/context';
import type { MessageFields } from '../chat/chat-message.js';
import type { ChatClient } from '../client/chat.js';
import type { PaymentsClient } from '../client/payments.js';
import type { SendResult } from '../protocol/types.js';

/** The client parts the cards call. An `SvcClient` is one. */
export interface CardClient {
  chat: ChatClient;
  payments: PaymentsClient;
}

/** What `<svc-chat>` provides to the cards it renders. */
export interface CardHost {
  client: CardClient;
  /**
   * Sends a card's answer through the chat's store, so the card shows answered at once and the agent's
   * reply streams into the chat. Resolves to `undefined` when the send failed (the chat shows why).
   */
  send(text: string, options: MessageFields): Promise<SendResult | undefined>;
}

/**
 * The context key of the card host. `<svc-chat>` provides it; each card consumes it with `subscribe: true`
 * and uses it unless its own `client` property is set, so one card works inside the chat and alone.
 */
export const cardHostContext = createContext<CardHost | undefined>(Symbol('svc-card-host'));
