import type { LoadResults, SetupFigures } from './load.js';

/**
 * The load curve drawn from bench/results.json (`npm run bench -- --load` writes both): an SVG for
 * docs/performance.md, and the same figures as a table. Nothing in them is written by hand.
 */

const WIDTH = 760;
const PANEL = { width: 330, height: 220, top: 36, left: 58 };
const COLORS = ['#1b7837', '#d95f02', '#7570b3', '#d95f02', '#7570b3', '#666666'];

const xmlText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Round numbers for an axis from 0 (or `min`, log) to at least `max`. */
function ticks(max: number, log: boolean, min = 1): number[] {
  if (log) {
    const out: number[] = [];
    for (let t = 10 ** Math.floor(Math.log10(min)); t <= max * 1.0001 || out.length < 2; t *= 10) out.push(t);
    return out;
  }
  const step = 10 ** Math.floor(Math.log10(max / 2));
  const unit = [1, 2, 5].map((m) => m * step).find((u) => max / u <= 6) ?? step * 10;
  return Array.from({ length: Math.ceil(max / unit) + 1 }, (_, i) => i * unit);
}

interface Series {
  name: string;
  dashed: boolean;
  color: string;
  points: [number, number][];
}

function panel(x0: number, title: string, series: Series[], log: boolean, unit: string): string {
  const levels = [...new Set(series.flatMap((s) => s.points.map(([x]) => x)))].sort((a, b) => a - b);
  const values = series.flatMap((s) => s.points.map(([, y]) => y)).filter((y) => y > 0);
  const yTicks = ticks(Math.max(...values), log, Math.min(...values));
  const [low, high] = [yTicks[0]!, yTicks.at(-1)!];
  const { width, height, top, left } = PANEL;
  const px = (level: number) => {
    const span = Math.log10(levels.at(-1)!) - Math.log10(levels[0]!) || 1;
    return x0 + left + ((Math.log10(level) - Math.log10(levels[0]!)) / span) * (width - left - 10);
  };
  const py = (y: number) => {
    const at = log ? (Math.log10(Math.max(y, low)) - Math.log10(low)) / (Math.log10(high) - Math.log10(low)) : y / high;
    return top + height - at * height;
  };
  const parts = [
    `<text x="${x0 + left}" y="${top - 14}" font-weight="bold">${xmlText(title)}</text>`,
    ...yTicks.map(
      (t) =>
        `<line x1="${x0 + left}" x2="${x0 + width - 10}" y1="${py(t)}" y2="${py(t)}" stroke="#ddd"/>` +
        `<text x="${x0 + left - 6}" y="${py(t) + 4}" text-anchor="end">${t.toLocaleString('en')}${unit}</text>`,
    ),
    ...levels.map(
      (level) =>
        `<text x="${px(level)}" y="${top + height + 16}" text-anchor="middle">${level.toLocaleString('en')}</text>`,
    ),
    `<text x="${x0 + left + (width - left) / 2}" y="${top + height + 32}" text-anchor="middle">concurrent conversations</text>`,
    ...series.map(
      (s) =>
        `<polyline fill="none" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="5 4"' : ''} points="${s.points
          .map(([x, y]) => `${px(x).toFixed(1)},${py(y).toFixed(1)}`)
          .join(' ')}"/>` +
        s.points
          .map(([x, y]) => `<circle cx="${px(x).toFixed(1)}" cy="${py(y).toFixed(1)}" r="3" fill="${s.color}"/>`)
          .join(''),
    ),
  ];
  return parts.join('\n');
}

function seriesOf(setups: SetupFigures[], figure: (point: SetupFigures['curve'][number]) => number): Series[] {
  return setups.map((setup, i) => ({
    name: setup.name,
    dashed: setup.code !== 'this checkout',
    color: COLORS[i % COLORS.length]!,
    points: setup.curve.map((point) => [point.conversations, figure(point)] as [number, number]),
  }));
}

/** The curve as an SVG: records per second and send → first delta p99 against concurrent conversations. */
export function loadChart(results: LoadResults): string {
  const rate = seriesOf(results.setups, (p) => p.recordsPerSecond);
  const p99 = seriesOf(results.setups, (p) => p.sendToFirstDelta.p99Ms);
  const legendTop = PANEL.top + PANEL.height + 52;
  const legend = rate.map((s, i) => {
    const x = 20 + (i % 3) * 250;
    const y = legendTop + Math.floor(i / 3) * 18;
    return (
      `<line x1="${x}" x2="${x + 26}" y1="${y - 4}" y2="${y - 4}" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="5 4"' : ''}/>` +
      `<text x="${x + 32}" y="${y}">${xmlText(s.name)}</text>`
    );
  });
  const height = legendTop + Math.ceil(rate.length / 3) * 18 + 8;
  const load = results.loadAverage.map((n) => n.toFixed(1)).join(', ');
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="11">`,
    '<title>The load curve: records per second and send → first delta p99 against concurrent conversations</title>',
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="${WIDTH - 10}" y="14" text-anchor="end" fill="#666">npm run bench -- --load; load average ${load}</text>`,
    panel(0, 'records stored and delivered per second', rate, false, ''),
    panel(WIDTH / 2, 'send → first delta, p99', p99, true, ' ms'),
    ...legend,
    '</svg>',
    '',
  ].join('\n');
}

/** The curve as a Markdown table: a row per setup and number of conversations. */
export function loadTable(results: LoadResults): string {
  const rows = results.setups.flatMap((setup) =>
    setup.curve.map((p) => [
      setup.name,
      p.conversations.toLocaleString('en'),
      p.recordsPerSecond.toLocaleString('en'),
      `${p.sendToFirstDelta.p50Ms} / ${p.sendToFirstDelta.p99Ms} ms`,
      `${p.cpuMsPerRecord.instances} / ${p.cpuMsPerRecord.database} / ${p.cpuMsPerRecord.clients}`,
    ]),
  );
  const head = [
    'setup',
    'conversations',
    'records/s',
    'first delta p50 / p99',
    'CPU ms a record: instances / database / clients',
  ];
  return markdownTable(head, rows);
}

/** Rows under a head as a Markdown table, its columns padded as the formatter lays them out. */
export function markdownTable(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
