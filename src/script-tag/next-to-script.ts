/**
 * Where the script-tag file that runs was loaded from: the classic script's own `src` (read while it runs),
 * else this ES module's URL. Every file it loads sits next to it, so a site copies one folder or points at a CDN.
 */
const base = (document.currentScript as HTMLScriptElement | null)?.src || import.meta.url;

/** Imports the ES module `file` from next to the script (`import()` works in a classic script too). */
export const importNextToScript = <T>(file: string): Promise<T> => import(/* @vite-ignore */ new URL(file, base).href);
