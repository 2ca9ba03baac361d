/** Every element under `root`, into every shadow root. */
function* deep(root: ParentNode): Generator<Element> {
  for (const el of root.querySelectorAll('*')) {
    yield el;
    if (el.shadowRoot) yield* deep(el.shadowRoot);
  }
}

/**
 * Resolves once every image under `roots` has loaded or failed and the load and error events already queued
 * have run: the moments an `onload` or `onerror` payload that survived sanitizing would have run. (Images are
 * the only loading elements sanitized content keeps.)
 */
export async function loadsSettled(...roots: ParentNode[]): Promise<void> {
  const images = roots.flatMap((root) => [...deep(root)]).filter((el) => el instanceof HTMLImageElement);
  await Promise.all(
    images
      .filter((image) => !image.complete)
      .map(
        (image) =>
          new Promise((settle) => {
            image.addEventListener('load', settle, { once: true });
            image.addEventListener('error', settle, { once: true });
          }),
      ),
  );
  // Images that completed earlier have their events queued already: a broken image's error event comes after them.
  const sentinel = new Image();
  await new Promise((settle) => {
    sentinel.onerror = settle;
    sentinel.src = 'data:,';
  });
}
