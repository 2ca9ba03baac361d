import { resolve } from 'node:path';
import type { Plugin } from 'vite';

/**
 * The launcher's builds: each dynamic import of a file the other build made (`files`: its source → its file name, as
 * built, with its hash) loads that file from next to the script. An ES module imports it by a relative path; the
 * classic script (`classic`) has no `import.meta.url`, so it resolves the name against the script's own URL
 * (`scriptUrl` of `src/script-tag/script-url.ts`, read while the script first runs).
 */
export function lazyFilesNextToScript(files: Map<string, string>, classic: boolean): Plugin {
  const scriptUrl = resolve('src/script-tag/script-url.ts');
  return {
    name: 'svc-lazy-files-next-to-script',
    async transform(code, id) {
      const imports = [...code.matchAll(/\bimport\((['"])(\.[^'"]+)\1\)/g)];
      let changed = code;
      for (const [call, , source] of imports) {
        const resolved = await this.resolve(source, id);
        const file = resolved && files.get(resolved.id);
        if (!file) continue;
        const url = classic ? `new URL(${JSON.stringify(file)}, scriptUrl).href` : JSON.stringify(`./${file}`);
        changed = changed.replace(call, `import(/* @vite-ignore */ ${url})`);
      }
      if (changed === code) return null;
      // On the first line, and the same length as the call it replaces elsewhere: the lines keep their numbers.
      const head = classic ? `import { scriptUrl } from ${JSON.stringify(scriptUrl)}; ` : '';
      return { code: head + changed, map: null };
    },
    resolveDynamicImport(source) {
      // The files of the other build: left as they are (a relative path, or a URL made at run time).
      return typeof source === 'string' && source.startsWith('./svc-chat-') ? { id: source, external: true } : null;
    },
  };
}
