/**
 * `dist/svc-chat.js`, the one-tag embed: a classic script (no `type="module"` needed) that registers
 * `<svc-chat>`, whose launcher is all a page loads before it paints (no Lit), and loads the rest of the widget,
 * `svc-chat-panel.js` with Lit, from next to itself (docs/elements.md, how loading works). It sets `window.Svc`
 * at once; `Svc.load()` loads the rest now and resolves with `window.Svc`, which then holds the chat, files
 * and payments clients, the record helpers, the errors and the elements' classes, as it does once the rest has
 * arrived by any other way (the page was idle, the launcher was used).
 */
import { loadPanel, loadPanelWhenIdle, panelArrived } from '../elements/load-panel.js';
import type { SvcChat } from '../elements/svc-chat.js';
import '../elements/svc-chat.js';

/**
 * `window.Svc`, which the classic script sets: `SvcChat` and `load()` at once, the rest of the widget's exports
 * once it has arrived (`await Svc.load()` resolves with all of them).
 */
export type SvcGlobal = Partial<Awaited<ReturnType<typeof loadPanel>>> & {
  SvcChat?: typeof SvcChat;
  load?: () => Promise<SvcGlobal>;
};

declare global {
  interface Window {
    /** Set by `svc-chat.js` (`@svc/agent-sdk/svc-chat.js`), the one-tag embed. */
    Svc?: SvcGlobal;
  }
}

window.Svc ??= {};
const svc = window.Svc;
const fill = (api: object) => Object.assign(svc, api);

fill({ SvcChat: customElements.get('svc-chat') });
svc.load ??= () => loadPanel().then(fill);
void panelArrived.then(fill);
loadPanelWhenIdle();
