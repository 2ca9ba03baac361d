import { resolve } from 'node:path';
import minifyLitTemplates from '@lit-labs/rollup-plugin-minify-html-literals';
import { transform } from 'lightningcss';
import { defineConfig } from 'vite';
import { LANGUAGE_FILES } from './src/internal/labels/languages.js';

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
 * parse, and the placeholder again after it. Should the minified CSS move an expression before another, the
 * template is left as it is (the build says which).
 */
function minifyLitCss(css: string): string {
  let count = 0;
  const named = css.replace(/@TEMPLATE_EXPRESSION_*\(\);?/g, () => `__svc_${count++}__`);
  const min = transform({ filename: 'template.css', code: Buffer.from(named), minify: true }).code.toString();
  const order = [...min.matchAll(/__svc_(\d+)__/g)].map((m) => Number(m[1]));
  if (order.length !== count || order.some((n, i) => n !== i)) return css;
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
  if (name === 'stream-markdown') return 'svc-chat-markdown.js';
  if ((Object.values(LANGUAGE_FILES) as string[]).includes(name)) return `svc-chat-lang-${name}.js`;
  return 'svc-chat-[name].js';
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
      plugins: [minifyTemplates()],
      build: {
        ...SCRIPT_TAG_BUILD,
        rolldownOptions: { output: { minify: true, chunkFileNames: scriptTagChunk } },
        lib: { entry: 'src/script-tag/panel.ts', formats: ['es'], fileName: () => 'svc-chat-panel.js' },
      },
    };
  }
  if (mode === 'bundle-module' || mode === 'bundle-loader') {
    const module = mode === 'bundle-module';
    return {
      plugins: [minifyTemplates()],
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
