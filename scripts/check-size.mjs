#!/usr/bin/env node
/**
 * The size budget of the script-tag bundle (docs/performance.md): fails when a built file, gzipped at level 9
 * as a CDN serves precompressed files, is larger than its budget. Run after `npm run build`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

/**
 * Bytes (1 KB = 1000 bytes, as Vite reports sizes). The target is 50 KB (docs/performance.md); until the
 * bundle gets there, the check holds it to its current size so that nothing makes it grow unnoticed.
 * Lower these numbers with every cut, never raise them.
 */
const TARGET = 50_000;
const BUDGETS = {
  'dist/svc-chat.js': 69_000,
  'dist/svc-chat.esm.js': 69_000,
};

let failed = false;
for (const [file, budget] of Object.entries(BUDGETS)) {
  if (!existsSync(file)) {
    console.error(`size: ${file} is missing; run \`npm run build\` first`);
    failed = true;
    continue;
  }
  const gzip = gzipSync(readFileSync(file), { level: 9 }).length;
  const over = gzip > budget;
  failed ||= over;
  const kb = (n) => `${(n / 1000).toFixed(1)} KB`;
  const target = gzip > TARGET ? `, ${kb(gzip - TARGET)} above the ${kb(TARGET)} target` : '';
  console.log(`size: ${file} ${kb(gzip)} gzip, budget ${kb(budget)}${over ? `: ${kb(gzip - budget)} OVER` : target}`);
}
process.exit(failed ? 1 : 0);
