import { resolve } from 'node:path';
import { defineConfig } from 'vite';
import { lazyFilesNextToScript } from './build/lazy-files-next-to-script.js';
import { minifyLitTemplates } from './build/minify-lit-css.js';
import { terserAfterMinify } from './build/terser-after-minify.js';
import { scriptTagFiles } from './scripts/script-tag-files.mjs';

/**
 * Left to the user's bundler: the package's dependencies, and the React entry's optional peers, React and
 * `@lit/react` (a peer rather than bundled: the entry's types are `@lit/react`'s `ReactWebComponent`, which a
 * bundled copy would leave pointing at a package the user may not have, every prop silently `any`).
 * The code highlighter is not here: it is built into the library as the modules only `svc-markdown/highlight.js`
 * imports, loaded when a code block first settles, so a site's bundler makes it a lazy chunk of its own.
 */
const LIBRARY_EXTERNALS = [
  /^lit($|\/)/,
  /^@lit\//,
  'marked',
  'dompurify',
  'eventsource-parser',
  /^react($|\/)/,
  /^react-dom($|\/)/,
];

/** What the script-tag files share: final files, so minified (Vite leaves whitespace in ES library output). */
const SCRIPT_TAG_BUILD = {
  outDir: 'dist',
  emptyOutDir: false,
  // ES2022 keeps `#private` members native (ES2021 turns each into a WeakMap and helpers: 1.7 KB gzip).
  target: 'es2022',
  minify: true,
  // Maps for our own analysis (bench, size work); no `sourceMappingURL` comment: the package leaves the maps out.
  sourcemap: 'hidden',
} as const;

/**
 * The files the launcher loads, by the module each starts from: the panel (Lit, the panel, the other elements, what
 * `window.Svc` offers), the markdown engine (marked, DOMPurify) and each language besides English. Built apart from
 * the launcher, in one build that shares modules as chunks do (the code highlighter is the markdown engine's chunk).
 */
const LAZY_ENTRIES: Record<string, string> = {
  panel: 'src/panel.ts',
  markdown: 'src/elements/svc-markdown/stream-markdown.ts',
  'lang-zh-CN': 'src/labels/zh-CN.ts',
  'lang-ar': 'src/labels/ar.ts',
};
/**
 * `svc-chat-panel.<hash>.js`: named by its content, so a server or CDN lets browsers keep it for good (`immutable`);
 * only the two launchers, which name them, keep their names (docs/elements.md, serving the files).
 */
const lazyFile = ({ name }: { name: string }) => `svc-chat-${name}.[hash].js`;

/** The launcher's builds: each lazy file, by its source, as the lazy build named it in `dist/`. */
function builtLazyFiles(): Map<string, string> {
  const built = scriptTagFiles('dist');
  return new Map(
    Object.entries(LAZY_ENTRIES).map(([name, source]) => {
      const file = built[`svc-chat-${name}.js`];
      if (!file) throw new Error(`dist/svc-chat-${name}.<hash>.js is missing: run \`vite build --mode bundle\` first`);
      return [resolve(source), file.slice('dist/'.length)];
    }),
  );
}

/**
 * Five builds from one config:
 * - `vite build`: the package entries (`.`, `./protocol`, `./elements`, `./react`, `./tools`) as ES modules, one
 *   file per source module, with their dependencies left to the user's bundler;
 * - `vite build --mode bundle`: what the script-tag launcher loads from next to itself (`LAZY_ENTRIES`), as ES
 *   modules named by their content that share code as chunks do; the few launcher modules the panel uses too
 *   (the languages, the settings, the tokens) it has its own copy of (docs/performance.md);
 * - `vite build --mode bundle-module`: `svc-chat.esm.js`, the launcher as an ES module (plain DOM, no Lit);
 * - `vite build --mode bundle-classic`: `svc-chat.js`, the same launcher as the classic script of the one-tag embed,
 *   one request before it paints. Both launchers load the first build's files from next to themselves;
 * - `vite build --mode bundle-inbox`: `svc-chat-inbox.js`, `<svc-inbox>` for the site's staff, with its own Lit:
 *   the visitor's files neither load it nor give it anything.
 */
export default defineConfig(({ mode }) => {
  if (mode === 'bundle') {
    return {
      plugins: [minifyLitTemplates(), terserAfterMinify((file) => file.startsWith('svc-chat-lang-'))],
      build: {
        ...SCRIPT_TAG_BUILD,
        rolldownOptions: { output: { minify: true, entryFileNames: lazyFile, chunkFileNames: lazyFile } },
        lib: { entry: LAZY_ENTRIES, formats: ['es'] },
      },
    };
  }
  if (mode === 'bundle-inbox') {
    // The staff's inbox: a file of its own with its own Lit, never loaded by the visitor's widget.
    return {
      plugins: [minifyLitTemplates(), terserAfterMinify()],
      build: {
        ...SCRIPT_TAG_BUILD,
        rolldownOptions: { output: { minify: true } },
        lib: { entry: 'src/inbox.ts', formats: ['es'], fileName: () => 'svc-chat-inbox.js' },
      },
    };
  }
  if (mode === 'bundle-module' || mode === 'bundle-classic') {
    const classic = mode === 'bundle-classic';
    return {
      plugins: [lazyFilesNextToScript(builtLazyFiles(), classic), terserAfterMinify()],
      build: {
        ...SCRIPT_TAG_BUILD,
        rolldownOptions: { output: { minify: true } },
        lib: classic
          ? { entry: 'src/script-tag/classic.ts', name: 'Svc', formats: ['iife'], fileName: () => 'svc-chat.js' }
          : { entry: 'src/script-tag/module.ts', formats: ['es'], fileName: () => 'svc-chat.esm.js' },
      },
    };
  }
  return {
    build: {
      outDir: 'dist/lib',
      emptyOutDir: true,
      target: 'es2022',
      minify: false,
      sourcemap: 'hidden',
      lib: {
        entry: {
          index: 'src/index.ts',
          'protocol/index': 'src/protocol/index.ts',
          elements: 'src/elements.ts',
          'react/index': 'src/react/index.ts',
          'tools/index': 'src/tools/index.ts',
          inbox: 'src/inbox.ts',
        },
        formats: ['es'],
      },
      rolldownOptions: {
        external: LIBRARY_EXTERNALS,
        // `'use client'` (the React entry's modules, the elements' registration) stays at the top of each file: one
        // output file per module keeps a module's directive (rolldown's directives guide), so its warning is noise.
        onLog: (level, log, handler) => {
          if (log.code !== 'MODULE_LEVEL_DIRECTIVE' || !log.message.includes('use client')) handler(level, log);
        },
        output: {
          // One output file per source module (dist/lib/elements/svc-chat/svc-chat.js, …), so package.json
          // `sideEffects` can name exactly the modules that register elements and a user's bundler keeps them.
          preserveModules: true,
          preserveModulesRoot: 'src',
          // The highlighter's modules under `vendor/` (their own path would be `node_modules/…`, a folder name
          // package tools and bundlers treat as installed packages rather than this package's files).
          entryFileNames: ({ name }) => `${name.replace(/^node_modules\//, 'vendor/')}.js`,
        },
      },
    },
  };
});
