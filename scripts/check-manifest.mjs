/**
 * Fails when `custom-elements.json` is not what the analyzer makes of the current sources (regenerated into a
 * temporary folder and compared), docs/elements.md's table of `<svc-chat>`'s attributes and properties or
 * `src/element-props.ts` not what that manifest makes (`attribute-table.mjs`, `element-props.mjs`), or the parts
 * the panel exports not those its templates declare (`exported-parts.mjs`). `npm run manifest` brings all four up
 * to date.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { DOC, withAttributeTable } from './attribute-table.mjs';
import { ELEMENT_PROPS_FILE, elementProps } from './element-props.mjs';
import { exportedParts, PARTS_FILE } from './exported-parts.mjs';

const root = join(import.meta.dirname, '..');
const cli = createRequire(import.meta.url).resolve('@custom-elements-manifest/analyzer/cem.js');
const dir = mkdtempSync(join(tmpdir(), 'svc-manifest-'));
try {
  // The analyzer joins `--outdir` to the working directory, so it gets a relative path.
  execFileSync(
    process.execPath,
    [cli, 'analyze', '--config', 'custom-elements-manifest.config.mjs', '--outdir', relative(root, dir), '--quiet'],
    { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const fresh = readFileSync(join(dir, 'custom-elements.json'), 'utf8');
  let committed = '';
  try {
    committed = readFileSync(join(root, 'custom-elements.json'), 'utf8');
  } catch {}
  if (fresh !== committed) {
    // Where they part, so that a difference seen once (a run on a fresh install) can be read from its log.
    const [made, kept] = [fresh.split('\n'), committed.split('\n')];
    let at = 0;
    while (made[at] === kept[at]) at++;
    console.error("custom-elements.json is out of date with the elements' JSDoc: run `npm run manifest`.");
    console.error(`line ${at + 1}: made ${JSON.stringify(made[at])}, committed ${JSON.stringify(kept[at])}`);
    process.exit(1);
  }
  const manifest = JSON.parse(fresh);
  const doc = readFileSync(join(root, DOC), 'utf8');
  if (withAttributeTable(doc, manifest) !== doc) {
    console.error(`${DOC}'s table of <svc-chat>'s attributes and properties is out of date: run \`npm run manifest\`.`);
    process.exit(1);
  }
  if (elementProps(manifest) !== readFileSync(join(root, ELEMENT_PROPS_FILE), 'utf8')) {
    console.error(`${ELEMENT_PROPS_FILE} is out of date with the manifest: run \`npm run manifest\`.`);
    process.exit(1);
  }
  if (exportedParts() !== readFileSync(join(root, PARTS_FILE), 'utf8')) {
    console.error(`${PARTS_FILE} is not what the templates declare: run \`npm run manifest\`.`);
    process.exit(1);
  }
  console.log(`custom-elements.json, ${DOC}'s attribute table, ${ELEMENT_PROPS_FILE} and ${PARTS_FILE} are current.`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
