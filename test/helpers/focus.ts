import { sendKeys } from '@web/test-runner-commands';

/** The element that has the focus, looked for inside shadow roots and same-origin frames. */
export function focused(doc: Document = document): Element | null {
  let active = doc.activeElement;
  for (;;) {
    if (active instanceof HTMLIFrameElement && active.contentDocument) active = active.contentDocument.activeElement;
    else if (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
    else return active;
  }
}

/** True when `node` is `ancestor` or inside it, across shadow roots. */
export function within(ancestor: Node, node: Node | null): boolean {
  for (let at = node; at; at = at.parentNode ?? (at as ShadowRoot).host ?? null) if (at === ancestor) return true;
  return false;
}

/** Presses a key as the visitor would (a real key event from the browser, not a synthetic one). */
export const press = (key: string) => sendKeys({ press: key });

/** Types text into whatever has the focus. */
export const type = (text: string) => sendKeys({ type: text });

/**
 * Presses Tab until the focused element satisfies `reached`, at most `max` times (a keyboard user's way to a
 * control); fails naming `what` when it was not reached.
 */
export async function tabTo(reached: (element: Element | null) => boolean, what: string, max = 40): Promise<Element> {
  for (let i = 0; i < max; i++) {
    await press('Tab');
    const element = focused();
    if (reached(element)) return element!;
  }
  throw new Error(`Tab did not reach ${what} in ${max} presses (focus is on ${nameOf(focused())})`);
}

/** `button[part=send-button]`: enough to tell in a failure message where the focus is. */
export function nameOf(element: Element | null): string {
  if (!element) return 'nothing';
  const part = element.getAttribute('part');
  return `${element.localName}${part ? `[part=${part}]` : ''}${element.id ? `#${element.id}` : ''}`;
}
