/**
 * Fails when `custom-elements.json` is not what the analyzer makes of the current sources (regenerated into a
 * temporary folder and compared), or `src/element-props.ts` not what the manifest makes. `npm run manifest`
 * brings both committed files up to date.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { ELEMENT_PROPS_FILE, elementProps } from './element-props.mjs';

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
    console.error("custom-elements.json is out of date with the elements' JSDoc: run `npm run manifest`.");
    process.exit(1);
  }
  if (elementProps(JSON.parse(fresh)) !== readFileSync(join(root, ELEMENT_PROPS_FILE), 'utf8')) {
    console.error(`${ELEMENT_PROPS_FILE} is out of date with the manifest: run \`npm run manifest\`.`);
    process.exit(1);
  }
  console.log(`custom-elements.json and ${ELEMENT_PROPS_FILE} are current.`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
