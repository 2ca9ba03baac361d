/**
 * The script-tag build's stand-in for `import-engine.ts` (vite.config.ts swaps it in): the engine is the file
 * `svc-chat-markdown.js` next to `svc-chat.js` or `svc-chat.esm.js`. A classic script finds its own address
 * in `document.currentScript` while it runs; the ES module build has `import.meta.url` (which the classic
 * build never reaches, and which it compiles to an empty object).
 */
const script = document.currentScript;
const base = script instanceof HTMLScriptElement ? script.src : import.meta.url;

export const importEngine = () => import(/* @vite-ignore */ new URL('svc-chat-markdown.js', base).href);
