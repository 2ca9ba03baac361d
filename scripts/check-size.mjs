#!/usr/bin/env node
/**
 * The size budgets of the script-tag files (docs/performance.md): fails when a built file, gzipped at level 9
 * as a CDN serves precompressed files, is larger than its budget, or when the complete widget (the script and
 * the markdown engine it loads) is. Run after `npm run build`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

/**
 * Bytes (1 KB = 1000 bytes, as Vite reports sizes). The target for the complete widget is 50 KB
 * (docs/performance.md); until it gets there, the budgets hold it to its current size so that nothing makes
 * it grow unnoticed. Lower these numbers with every cut, never raise them.
 */
const TARGET = 50_000;
/**
 * What a page loads first (the launcher and the chat), the engine loaded when a message needs it, and the
 * labels of each language besides English, loaded when an element shows that language.
 */
const BUDGETS = {
  'dist/svc-chat.js': 40_850,
  'dist/svc-chat.esm.js': 40_900,
  'dist/svc-chat-markdown.js': 27_850,
  'dist/svc-chat-lang-zh-CN.js': 1_850,
  'dist/svc-chat-lang-ar.js': 2_120,
};
const LANGUAGES = ['dist/svc-chat-lang-zh-CN.js', 'dist/svc-chat-lang-ar.js'];
const COMPLETE = { files: ['dist/svc-chat.js', 'dist/svc-chat-markdown.js'], budget: 68_700 };

const kb = (n) => `${(n / 1000).toFixed(1)} KB`;
const sizes = {};
let failed = false;
const report = (name, gzip, budget, target = '') => {
  const over = gzip > budget;
  failed ||= over;
  console.log(`size: ${name} ${kb(gzip)} gzip, budget ${kb(budget)}${over ? `: ${kb(gzip - budget)} OVER` : target}`);
};

for (const [file, budget] of Object.entries(BUDGETS)) {
  if (!existsSync(file)) {
    console.error(`size: ${file} is missing; run \`npm run build\` first`);
    process.exit(1);
  }
  sizes[file] = gzipSync(readFileSync(file), { level: 9 }).length;
  report(file, sizes[file], budget);
}
const complete = COMPLETE.files.reduce((sum, file) => sum + sizes[file], 0);
const target = complete > TARGET ? `, ${kb(complete - TARGET)} above the ${kb(TARGET)} target` : '';
report(`complete widget (${COMPLETE.files.join(' + ')})`, complete, COMPLETE.budget, target);
// A visitor in another language also loads its labels (figures only: the languages have budgets of their own).
for (const file of LANGUAGES) console.log(`size: with ${file}: ${kb(complete + sizes[file])} gzip`);
process.exit(failed ? 1 : 0);
