import type { Context, ContextCallback } from '@lit/context';
import type { ReactiveController, ReactiveControllerHost } from 'lit';

/**
 * The two ends of the web components community's context protocol (a bubbling `context-request` event that
 * a provider answers), as `@lit/context` speaks it: a page may still provide `cardHostContext` with
 * `@lit/context`'s own provider. Written here because the chat needs only this much of it, and the library
 * would add 1.5 KB gzip to the script-tag bundle.
 */

/** What `@lit/context`'s `ContextRequestEvent` carries; providers read only these fields, so an `Event` with them will do. */
interface ContextRequestEvent<T> extends Event {
  context: Context<unknown, T>;
  contextTarget: Element;
  callback: ContextCallback<T>;
  subscribe: boolean;
}

/** Answers the requests for `context` from inside `host`, and tells the subscribers of every new value. */
export class ContextProvider<T> {
  #value?: T;
  /** Each subscriber's own unsubscribe, the same one every time (a consumer takes a new one for a new provider). */
  readonly #subscribers = new Map<ContextCallback<T | undefined>, () => void>();

  constructor(host: Element, context: Context<unknown, T | undefined>) {
    host.addEventListener('context-request', (event) => {
      const request = event as ContextRequestEvent<T | undefined>;
      if (request.context !== context || request.contextTarget === host) return;
      event.stopPropagation();
      const { callback } = request;
      if (!request.subscribe) return callback(this.#value);
      if (!this.#subscribers.has(callback)) this.#subscribers.set(callback, () => this.#subscribers.delete(callback));
      callback(this.#value, this.#subscribers.get(callback));
    });
  }

  setValue(value: T | undefined): void {
    if (value === this.#value) return;
    this.#value = value;
    for (const [callback, unsubscribe] of this.#subscribers) callback(value, unsubscribe);
  }
}

/** Subscribes `host` to the nearest provider of `context` while it is connected; `value` is the latest. */
export class ContextConsumer<T> implements ReactiveController {
  value?: T;
  #unsubscribe?: () => void;

  constructor(
    private readonly host: ReactiveControllerHost & Element,
    private readonly context: Context<unknown, T | undefined>,
  ) {
    host.addController(this);
  }

  hostConnected(): void {
    const request = { context: this.context, contextTarget: this.host, callback: this.#receive, subscribe: true };
    this.host.dispatchEvent(Object.assign(new Event('context-request', { bubbles: true, composed: true }), request));
  }

  hostDisconnected(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  readonly #receive = (value: T | undefined, unsubscribe?: () => void): void => {
    // A value from another provider (the card moved): leave the one it had.
    if (this.#unsubscribe !== unsubscribe) this.#unsubscribe?.();
    this.#unsubscribe = unsubscribe;
    this.value = value;
    this.host.requestUpdate();
  };
}
