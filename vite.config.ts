import { defineConfig } from 'vite';

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
      build: {
        outDir: 'dist',
        emptyOutDir: false,
        target: 'es2021',
        minify: true,
        sourcemap: true,
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
          elements: 'src/elements/index.ts',
          react: 'src/react/index.ts',
          tools: 'src/tools/index.ts',
        },
        formats: ['es'],
      },
      rollupOptions: {
        external: [/^lit($|\/)/, /^@lit\//, 'marked', 'dompurify', 'eventsource-parser', /^react($|\/)/, 'react-dom'],
      },
    },
  };
});
