/**
 * `dist/svc-chat.js`, the one-tag embed: a classic script (no `type="module"` needed) that loads the ES module
 * build `svc-chat.esm.js` from next to itself, whose files share one Lit (docs/elements.md, how loading works).
 * It sets `window.Svc` at once; `Svc.load()` loads the rest of the widget now and resolves with `window.Svc`,
 * which then holds the chat, files and payments clients, the record helpers, the errors and the elements'
 * classes, as it does once the rest has arrived by any other way (the page was idle, the launcher was used).
 */
type Entry = typeof import('./bundle.js');
type Svc = Partial<Awaited<ReturnType<Entry['load']>>> & { load?: () => Promise<Svc> };

const svcWindow = window as Window & { Svc?: Svc };
svcWindow.Svc ??= {};
const svc = svcWindow.Svc;
const base = (document.currentScript as HTMLScriptElement | null)?.src ?? location.href;
const entry: Promise<Entry> = import(/* @vite-ignore */ new URL('svc-chat.esm.js', base).href);
const fill = (api: object) => Object.assign(svc, api);

svc.load ??= () => entry.then((module) => module.load()).then(fill);
entry.then(
  (module) => module.loaded.then(fill),
  (error: unknown) => console.error('svc-chat: svc-chat.esm.js did not load from next to svc-chat.js', error),
);
