/**
 * `npm run bench`: every benchmark in one run, printed and written to bench/results.json. Figures, not tests.
 * `--full` also streams the reply through a renderer that re-parses the whole text per delta and through
 * deep-chat (each takes minutes: their work grows with the square of the reply's length). `--load` runs only
 * the service's load curve (bench/load.ts) and puts its figures in bench/results.json beside the others.
 * Either way the load curve's chart, its table and issue 44's goals in docs/ are drawn again from what was
 * measured; `--draw` only draws them again from bench/results.json (after a change to how they are drawn).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './browser.js';
import { goalRows, loadGoalRows, loadGoalsTable, printGoals, printLoadGoals } from './goals.js';
import { LOAD, type LoadResults, loadBenchmark } from './load.js';
import { loadChart, loadTable } from './load-chart.js';
import { BENCH_WORKLOADS, renderBenchmarks } from './render.js';
import { messagesBenchmark } from './service.js';
import { sizeBenchmark } from './size.js';
import { startupBenchmark } from './startup.js';

const full = process.argv.includes('--full');
const onlyLoad = process.argv.includes('--load');
const onlyDraw = process.argv.includes('--draw');
const file = join(ROOT, 'bench/results.json');

/** The table of the curve in docs/performance.md stands between these lines. */
const TABLE_START = '<!-- load curve: drawn by `npm run bench -- --load` from bench/results.json -->';
const TABLE_END = '<!-- end of the load curve -->';

/** Draws the curve again: docs/load-curve.svg, and its table and the goals in docs/performance.md. */
function drawLoad(load: LoadResults): void {
  writeFileSync(join(ROOT, 'docs/load-curve.svg'), loadChart(load));
  const doc = join(ROOT, 'docs/performance.md');
  const text = readFileSync(doc, 'utf8');
  const [start, end] = [text.indexOf(TABLE_START), text.indexOf(TABLE_END)];
  if (start < 0 || end < start) throw new Error(`docs/performance.md has no place for the load curve (${TABLE_START})`);
  writeFileSync(
    doc,
    `${text.slice(0, start + TABLE_START.length)}\n\n${loadTable(load)}\n\n${loadGoalsTable(loadGoalRows(load))}\n\n${text.slice(end)}`,
  );
}

if (onlyDraw) {
  drawLoad((JSON.parse(readFileSync(file, 'utf8')) as { load: LoadResults }).load);
} else if (onlyLoad) {
  const load = await loadBenchmark(LOAD);
  const earlier = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  writeFileSync(file, `${JSON.stringify({ ...earlier, load, loadGoals: loadGoalRows(load) }, null, 2)}\n`);
  drawLoad(load);
  console.log(JSON.stringify(load, null, 2));
  printLoadGoals(loadGoalRows(load));
} else {
  const results = {
    date: new Date().toISOString(),
    node: process.version,
    size: await sizeBenchmark(),
    ...(await renderBenchmarks({ ...BENCH_WORKLOADS, naive: full, deepChat: full })),
    startup: await startupBenchmark(),
    messages: await messagesBenchmark(),
    load: await loadBenchmark(LOAD),
  };
  const goals = goalRows(results);
  const loadGoals = loadGoalRows(results.load);
  writeFileSync(file, `${JSON.stringify({ ...results, goals, loadGoals }, null, 2)}\n`);
  drawLoad(results.load);
  console.log(JSON.stringify(results, null, 2));
  printGoals(goals);
  printLoadGoals(loadGoals);
}
if (!onlyDraw) console.log(`written to ${file}`);
