import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Alias, build, type PluginOption } from 'vite';

export const ROOT = resolve(import.meta.dirname, '../..');

type Exports = Record<string, string | { default: string }>;

/**
 * `@svc/agent-sdk/…` resolved through package.json `exports` to the built files, as a user's bundler does
 * with the installed package (which a repository cannot install into itself).
 */
export function packageAliases(): Alias[] {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; exports: Exports };
  // The module entries; plain strings are files (the script-tag builds, the manifest).
  const modules = Object.entries(pkg.exports).filter(
    (entry): entry is [string, { default: string }] => typeof entry[1] === 'object',
  );
  return modules.map(([subpath, target]) => {
    const file = join(ROOT, target.default);
    if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first`);
    return { find: new RegExp(`^${pkg.name}${subpath.slice(1).replace(/[.]/g, '\\.')}$`), replacement: file };
  });
}

/** Builds the app in `test/embed/<name>/` (its index.html) into `outDir`, to be served at `/<name>/`. */
export async function buildApp(
  name: string,
  outDir: string,
  extra: { alias?: Alias[]; define?: Record<string, string>; mode?: string; plugins?: PluginOption[] } = {},
): Promise<void> {
  await build({
    configFile: false,
    mode: extra.mode ?? 'production',
    logLevel: 'warn',
    root: join(import.meta.dirname, name),
    base: `/${name}/`,
    resolve: { alias: [...packageAliases(), ...(extra.alias ?? [])] },
    define: extra.define,
    plugins: extra.plugins,
    build: { outDir, emptyOutDir: true, minify: false },
  });
}
