/** Names of the events declared in `GlobalEventHandlersEventMap` as `CustomEvent`s (every `svc-*` event). */
export type SvcEventName = {
  [K in keyof GlobalEventHandlersEventMap]: GlobalEventHandlersEventMap[K] extends CustomEvent ? K : never;
}[keyof GlobalEventHandlersEventMap];

/** The `detail` type of a declared custom event. */
export type SvcEventDetail<K extends SvcEventName> =
  GlobalEventHandlersEventMap[K] extends CustomEvent<infer D> ? D : never;

/** The event of a declared name. */
export type SvcEvent<K extends SvcEventName> = CustomEvent<SvcEventDetail<K>>;

/**
 * How an event is dispatched: `cancelable` for a "request" the listener may refuse; `composed: false` for one
 * that stays inside the shadow root it is dispatched in (between an element and the one that hosts it).
 */
export interface EmitOptions {
  cancelable?: boolean;
  composed?: boolean;
}

/**
 * Dispatches a bubbling, composed event from `target` and returns it, so a cancelable "request" event can be
 * checked with `defaultPrevented`: what every element's `emit` does.
 */
export function emit<K extends SvcEventName>(
  target: EventTarget,
  name: K,
  detail: SvcEventDetail<K>,
  options: EmitOptions = {},
): SvcEvent<K> {
  const { cancelable = false, composed = true } = options;
  const event = new CustomEvent(name, { bubbles: true, composed, cancelable, detail });
  target.dispatchEvent(event);
  return event;
}

/** An element that emits the declared events (every `svc-*` element). */
export interface SvcEmitter extends HTMLElement {
  emit<K extends SvcEventName>(name: K, detail: SvcEventDetail<K>, options?: EmitOptions): SvcEvent<K>;
}
