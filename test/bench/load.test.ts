import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadGoalRows } from '../../bench/goals.js';
import { loadBenchmark } from '../../bench/load.js';
import { loadChart, loadTable } from '../../bench/load-chart.js';

/**
 * The load bench (`npm run bench -- --load`) with tiny workloads, so that it cannot rot unseen: every setup's
 * curve, the fan-out and the idle streams must have been measured, each turn's records read whole, and the chart
 * and table drawn from them. No timing is asserted; the baseline's build (a git ref compiled apart) is left to
 * the real run.
 */
describe('load bench (smoke run)', () => {
  it('measures the curve on SQLite and on one and two PostgreSQL instances, the fan-out and idle streams, and draws them', async () => {
    const results = await loadBenchmark({
      levels: [1, 3],
      turns: () => 2,
      idleStreams: 20,
      idleSeconds: 0.2,
      idleSends: 3,
      fanOutReaders: 5,
      paced: { conversations: 2, turns: 2, everyMs: 10 },
    });
    assert.deepEqual(
      results.setups.map((s) => [s.name, s.instances]),
      [
        ['SQLite', 1],
        ['PostgreSQL', 1],
        ['2 × PostgreSQL', 2],
      ],
    );
    for (const setup of results.setups) {
      assert.deepEqual(
        setup.curve.map((p) => [p.conversations, p.sendToFirstDelta.sends]),
        [
          [1, 2],
          [3, 6],
        ],
        setup.name,
      );
      for (const p of setup.curve) {
        // Every record of every turn is read: each turn gives its stream the same number of records.
        assert.ok(p.records > 0 && p.records % p.sendToFirstDelta.sends === 0, `${setup.name}: ${JSON.stringify(p)}`);
        assert.ok(p.recordsPerSecond > 0 && p.sendToFirstDelta.p99Ms > 0, `${setup.name}: ${JSON.stringify(p)}`);
      }
      assert.equal(setup.fanOut?.readers, 5, setup.name);
      assert.ok(setup.fanOut.p99Ms > 0, setup.name);
      // Two visitors who type between turns: each of their turns timed.
      assert.deepEqual([setup.paced?.conversations, setup.paced?.sends], [2, 4], setup.name);
      assert.ok(setup.paced!.p99Ms > 0, setup.name);
    }
    assert.deepEqual([results.idle.streams, results.idle.sendToFirstDelta.sends], [20, 3]);
    assert.ok(results.idle.rssOpenMb > 0, JSON.stringify(results.idle));
    const svg = loadChart(results);
    for (const setup of results.setups) assert.ok(svg.includes(`>${setup.name}</text>`), setup.name);
    assert.equal(loadTable(results).split('\n').length, 2 + 3 * 2);
    assert.ok(loadGoalRows(results).every((row) => row.now !== ''));
  });
});
