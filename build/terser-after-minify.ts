import { minify as terser } from 'terser';
import type { Plugin } from 'vite';

/**
 * Terser, after the bundler's own minifier, over each script-tag file of code: it finds what the first pass
 * leaves (two passes of its compressor; the pure annotations the bundler keeps), 0.6 KB gzip of the complete
 * widget (docs/performance.md). Terser alone makes larger files than the two together. `skip` names files it
 * leaves as they are: a language's file is a table of strings, which it would only requote (12 B larger).
 * The source map follows, and the file names it only where the bundler did (not for `sourcemap: 'hidden'`).
 *
 * In the files `ownNames` picks (those of our own code and Lit's, not marked's, DOMPurify's or the highlighter's),
 * the properties whose names start with `_` and a letter are renamed, as Lit's own build does: here they are only
 * our elements' internal state (`state: true`, never an attribute, an event or a documented name; Lit's own are
 * `_$…`, left alone). One table of names serves every file, so a name is renamed alike in a file and in those
 * that import it (docs/performance.md, issue 42: −98 B gzip of the complete widget).
 */
export function terserAfterMinify(
  skip: (fileName: string) => boolean = () => false,
  ownNames: (fileName: string) => boolean = () => false,
): Plugin {
  /** The renamed properties, shared by every file (terser's `nameCache.props`). */
  let props: object | undefined;
  return {
    name: 'svc-terser-after-minify',
    apply: 'build',
    async generateBundle({ format, sourcemap }, bundle) {
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk' || skip(chunk.fileName)) continue;
        const map = bundle[`${chunk.fileName}.map`];
        const mangle = ownNames(chunk.fileName);
        const nameCache = mangle ? { props } : undefined;
        const { code, map: newMap } = await terser(chunk.code, {
          ecma: 2022,
          module: format === 'es',
          compress: { passes: 2 },
          ...(mangle && { mangle: { properties: { regex: /^_[a-zA-Z]/ } }, nameCache }),
          sourceMap: map?.type === 'asset' && {
            content: String(map.source),
            filename: chunk.fileName,
            url: sourcemap === 'hidden' ? undefined : `${chunk.fileName}.map`,
          },
        });
        chunk.code = code!;
        if (nameCache) props = nameCache.props;
        if (map?.type === 'asset') map.source = String(newMap);
      }
    },
  };
}
