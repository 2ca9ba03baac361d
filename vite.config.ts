import { defineConfig } from 'vite';
import { minifyLitTemplates } from './build/minify-lit-css.js';
import { terserAfterMinify } from './build/terser-after-minify.js';

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

/** The script-tag file of each chunk, by the module it starts from: the panel, the markdown engine, a language. */
const CHUNK_FILES: Record<string, string> = {
  panel: 'panel',
  'stream-markdown': 'markdown',
  highlight: 'highlight',
  'zh-CN': 'lang-zh-CN',
  ar: 'lang-ar',
};
/**
 * `svc-chat-panel.<hash>.js`: named by its content, so a server or CDN lets browsers keep it for good (`immutable`);
 * only the two entries, which name them, keep their names (docs/elements.md, serving the files).
 */
const chunkFile = ({ name }: { name: string }) => `svc-chat-${CHUNK_FILES[name] ?? name}.[hash].js`;

/**
 * Three builds from one config:
 * - `vite build`: the package entries (`.`, `./protocol`, `./elements`, `./react`, `./tools`) as ES modules, one
 *   file per source module, with their dependencies left to the user's bundler;
 * - `vite build --mode bundle`: the script-tag files as ES modules: `svc-chat.esm.js` (the launcher: plain DOM,
 *   no Lit) and, as its chunks, what it loads from next to itself: `svc-chat-panel.js` (Lit, the panel, the
 *   other elements, what `window.Svc` offers), `svc-chat-markdown.js` (marked, DOMPurify), `svc-chat-highlight.js` (the code highlighter, loaded by the
 *   markdown engine when a code block first settles) and
 *   `svc-chat-lang-<file>.js` (each language besides English). They share modules as any chunks do;
 * - `vite build --mode bundle-loader`: `svc-chat.js`, the classic script of the one-tag embed, which imports
 *   `svc-chat.esm.js` from next to itself;
 * - `vite build --mode bundle-inbox`: `svc-chat-inbox.js`, `<svc-inbox>` for the site's staff, with its own Lit:
 *   the visitor's files neither load it nor give it anything.
 */
export default defineConfig(({ mode }) => {
  if (mode === 'bundle') {
    return {
      plugins: [minifyLitTemplates(), terserAfterMinify((file) => file.startsWith('svc-chat-lang-'))],
      build: {
        ...SCRIPT_TAG_BUILD,
        rolldownOptions: {
          // The launcher's modules that the panel uses too stay in the launcher's file, which the panel imports.
          preserveEntrySignatures: 'allow-extension',
          output: { minify: true, chunkFileNames: chunkFile },
        },
        lib: { entry: 'src/script-tag/module.ts', formats: ['es'], fileName: () => 'svc-chat.esm.js' },
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
  if (mode === 'bundle-loader') {
    return {
      plugins: [terserAfterMinify()],
      build: {
        ...SCRIPT_TAG_BUILD,
        rolldownOptions: { output: { minify: true } },
        lib: { entry: 'src/script-tag/loader.ts', name: 'SvcLoader', formats: ['iife'], fileName: () => 'svc-chat.js' },
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
