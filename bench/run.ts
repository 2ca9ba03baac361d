/**
 * `npm run bench`: every benchmark in one run, printed and written to bench/results.json. Figures, not tests.
 * `--full` also streams the reply through a renderer that re-parses the whole text per delta and through
 * deep-chat (each takes minutes: their work grows with the square of the reply's length).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './browser.js';
import { enginesBenchmark } from './engines.js';
import { goalRows, printGoals } from './goals.js';
import { BENCH_WORKLOADS, renderBenchmarks } from './render.js';
import { messagesBenchmark, serviceBenchmark } from './service.js';
import { sizeBenchmark } from './size.js';
import { startupBenchmark } from './startup.js';

const full = process.argv.includes('--full');

const results = {
  date: new Date().toISOString(),
  node: process.version,
  size: await sizeBenchmark(),
  ...(await renderBenchmarks({ ...BENCH_WORKLOADS, naive: full, deepChat: full })),
  startup: await startupBenchmark(),
  service: await serviceBenchmark(),
  messages: await messagesBenchmark(),
  engines: await enginesBenchmark(),
};
const goals = goalRows(results);
const file = join(ROOT, 'bench/results.json');
writeFileSync(file, `${JSON.stringify({ ...results, goals }, null, 2)}\n`);
console.log(JSON.stringify(results, null, 2));
printGoals(goals);
console.log(`written to ${file}`);
