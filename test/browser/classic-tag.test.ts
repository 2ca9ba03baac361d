import { expect } from '@open-wc/testing';
import { mintVisitorSession, service, until } from '../helpers/browser-service.js';
import { part } from '../helpers/chat-parts.js';

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

  it("shows the classic launcher's language, labels, theme and tokens in the panel it loads", async () => {
    const { url } = await service();
    const { token } = await mintVisitorSession();
    const frame = document.createElement('iframe');
    frame.style.cssText = 'width: 800px; height: 700px';
    frame.srcdoc = `<!doctype html><meta charset="utf-8"><body>
<svc-chat mode="launcher" lang="zh-CN" theme="dark" base-url="${url}" token="${token}"></svc-chat>
<script src="/dist/svc-chat.js"></script>`;
    document.body.append(frame);
    try {
      const view = frame.contentWindow as Window & { Svc?: Record<string, unknown> };
      const chat = await until(
        () => view.document?.querySelector('svc-chat')?.shadowRoot && view.document.querySelector('svc-chat'),
        'the launcher',
      );
      Object.assign(chat, { labels: { title: 'Ask us' }, tokens: { colorPrimary: 'rgb(0, 128, 128)' } });
      // The launcher's own copy of the languages loaded Chinese for its button.
      const launcher = await until(() => part(chat, 'launcher'), 'the launcher button');
      await until(() => launcher.getAttribute('aria-label') === '打开对话', 'the launcher in Chinese');
      launcher.click();
      // The panel's copy of the same modules shows what the launcher was given. Read in the panel's own root: the
      // launcher's loading state, shown until the panel arrives, has a title and a field too.
      const inPanel = <T extends Element>(name: string) =>
        chat.shadowRoot!.querySelector('svc-chat-panel')?.shadowRoot?.querySelector<T>(`[part~="${name}"]`);
      const input = await until(() => inPanel<HTMLTextAreaElement>('input'), 'the panel');
      await until(() => input.placeholder === '输入消息…', 'the panel in Chinese');
      expect(inPanel('title')!.textContent).to.equal('Ask us');
      expect(view.getComputedStyle(inPanel('panel')!).backgroundColor).to.equal('rgb(21, 23, 28)');
      expect(view.getComputedStyle(inPanel('send-button')!).backgroundColor).to.equal('rgb(0, 128, 128)');
      // One `<svc-chat>` and one `<svc-chat-panel>`, and `window.Svc` holds the classes the page registered.
      const svc = await until(() => view.Svc?.SvcChatPanel && view.Svc, 'window.Svc filled');
      expect(view.customElements.get('svc-chat')).to.equal(svc.SvcChat);
      expect(view.customElements.get('svc-chat-panel')).to.equal(svc.SvcChatPanel);
      // Closed and opened again: still in Chinese.
      launcher.click();
      await until(() => launcher.getAttribute('aria-expanded') === 'false', 'the panel closed');
      launcher.click();
      await until(() => launcher.getAttribute('aria-expanded') === 'true', 'the panel open again');
      const again = await until(() => inPanel<HTMLTextAreaElement>('input'), 'the panel again');
      expect(again.placeholder).to.equal('输入消息…');
    } finally {
      frame.remove();
    }
  });
});
