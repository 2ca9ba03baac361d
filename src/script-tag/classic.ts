/**
 * `dist/svc-chat.js`, the one-tag embed: the launcher of `svc-chat.esm.js` as a classic script (no `type="module"`
 * needed), one request before the launcher paints. It loads the rest of the widget from next to its own URL, as
 * the ES module does, and sets `window.Svc`: `SvcChat` and `load()` at once (`Svc.load()` loads the rest now and
 * resolves with `window.Svc`), then the chat, files and payments clients, the record helpers, the errors and the
 * elements' classes once the rest has arrived by any way (the page was idle, the launcher was used).
 */
import { load, loaded, SvcChat } from './module.js';

/** `window.Svc`, which the classic script sets: `SvcChat` and `load()` at once, the rest once it has arrived. */
export type SvcGlobal = Partial<Awaited<ReturnType<typeof load>>> & {
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

fill({ SvcChat });
svc.load ??= () => load().then(fill);
void loaded.then(fill);
