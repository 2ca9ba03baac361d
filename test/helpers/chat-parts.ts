/**
 * Where a test finds what an element shows: its shadow root and, for `<svc-chat>`, that of its panel
 * (`<svc-chat-panel>`, whose parts the chat exports), once the panel has arrived. The launcher and the loading
 * state are in the chat's own root; the header, the conversation and the composer in the panel's.
 */
export function shadowRoots(el: Element): ShadowRoot[] {
  // An element not upgraded yet (the script tag's module graph still on its way) shows nothing.
  const own = el.shadowRoot;
  if (!own) return [];
  const panel = own.querySelector('svc-chat-panel')?.shadowRoot;
  return panel ? [own, panel] : [own];
}

/** The root the chat's conversation renders in: the panel's once it has arrived, else the chat's own. */
export const panelRoot = (el: Element): ShadowRoot => shadowRoots(el).at(-1)!;

/** The first element matching `selector` in what `el` shows. */
export function inShadow<T extends Element = HTMLElement>(el: Element, selector: string): T | null {
  for (const root of shadowRoots(el)) {
    const found = root.querySelector<T>(selector);
    if (found) return found;
  }
  return null;
}

/** Every element matching `selector` in what `el` shows. */
export const allInShadow = <T extends Element = HTMLElement>(el: Element, selector: string): T[] =>
  shadowRoots(el).flatMap((root) => [...root.querySelectorAll<T>(selector)]);

export const part = <T extends Element = HTMLElement>(el: Element, name: string) =>
  inShadow<T>(el, `[part~="${name}"]`);

export const parts = <T extends Element = HTMLElement>(el: Element, name: string) =>
  allInShadow<T>(el, `[part~="${name}"]`);

/** How far the end of the conversation is below the view of `list` (its `messages` part), in pixels. */
export const belowView = (list: HTMLElement) => list.scrollHeight - list.scrollTop - list.clientHeight;
