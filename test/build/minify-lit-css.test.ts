import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { build, type Rollup } from 'vite';
import { minifyLitCss, minifyLitTemplates } from '../../build/minify-lit-css.js';

/** The placeholder the template minifier stands for each `${…}` of a `css` template. */
const E = '@TEMPLATE_EXPRESSION();';
/** A module exporting a `css` template whose declarations are `[property, expression source]` pairs. */
const stylesModule = (declarations: [string, string][]) =>
  `export const styles = css\`\n  :host {\n${declarations.map(([name, value]) => `    ${name}: $${'{'}${value}};\n`).join('')}  }\n\`;`;

describe('build: minify-lit-css', () => {
  it('minifies a template with expressions inside values, keeping them in place and in order', () => {
    const min = minifyLitCss(`:host {\n  border: 1px solid ${E};\n  margin: 0 ${E};\n}\n`);
    assert.equal(min.replaceAll(E, '$'), ':host{border:1px solid $;margin:0 $}');
  });

  it('throws when lightningcss would move an expression before another (`color` before `font-family`)', () => {
    assert.throws(
      () => minifyLitCss(`:host { font-family: ${E}; color: ${E}; }`),
      /lightningcss reorders the expressions of this template; write them in its order:\n:host\{color:__svc_1__;font-family:__svc_0__\}/,
    );
    // The fix the message asks for: the same declarations in lightningcss's order.
    assert.equal(
      minifyLitCss(`:host { color: ${E}; font-family: ${E}; }`).replaceAll(E, '$'),
      ':host{color:$;font-family:$}',
    );
  });

  describe('in a build', () => {
    const root = mkdtempSync(join(tmpdir(), 'svc-minify-css-'));
    after(() => rmSync(root, { recursive: true, force: true }));

    /** Builds `src/entry.ts` holding `source` with the plugin, as the script-tag builds do. */
    async function buildEntry(source: string): Promise<string> {
      mkdirSync(join(root, 'src'), { recursive: true });
      writeFileSync(join(root, 'src/entry.ts'), `import { css } from 'lit';\n${source}`);
      const [output] = (await build({
        root,
        configFile: false,
        logLevel: 'silent',
        plugins: [minifyLitTemplates([join(root, 'src/**/*.ts')])],
        build: {
          write: false,
          minify: false,
          lib: { entry: join(root, 'src/entry.ts'), formats: ['es'], fileName: 'out' },
          rolldownOptions: { external: ['lit'] },
        },
      })) as Rollup.RollupOutput[];
      return (output!.output[0] as Rollup.OutputChunk).code;
    }

    it('minifies a `css` template of the sources', async () => {
      const code = await buildEntry(
        stylesModule([
          ['color', "'red'"],
          ['display', "'block'"],
        ]),
      );
      assert.match(code, /:host\{color:\$\{"red"\};display:\$\{"block"\}\}/);
    });

    it('fails the build on a template whose expressions lightningcss reorders', async () => {
      await assert.rejects(
        buildEntry(
          stylesModule([
            ['font-family', "'serif'"],
            ['color', "'red'"],
          ]),
        ),
        /lightningcss reorders the expressions of this template/,
      );
    });
  });
});
