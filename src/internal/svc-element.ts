import { LitElement } from 'lit';

/** Names of the events declared in `GlobalEventHandlersEventMap` as `CustomEvent`s (every `svc-*` event). */
export type SvcEventName = {
  [K in keyof GlobalEventHandlersEventMap]: GlobalEventHandlersEventMap[K] extends CustomEvent ? K : never;
}[keyof GlobalEventHandlersEventMap];

/** The `detail` type of a declared custom event. */
export type SvcEventDetail<K extends SvcEventName> =
  GlobalEventHandlersEventMap[K] extends CustomEvent<infer D> ? D : never;

/**
 * The base of every `svc-*` element. Declare an element's events in `GlobalEventHandlersEventMap`
 * (`'svc-copy': CustomEvent<{ text: string }>`) and `emit` is typed by that declaration.
 */
export class SvcElement extends LitElement {
  /** Registers the element; a second registration (the script loaded twice) is ignored instead of throwing. */
  static define(tag: string): void {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass being registered.
    if (!customElements.get(tag)) customElements.define(tag, this);
  }

  /**
   * Dispatches a bubbling, composed event and returns it, so a cancelable "request" event can be checked
   * with `defaultPrevented`.
   */
  emit<K extends SvcEventName>(
    name: K,
    detail: SvcEventDetail<K>,
    options: { cancelable?: boolean } = {},
  ): CustomEvent<SvcEventDetail<K>> {
    const event = new CustomEvent(name, { bubbles: true, composed: true, cancelable: !!options.cancelable, detail });
    this.dispatchEvent(event);
    return event;
  }
}
