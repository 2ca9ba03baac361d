import { defineConfig } from 'vite';
import { minifyLitCss } from './scripts/minify-lit-css.js';
import { minifyLitHtml } from './scripts/minify-lit-html.js';

/** Left to the user's bundler: the package's dependencies and React (an optional peer dependency). */
const LIBRARY_EXTERNALS = [
  /^lit($|\/)/,
  /^@lit\//,
  /^@lit-labs\//,
  'marked',
  'dompurify',
  'eventsource-parser',
  /^react($|\/)/,
  /^react-dom($|\/)/,
];

/**
 * Two builds from one config:
 * - `vite build`: the package entries (`.`, `./elements`, `./react`, `./tools`) as ES modules, with their
 *   dependencies left to the user's bundler;
 * - `vite build --mode bundle`: the self-contained script-tag files `dist/svc-chat.js` (classic script)
 *   and `dist/svc-chat.esm.js`, with lit, marked and dompurify inside.
 */
export default defineConfig(({ mode }) => {
  if (mode === 'bundle') {
    return {
      // Lit's styles and templates are strings to the minifier: collapse them before it runs.
      plugins: [minifyLitCss(), minifyLitHtml()],
      build: {
        outDir: 'dist',
        emptyOutDir: false,
        // ES2022 keeps `#private` members native (ES2021 turns each into a WeakMap and helpers: 1.7 KB gzip).
        target: 'es2022',
        minify: true,
        sourcemap: true,
        // Vite leaves whitespace in ES library output for the user's bundler; this file is final, so minify it.
        rolldownOptions: { output: { minify: true } },
        lib: {
          entry: 'src/bundle.ts',
          name: 'Svc',
          formats: ['iife', 'es'],
          fileName: (format) => (format === 'es' ? 'svc-chat.esm.js' : 'svc-chat.js'),
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
          'elements/index': 'src/elements/index.ts',
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
