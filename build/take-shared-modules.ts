import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { type Plugin, parseSync } from 'vite';

/** Where both launchers put the modules they share with the files they load (`src/script-tag/shared-modules.ts`). */
export const SHARED_MODULES_FILE = resolve('src/script-tag/shared-modules.ts');
const SHARED_ID = '\0svc-shared:';

/**
 * The modules `src/script-tag/shared-modules.ts` shares, by file, each with its key in the shared object and the
 * names of its runtime exports (a type has no value to share). Read from that file's source, so the list is written
 * once. A module that exports a `let` fails the build: the files that take it would keep the value it had when they
 * loaded, not the one it has since.
 */
export function sharedModules(file = SHARED_MODULES_FILE): Map<string, { key: string; names: string[] }> {
  const { program, module } = parseSync(file, readFileSync(file, 'utf8'));
  const files = new Map<string, string>();
  for (const { moduleRequest, entries } of module.staticImports) {
    const namespace = entries.find((entry) => entry.importName.kind === 'NamespaceObject');
    if (namespace)
      files.set(namespace.localName.value, resolve(dirname(file), moduleRequest.value.replace(/\.js$/, '.ts')));
  }
  const shared = new Map<string, { key: string; names: string[] }>();
  const walk = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    const n = node as {
      type?: string;
      key?: { name?: string; value?: unknown };
      value?: { type: string; name?: string };
    };
    if (n.type === 'Property' && n.value?.type === 'Identifier' && files.has(n.value.name!)) {
      const moduleFile = files.get(n.value.name!)!;
      shared.set(moduleFile, { key: String(n.key?.name ?? n.key?.value), names: valueExports(moduleFile) });
    }
    for (const child of Object.values(node)) walk(child);
  };
  walk(program);
  if (shared.size !== files.size)
    throw new Error(`${file}: every module it imports whole must be in its shared object`);
  return shared;
}

/** The runtime exports of a module; a `let` among them fails (see `sharedModules`). */
function valueExports(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  const { module } = parseSync(file, source);
  if (/^export let /m.test(source))
    throw new Error(`${file}: a shared module cannot export a \`let\` (export a function)`);
  return module.staticExports
    .flatMap((statement) => statement.entries)
    .filter((entry) => !entry.isType)
    .map((entry) => entry.exportName.name ?? 'default');
}

/**
 * The build of the files the launcher loads (the panel, the markdown engine, the languages): each import of a module
 * the launcher shares becomes a module that reads that module's exports from where the launcher put them, so the
 * launcher can be one classic script and there is still one copy and one state of each (docs/elements.md).
 */
export function takeSharedModules(key: string): Plugin {
  const shared = sharedModules();
  return {
    name: 'svc-take-shared-modules',
    enforce: 'pre',
    async resolveId(source, importer, options) {
      if (source.startsWith(SHARED_ID)) return source;
      if (!importer || !source.startsWith('.')) return null;
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      return resolved && shared.has(resolved.id) ? `${SHARED_ID}${resolved.id}` : null;
    },
    load(id) {
      const module = id.startsWith(SHARED_ID) && shared.get(id.slice(SHARED_ID.length));
      if (!module) return null;
      const names = module.names.filter((name) => name !== 'default');
      return [
        `const m = globalThis[Symbol.for(${JSON.stringify(key)})][${JSON.stringify(module.key)}];`,
        names.length ? `export const { ${names.join(', ')} } = m;` : '',
        module.names.includes('default') ? 'export default m.default;' : '',
      ].join('\n');
    },
  };
}
