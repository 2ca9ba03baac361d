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

/** The script-tag files each lazily loaded chunk becomes, by the module it starts from. */
function scriptTagChunk({ name }: { name: string }): string {
  if (name === 'bundle-panel') return 'svc-chat-panel.js';
  if (name === 'stream-markdown') return 'svc-chat-markdown.js';
  if ((Object.values(LANGUAGE_FILES) as string[]).includes(name)) return `svc-chat-lang-${name}.js`;
  return 'svc-chat-[name].js';
}

/**
 * Three builds from one config:
 * - `vite build`: the package entries (`.`, `./elements`, `./react`, `./tools`) as ES modules, with their
 *   dependencies left to the user's bundler (which makes the chat's panel and the markdown engine chunks of
 *   their own, through their dynamic imports);
 * - `vite build --mode bundle`: the script-tag ES module `dist/svc-chat.esm.js` (Lit and the launcher: what a
 *   page loads before the launcher paints) and the files it loads from next to itself, which import Lit from
 *   it: `svc-chat-panel.js` (the panel, the other elements and what `window.Svc` offers), `svc-chat-markdown.js`
 *   (marked, DOMPurify) and `svc-chat-lang-<file>.js` (each language besides English);
 * - `vite build --mode bundle-loader`: `dist/svc-chat.js`, the classic script of the one-tag embed, which loads
 *   `svc-chat.esm.js` from next to itself.
 */
export default defineConfig(({ mode }) => {
  if (mode === 'bundle') {
    return {
      plugins: [
        minifyLitTemplates({
          include: ['src/**/*.ts'],
          failOnError: true,
          options: { minifyOptions: { minifyCSS: minifyLitCss } },
        }),
      ],
      // The panel, with what `window.Svc` offers a page besides the elements.
      resolve: { alias: [{ find: /^\.\.\/panel\.js$/, replacement: resolve('src/bundle-panel.ts') }] },
      build: {
        ...SCRIPT_TAG_BUILD,
        // The entry may export more than bundle.ts does: what the files it loads share with it (Lit), which
        // would otherwise be a chunk of its own, one more request before the launcher paints.
        rolldownOptions: {
          preserveEntrySignatures: 'allow-extension',
          output: { minify: true, chunkFileNames: scriptTagChunk },
        },
        lib: { entry: 'src/bundle.ts', formats: ['es'], fileName: () => 'svc-chat.esm.js' },
      },
    };
  }
  if (mode === 'bundle-loader') {
    return {
      build: {
        ...SCRIPT_TAG_BUILD,
        rolldownOptions: { output: { minify: true } },
        lib: { entry: 'src/bundle-loader.ts', name: 'SvcLoader', formats: ['iife'], fileName: () => 'svc-chat.js' },
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
