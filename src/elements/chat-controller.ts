import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { ChatStore } from '../chat/chat-store.js';

/**
 * Connects a {@link ChatStore} to a Lit element: the element re-renders when the store changes (at most
 * once per task), and the store is disposed with the element or when another store replaces it.
 */
export class ChatController implements ReactiveController {
  store?: ChatStore;
  #unsubscribe?: () => void;

  constructor(private readonly host: ReactiveControllerHost) {
    host.addController(this);
  }

  attach(store: ChatStore): void {
    this.detach();
    this.store = store;
    this.#unsubscribe = store.subscribe(() => this.host.requestUpdate());
    this.host.requestUpdate();
  }

  detach(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    this.store?.dispose();
    this.store = undefined;
  }

  hostDisconnected(): void {
    this.detach();
  }
}
