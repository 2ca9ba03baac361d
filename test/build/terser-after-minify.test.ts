import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { build, type Plugin, type Rollup } from 'vite';
import { terserAfterMinify } from '../../build/terser-after-minify.js';

/**
 * Code the bundler's minifier leaves longer than it need be: a function called once whose result is pure,
 * and a condition known after inlining (what terser's second pass finds).
 */
const SOURCE = `
const DEBUG = () => false;
function label(name) { return 'svc:' + name; }
export function greet(name) {
  if (DEBUG()) console.log('debug');
  const text = label(name);
  return text.toUpperCase();
}
export const unused = /* @__PURE__ */ label('unused');
`;

describe('build: terser-after-minify', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-terser-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const entry = join(dir, 'entry.js');
  writeFileSync(entry, SOURCE);

  /** The minified files of the entry, by name, built with `plugins`, with source maps. */
  async function buildWith(plugins: Plugin[], sourcemap: true | 'hidden' = true): Promise<Map<string, string>> {
    const [output] = (await build({
      configFile: false,
      logLevel: 'silent',
      plugins,
      build: {
        write: false,
        minify: true,
        sourcemap,
        lib: { entry, formats: ['es'], fileName: () => 'file.js' },
      },
    })) as Rollup.RollupOutput[];
    return new Map(
      output!.output.map((file) => [file.fileName, file.type === 'chunk' ? file.code : String(file.source)]),
    );
  }

  it('makes the minified file smaller, and its source map follows', async () => {
    const alone = (await buildWith([])).get('file.js')!;
    const files = await buildWith([terserAfterMinify()]);
    const after = files.get('file.js')!;
    assert.ok(after.length < alone.length, `${after.length} B after terser, ${alone.length} B before`);
    assert.doesNotMatch(after, /debug/);
    assert.match(after, /svc:/);
    const map = JSON.parse(files.get('file.js.map')!) as { sources: string[]; mappings: string };
    assert.ok(map.sources.some((source) => source.endsWith('entry.js')));
    assert.ok(map.mappings.length > 0);
  });

  it("names the map in the file as the bundler does: not for 'hidden' maps, which a package leaves out", async () => {
    assert.match((await buildWith([terserAfterMinify()])).get('file.js')!, /\/\/# sourceMappingURL=file\.js\.map\s*$/);
    const hidden = await buildWith([terserAfterMinify()], 'hidden');
    assert.doesNotMatch(hidden.get('file.js')!, /sourceMappingURL/);
    assert.ok(hidden.has('file.js.map'), 'the map is still written');
  });

  it('leaves the files it is told to skip as the bundler made them', async () => {
    const alone = (await buildWith([])).get('file.js')!;
    const skipped = (await buildWith([terserAfterMinify((file) => file === 'file.js')])).get('file.js')!;
    assert.equal(skipped, alone);
  });
});
