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

/**
 * Three builds from one config:
 * - `vite build`: the package entries (`.`, `./elements`, `./react`, `./tools`) as ES modules, with their
 *   dependencies left to the user's bundler (which puts the markdown engine in a chunk of its own);
 * - `vite build --mode bundle`: the script-tag files `dist/svc-chat.js` (classic script) and
 *   `dist/svc-chat.esm.js`, with lit inside;
 * - `vite build --mode bundle-lazy`: what either script-tag file loads from next to itself when it is first
 *   needed: `dist/svc-chat-markdown.js`, the markdown engine (marked, DOMPurify), and
 *   `dist/svc-chat-lang-<file>.js`, each language besides English.
 */
export default defineConfig(({ mode }) => {
  if (mode === 'bundle') {
    return {
      // Lit's styles and templates are strings to the minifier: collapse them before it runs.
      plugins: [
        minifyLitTemplates({
          include: ['src/**/*.ts'],
          failOnError: true,
          options: { minifyOptions: { minifyCSS: minifyLitCss } },
        }),
      ],
      resolve: {
        alias: [
          { find: /^\.\/import-engine\.js$/, replacement: resolve('src/elements/markdown/import-engine.script.ts') },
          { find: /^\.\/import-language\.js$/, replacement: resolve('src/internal/labels/import-language.script.ts') },
        ],
      },
      build: {
        ...SCRIPT_TAG_BUILD,
        // `import.meta.url` in the classic script is never reached (see import-engine.script.ts).
        rolldownOptions: { output: { minify: true }, checks: { emptyImportMeta: false } },
        lib: {
          entry: 'src/bundle.ts',
          name: 'Svc',
          formats: ['iife', 'es'],
          fileName: (format) => (format === 'es' ? 'svc-chat.esm.js' : 'svc-chat.js'),
        },
      },
    };
  }
  if (mode === 'bundle-lazy') {
    const languages = Object.values(LANGUAGE_FILES).map((file) => [
      `svc-chat-lang-${file}`,
      `src/internal/labels/${file}.ts`,
    ]);
    return {
      build: {
        ...SCRIPT_TAG_BUILD,
        rolldownOptions: { output: { minify: true } },
        lib: {
          entry: {
            'svc-chat-markdown': 'src/elements/markdown/stream-markdown.ts',
            ...Object.fromEntries(languages),
          },
          formats: ['es'],
          fileName: (_format, name) => `${name}.js`,
        },
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
