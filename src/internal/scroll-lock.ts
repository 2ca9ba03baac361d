/** What the lock changed on `body`, to put back as it was. */
const LOCKED = ['position', 'top', 'left', 'right', 'overflow'] as const;
const saved = new WeakMap<Document, { x: number; y: number; style: string[] }>();

/**
 * Keeps the page behind a full-screen dialog from scrolling (a phone's touch or wheel over the dialog would
 * otherwise scroll it): `body` is fixed where the page was, and on release the page is scrolled back there.
 * Through the CSSOM, which a strict CSP allows. Idempotent per document.
 */
export function lockPageScroll(doc: Document, lock: boolean): void {
  const body = doc.body;
  const win = doc.defaultView;
  const was = saved.get(doc);
  if (!body || !win || lock === !!was) return;
  if (lock) {
    const x = win.scrollX;
    const y = win.scrollY;
    saved.set(doc, { x, y, style: LOCKED.map((name) => body.style[name]) });
    Object.assign(body.style, { position: 'fixed', top: `${-y}px`, left: `${-x}px`, right: '0', overflow: 'hidden' });
  } else if (was) {
    saved.delete(doc);
    LOCKED.forEach((name, i) => {
      body.style[name] = was.style[i]!;
    });
    win.scrollTo(was.x, was.y);
  }
}
