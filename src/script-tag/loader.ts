/**
 * `dist/svc-chat.js`, the one-tag embed: a classic script (no `type="module"` needed) that imports the ES
 * module build, `svc-chat.esm.js`, from next to its own URL. That module registers `<svc-chat>`, whose launcher
 * is all a page loads before it paints (no Lit), and loads the rest of the widget as modules that share their
 * code with it (docs/elements.md, how loading works). This script sets `window.Svc` at once; `Svc.load()`
 * loads the rest now and resolves with `window.Svc`, which then holds the chat, files and payments clients, the
 * record helpers, the errors and the elements' classes, as it does once the rest has arrived by any other way
 * (the page was idle, the launcher was used).
 */
import type * as Launcher from './module.js';

/**
 * `window.Svc`, which the classic script sets: `load()` at once, `SvcChat` once the launcher's module has
 * arrived, the rest of the widget's exports once it has arrived (`await Svc.load()` resolves with all of them).
 */
export type SvcGlobal = Partial<Awaited<ReturnType<typeof Launcher.load>>> & {
  SvcChat?: typeof Launcher.SvcChat;
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

// A classic script has no `import.meta`: its own `src`, read while it runs, is where the other files are.
const next = new URL('svc-chat.esm.js', (document.currentScript as HTMLScriptElement).src).href;
const launcher: Promise<typeof Launcher> = import(/* @vite-ignore */ next);
svc.load ??= () => launcher.then((module) => module.load()).then(fill);
void launcher.then(({ SvcChat, loaded }) => {
  fill({ SvcChat });
  void loaded.then(fill);
});
