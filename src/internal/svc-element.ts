import { LitElement } from 'lit';
import { type EmitOptions, emit, type SvcEvent, type SvcEventDetail, type SvcEventName } from './emit.js';

export type { SvcEventDetail, SvcEventName } from './emit.js';

/**
 * The base of every `svc-*` element but `<svc-chat>` (`svc-plain-element.ts`). Declare an element's events in
 * `GlobalEventHandlersEventMap` (`'svc-copy': CustomEvent<{ text: string }>`) and `emit` is typed by that
 * declaration.
 */
export class SvcElement extends LitElement {
  /** Registers the element; a second registration (the script loaded twice) is ignored instead of throwing. */
  static define(tag: string): void {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass being registered.
    if (globalThis.customElements && !customElements.get(tag)) customElements.define(tag, this);
  }

  /** Dispatches a bubbling, composed event and returns it (`emit.ts`). */
  emit<K extends SvcEventName>(name: K, detail: SvcEventDetail<K>, options?: EmitOptions): SvcEvent<K> {
    return emit(this, name, detail, options);
  }
}
