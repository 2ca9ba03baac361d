/** What the chat holds that Tab can reach, before the checks of {@link isTabStop}. */
const FOCUSABLE = 'a[href],button,input,select,textarea,summary,[tabindex]';

// No `instanceof`: the elements may belong to another window's realm (a chat in a frame).
const isTabStop = (element: Element): element is HTMLElement =>
  element.matches(FOCUSABLE) &&
  (element as HTMLElement).tabIndex >= 0 &&
  !(element as HTMLButtonElement).disabled &&
  element.checkVisibility();

/**
 * The elements Tab visits inside `root`, in order: through the shadow roots of the elements inside (the
 * cards, the markdown) and the elements slotted into them, as the browser walks the composed tree. The few
 * lines here stand in for the `tabbable` package (about 2.5 KB gzip), which the widget's size budget has no
 * room for; the widget sets no positive `tabindex`, so the order is the tree's.
 */
export function tabStops(root: Element): HTMLElement[] {
  const stops: HTMLElement[] = [];
  const visit = (element: Element) => {
    if (isTabStop(element)) stops.push(element);
    const children =
      element.shadowRoot?.children ??
      (element.localName === 'slot'
        ? (element as HTMLSlotElement).assignedElements({ flatten: true })
        : element.children);
    for (const child of children) visit(child);
  };
  visit(root);
  return stops;
}

/**
 * Keeps Tab and Shift+Tab inside `root` (a panel that covers the screen, a modal dialog in all but name):
 * from its last stop Tab goes to its first, and Shift+Tab from its first to its last. A native modal
 * `<dialog>` inside it (the image viewer) keeps the focus itself.
 */
export function trapTab(event: KeyboardEvent, root: Element): void {
  if (event.key !== 'Tab') return;
  const path = event.composedPath();
  if (path.some((node) => (node as Element).localName === 'dialog' && (node as HTMLDialogElement).open)) return;
  const stops = tabStops(root);
  const [first, last] = [stops[0], stops.at(-1)];
  if (!first || !last) return;
  const from = path[0];
  const to = event.shiftKey ? from === first && last : from === last && first;
  if (to) {
    event.preventDefault();
    to.focus();
  }
}
