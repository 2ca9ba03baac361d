/**
 * Where the running script-tag file (`svc-chat.js` or `svc-chat.esm.js`) was loaded from: the files it loads
 * later (the markdown engine, a language) sit next to it. A classic script finds its own address in
 * `document.currentScript` while it runs; the ES module build has `import.meta.url` (which the classic build
 * never reaches, and which it compiles to an empty object). Only the script-tag build imports this file.
 */
const script = document.currentScript;

export const scriptBase = script instanceof HTMLScriptElement ? script.src : import.meta.url;

/** A file next to the script-tag file, as a dynamic import. */
export const importBeside = (file: string) => import(/* @vite-ignore */ new URL(file, scriptBase).href);
