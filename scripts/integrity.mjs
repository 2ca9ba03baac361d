/**
 * The SRI `integrity` of the two script-tag entries (`svc-chat.js`, `svc-chat.esm.js`): `npm run build` writes them to
 * `dist/integrity.json`, which ships in the package, so each release publishes its own values next to its files.
 * `node scripts/integrity.mjs --readme` also writes the classic entry's into the README's CDN snippet (a release step).
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';

const ENTRIES = ['svc-chat.js', 'svc-chat.esm.js'];
const sri = (file) => `sha384-${createHash('sha384').update(readFileSync(file)).digest('base64')}`;

const values = Object.fromEntries(ENTRIES.map((name) => [name, sri(`dist/${name}`)]));
writeFileSync('dist/integrity.json', `${JSON.stringify(values, null, 2)}\n`);

if (process.argv.includes('--readme')) {
  const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
  const readme = readFileSync('README.md', 'utf8').replace(
    /(<script src="https:\/\/cdn\.jsdelivr\.net\/npm\/@svc\/agent-sdk@)[^/]+(\/dist\/svc-chat\.js"\s+integrity=")[^"]+"/,
    `$1${version}$2${values['svc-chat.js']}"`,
  );
  writeFileSync('README.md', readme);
}
