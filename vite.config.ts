import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import minifyLitTemplates from '@lit-labs/rollup-plugin-minify-html-literals';
import { transform } from 'lightningcss';
import { minify as terser } from 'terser';
import { defineConfig, type Plugin, parseSync } from 'vite';
import { LANGUAGE_FILES } from './src/internal/labels/languages.js';
import { LENT_KEY } from './src/script-tag/lent-modules.js';

/** Left to the user's bundler: the package's dependencies and React (an optional peer dependency). */
const LIBRARY_EXTERNALS = [
  /^lit($|\/)/,
  /^@lit\//,
  'marked',
  'dompurify',
  'eventsource-parser',
  /^react($|\/)/,
  /^react-dom($|\/)/,
];

/**
 * CSS of a Lit `css` template, minified by lightningcss (what the template minifier uses). The minifier stands
 * a placeholder (`@TEMPLATE_EXPRESSION();`) for each `${…}` in the template, which lightningcss cannot parse
 * inside a value (`border: 1px solid ${token('colorBorder')}`): each becomes a numbered identifier for the
 * parse, and the placeholder again after it. Should the minified CSS move an expression before another (it
 * writes a `font` family after a `color`), the build fails and says where, since the template's expressions
 * keep their order: the fix is to write the declarations in lightningcss's order. Left unminified, the
 * sign-in's styles once cost the panel 157 B gzip unnoticed.
 */
function minifyLitCss(css: string): string {
  let count = 0;
  const named = css.replace(/@TEMPLATE_EXPRESSION_*\(\);?/g, () => `__svc_${count++}__`);
  const min = transform({ filename: 'template.css', code: Buffer.from(named), minify: true }).code.toString();
  const order = [...min.matchAll(/__svc_(\d+)__/g)].map((m) => Number(m[1]));
  if (order.length !== count || order.some((n, i) => n !== i)) {
    throw new Error(`lightningcss reorders the expressions of this template; write them in its order:\n${min}`);
  }
  return min.replace(/__svc_\d+__/g, '@TEMPLATE_EXPRESSION();');
}

/** What the script-tag files share: final files, so minified (Vite leaves whitespace in ES library output). */
const SCRIPT_TAG_BUILD = {
  outDir: 'dist',
  emptyOutDir: false,
  // ES2022 keeps `#private` members native (ES2021 turns each into a WeakMap and helpers: 1.7 KB gzip).
  target: 'es2022',
  minify: true,
  sourcemap: true,
} as const;

/** The script-tag files each lazily loaded chunk of the panel becomes, by the module it starts from. */
function scriptTagChunk({ name }: { name: string }): string {
  return name === 'stream-markdown' ? 'svc-chat-markdown.js' : 'svc-chat-[name].js';
}

/**
 * The panel's files and each language's (`svc-chat-lang-<file>.js`, which the launcher loads: its language
 * logic is lent to the panel, so the panel does not import the languages itself).
 */
const PANEL_ENTRIES = Object.fromEntries([
  ['svc-chat-panel', 'src/script-tag/panel.ts'],
  ...Object.values(LANGUAGE_FILES).map((file) => [`svc-chat-lang-${file}`, `src/internal/labels/${file}.ts`]),
]);

const LENT_FILE = resolve('src/script-tag/lent-modules.ts');
const LENT_ID = '\0svc-lent';

/** The runtime exports of a module (type exports have no value to lend). */
const valueExports = (file: string) =>
  parseSync(file, readFileSync(file, 'utf8'))
    .module.staticExports.flatMap((statement) => statement.entries)
    .filter((entry) => !entry.isType)
    .map((entry) => entry.exportName.name!);

/**
 * What `src/script-tag/lent-modules.ts` lends, read from its source: for each module it imports, the index in
 * `LENT_MODULES` of each export. Fails the build when a module is not lent whole (a value it exports is not in
 * the list), since the panel would then read it as `undefined`.
 */
function lentModules(): Map<string, Map<string, number>> {
  const { program, module } = parseSync(LENT_FILE, readFileSync(LENT_FILE, 'utf8'));
  const list = program.body.flatMap((node) =>
    node.type === 'ExportNamedDeclaration' && node.declaration?.type === 'VariableDeclaration'
      ? node.declaration.declarations.filter((d) => d.id.type === 'Identifier' && d.id.name === 'LENT_MODULES')
      : [],
  )[0]?.init;
  if (list?.type !== 'ArrayExpression') throw new Error(`${LENT_FILE}: no LENT_MODULES array`);
  const order = list.elements.map((element) => (element?.type === 'Identifier' ? element.name : ''));
  const lent = new Map<string, Map<string, number>>();
  for (const { moduleRequest, entries } of module.staticImports) {
    const file = resolve(dirname(LENT_FILE), moduleRequest.value.replace(/\.js$/, '.ts'));
    const indexes = new Map(entries.map((entry) => [entry.importName.name!, order.indexOf(entry.localName.value)]));
    const missing = valueExports(file).filter((name) => (indexes.get(name) ?? -1) < 0);
    if (missing.length) throw new Error(`${LENT_FILE}: ${missing.join(', ')} of ${file} not in LENT_MODULES`);
    lent.set(file, indexes);
  }
  return lent;
}

/**
 * The panel's build without the modules the launcher lends it (`src/script-tag/lent-modules.ts`): each import
 * of one becomes a module that reads its exports, by index, from where the launcher put them before it loaded
 * the panel.
 */
function borrowLentModules(): Plugin {
  const lent = lentModules();
  return {
    name: 'svc-borrow-lent-modules',
    enforce: 'pre',
    async resolveId(source, importer, options) {
      if (source === LENT_ID) return LENT_ID;
      if (!importer || !source.startsWith('.')) return null;
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      return resolved && lent.has(resolved.id) ? `${LENT_ID}:${resolved.id}` : null;
    },
    load(id) {
      if (id === LENT_ID) return `export default globalThis[Symbol.for(${JSON.stringify(LENT_KEY)})];`;
      const indexes = id.startsWith(`${LENT_ID}:`) && lent.get(id.slice(LENT_ID.length + 1));
      if (!indexes) return null;
      const values = [...indexes].map(([name, index]) => `${name} = lent[${index}]`);
      return `import lent from '${LENT_ID}';\nexport const ${values.join(', ')};`;
    },
  };
}

/**
 * Terser, after the bundler's own minifier, over each script-tag file of code: it finds what the first pass
 * leaves (two passes of its compressor; the pure annotations the bundler keeps), 0.6 KB gzip of the complete
 * widget (docs/performance.md). Terser alone makes larger files than the two together. A language's file is a
 * table of strings, which it would only requote (12 B larger). The source map follows.
 */
function terserAfterMinify(): Plugin {
  return {
    name: 'svc-terser-after-minify',
    apply: 'build',
    async generateBundle({ format }, bundle) {
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk' || chunk.name.startsWith('svc-chat-lang-')) continue;
        const map = bundle[`${chunk.fileName}.map`];
        const { code, map: newMap } = await terser(chunk.code, {
          ecma: 2022,
          module: format === 'es',
          compress: { passes: 2 },
          sourceMap: map?.type === 'asset' && {
            content: String(map.source),
            filename: chunk.fileName,
            url: `${chunk.fileName}.map`,
          },
        });
        chunk.code = code!;
        if (map?.type === 'asset') map.source = String(newMap);
      }
    },
  };
}

/** Lit's `css` and `html` templates minified, and the launcher's `css` strings (`svc-chat.styles.ts`). */
const minifyTemplates = () =>
  minifyLitTemplates({
    include: ['src/**/*.ts'],
    failOnError: true,
    options: { minifyOptions: { minifyCSS: minifyLitCss } },
  });

/**
 * The launcher's files load the panel and the languages from next to the script (`src/script-tag/`), not as
 * chunks of their own build: the panel's build makes those files, and they share its one Lit.
 */
const LAUNCHER_IMPORTS = [
  { find: /^\.\/import-panel\.js$/, replacement: resolve('src/script-tag/import-panel.ts') },
  { find: /^\.\/import-language\.js$/, replacement: resolve('src/script-tag/import-language.ts') },
];

/**
 * Four builds from one config:
 * - `vite build`: the package entries (`.`, `./elements`, `./react`, `./tools`) as ES modules, with their
 *   dependencies left to the user's bundler (which makes the chat's panel, the markdown engine and each
 *   language chunks of their own, through their dynamic imports);
 * - `vite build --mode bundle`: `dist/svc-chat-panel.js`, what the script-tag launcher loads after it paints
 *   (Lit, the panel, the other elements, what `window.Svc` offers), and the files it loads from next to itself:
 *   `svc-chat-markdown.js` (marked, DOMPurify) and `svc-chat-lang-<file>.js` (each language besides English);
 * - `vite build --mode bundle-module`: `dist/svc-chat.esm.js`, the launcher as an ES module;
 * - `vite build --mode bundle-loader`: `dist/svc-chat.js`, the launcher as the classic script of the one-tag
 *   embed. Both launchers are what a page loads before the launcher paints: plain DOM, no Lit.
 */
export default defineConfig(({ mode }) => {
  if (mode === 'bundle') {
    return {
      plugins: [borrowLentModules(), minifyTemplates(), terserAfterMinify()],
      build: {
        ...SCRIPT_TAG_BUILD,
        rolldownOptions: { output: { minify: true, chunkFileNames: scriptTagChunk } },
        lib: { entry: PANEL_ENTRIES, formats: ['es'], fileName: (_format, name) => `${name}.js` },
      },
    };
  }
  if (mode === 'bundle-module' || mode === 'bundle-loader') {
    const module = mode === 'bundle-module';
    return {
      plugins: [minifyTemplates(), terserAfterMinify()],
      resolve: { alias: LAUNCHER_IMPORTS },
      // A classic script has no `import.meta`: it finds its files from `document.currentScript`.
      define: module ? {} : { 'import.meta.url': 'undefined' },
      build: {
        ...SCRIPT_TAG_BUILD,
        rolldownOptions: { output: { minify: true } },
        lib: module
          ? { entry: 'src/script-tag/module.ts', formats: ['es'], fileName: () => 'svc-chat.esm.js' }
          : { entry: 'src/script-tag/loader.ts', name: 'SvcLoader', formats: ['iife'], fileName: () => 'svc-chat.js' },
      },
    };
  }
  return {
    build: {
      outDir: 'dist/lib',
      emptyOutDir: true,
      target: 'es2022',
      minify: false,
      sourcemap: true,
      lib: {
        entry: {
          index: 'src/index.ts',
          'protocol/index': 'src/protocol/index.ts',
          elements: 'src/elements.ts',
          'react/index': 'src/react/index.ts',
          'tools/index': 'src/tools/index.ts',
        },
        formats: ['es'],
      },
      rolldownOptions: {
        external: LIBRARY_EXTERNALS,
        output: {
          // One output file per source module (dist/lib/elements/svc-chat.js, …), so package.json
          // `sideEffects` can name exactly the modules that register elements and a user's bundler keeps them.
          preserveModules: true,
          preserveModulesRoot: 'src',
          entryFileNames: '[name].js',
        },
      },
    },
  };
});
