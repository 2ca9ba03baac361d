import { minify as terser } from 'terser';
import type { Plugin } from 'vite';

/**
 * Terser, after the bundler's own minifier, over each script-tag file of code: it finds what the first pass
 * leaves (two passes of its compressor; the pure annotations the bundler keeps), 0.6 KB gzip of the complete
 * widget (docs/performance.md). Terser alone makes larger files than the two together. `skip` names files it
 * leaves as they are: a language's file is a table of strings, which it would only requote (12 B larger).
 * The source map follows, and the file names it only where the bundler did (not for `sourcemap: 'hidden'`).
 */
export function terserAfterMinify(skip: (fileName: string) => boolean = () => false): Plugin {
  return {
    name: 'svc-terser-after-minify',
    apply: 'build',
    async generateBundle({ format, sourcemap }, bundle) {
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk' || skip(chunk.fileName)) continue;
        const map = bundle[`${chunk.fileName}.map`];
        const { code, map: newMap } = await terser(chunk.code, {
          ecma: 2022,
          module: format === 'es',
          compress: { passes: 2 },
          sourceMap: map?.type === 'asset' && {
            content: String(map.source),
            filename: chunk.fileName,
            url: sourcemap === 'hidden' ? undefined : `${chunk.fileName}.map`,
          },
        });
        chunk.code = code!;
        if (map?.type === 'asset') map.source = String(newMap);
      }
    },
  };
}
