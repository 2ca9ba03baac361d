/** Width and height of the phone (CSS pixels): a common Android size. */
export const PHONE = { width: 360, height: 640 };

/**
 * A phone-sized page in an iframe of the test page, with the elements loaded and `body` in it. The frame is a
 * viewport of its own, so the widget lays itself out as on a phone: the one way to a small viewport that the
 * launchers of all three engines support (WebDriver has no `setViewport` command).
 */
export async function phonePage(body: string): Promise<{ frame: HTMLIFrameElement; doc: Document }> {
  const frame = document.createElement('iframe');
  frame.title = 'phone';
  frame.style.cssText = `display: block; width: ${PHONE.width}px; height: ${PHONE.height}px; border: 0`;
  frame.srcdoc = `<!doctype html><html lang="en"><head><meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <script type="module" src="/src/elements.ts"></script></head>
    <body style="margin: 0; font: 16px system-ui">${body}</body></html>`;
  const loaded = new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
  document.body.append(frame);
  await loaded;
  const win = frame.contentWindow!;
  await win.customElements.whenDefined('svc-chat');
  return { frame, doc: frame.contentDocument! };
}
