import { expect } from '@open-wc/testing';

/**
 * The one-tag embed as a page has it (`<script src=".../svc-chat.js">`, the built file of `npm run build`): the
 * launcher paints from that one request, with nothing loaded in a row after it (issue 43). In a frame of its own, so
 * that its Resource Timing holds only the embed's files. The page records when the launcher is first laid out, in
 * the frame it is (its own `requestAnimationFrame` poll, set before the script, runs before any the launcher asks
 * for), and which scripts were asked for before then.
 */
const PAGE = `<!doctype html><meta charset="utf-8"><body>
<script>
  const poll = () => {
    const launcher = document.querySelector('svc-chat')?.shadowRoot?.querySelector('[part~=launcher]');
    if (!launcher || launcher.getBoundingClientRect().width === 0) return requestAnimationFrame(poll);
    const painted = performance.now();
    window.scriptsBeforeLauncher = performance
      .getEntriesByType('resource')
      .filter((entry) => entry.startTime <= painted && new URL(entry.name).pathname.endsWith('.js'))
      .map((entry) => new URL(entry.name).pathname);
  };
  requestAnimationFrame(poll);
</script>
<svc-chat mode="launcher"></svc-chat>
<script src="/dist/svc-chat.js"></script>`;

describe('the classic script tag (dist/svc-chat.js)', () => {
  it('shows the launcher from one request: the script itself, nothing after it', async () => {
    const frame = document.createElement('iframe');
    frame.srcdoc = PAGE;
    document.body.append(frame);
    try {
      const view = frame.contentWindow as Window & { scriptsBeforeLauncher?: string[] };
      await new Promise<void>((resolve) => {
        const wait = () => (view.scriptsBeforeLauncher ? resolve() : requestAnimationFrame(wait));
        wait();
      });
      expect(view.scriptsBeforeLauncher).to.deep.equal(['/dist/svc-chat.js']);
      // The classic script set `window.Svc` with the launcher's class and `load()` at once.
      expect(view.customElements.get('svc-chat')).to.equal((view as { Svc?: { SvcChat?: unknown } }).Svc?.SvcChat);
    } finally {
      frame.remove();
    }
  });
});
