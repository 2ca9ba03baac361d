import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { beating } from '../../server/http/heartbeats.js';

// The service's clock is node:test's: time moves only when the test ticks it.
beforeEach(() => mock.timers.enable({ apis: ['setInterval'] }));
afterEach(() => mock.timers.reset());

const INTERVAL = 15_000;

/** `count` streams' beats, counted, and the moments at which the process woke to write any. */
function streams(count: number) {
  let now = 0;
  const wakes = new Set<number>();
  const beats = Array.from({ length: count }, () => 0);
  const stops = beats.map((_, i) =>
    beating(() => {
      beats[i]!++;
      wakes.add(now);
    }, INTERVAL),
  );
  const advance = (ms: number, step = 1) => {
    for (let t = 0; t < ms; t += step) {
      now += step;
      mock.timers.tick(step);
    }
  };
  return { beats, stops, wakes, advance };
}

describe('heartbeats', () => {
  it('beat each stream once an interval, the first after a half to a whole one, in batches not one by one', () => {
    const { beats, stops, wakes, advance } = streams(1000);
    advance(INTERVAL / 2);
    assert.deepEqual(new Set(beats), new Set([0]), 'no stream beats before half an interval');
    advance(INTERVAL / 2);
    assert.deepEqual(new Set(beats), new Set([1]), 'every stream beat once within its first interval');
    // 1,000 streams spread over half an interval, woken for in at most 65 batches (not 1,000 wake-ups).
    assert.ok(wakes.size > 10 && wakes.size <= 65, `${wakes.size} wake-ups`);
    advance(INTERVAL);
    assert.deepEqual(new Set(beats), new Set([2]), 'and once in every interval after it');
    for (const stop of stops) stop();
  });

  it('stop for good: a stopped stream never beats again, one stopped while its batch is written included', () => {
    const { beats, stops, advance } = streams(200);
    // Half of them stop the other half while the batches are written (a beat ends a stream: one that stalled).
    const ending = beating(() => {
      for (const stop of stops.slice(100)) stop();
    }, INTERVAL);
    advance(INTERVAL);
    const after = [...beats];
    advance(2 * INTERVAL);
    assert.deepEqual(beats.slice(100), after.slice(100), 'the stopped half did not beat once stopped');
    assert.deepEqual(new Set(beats.slice(0, 100)), new Set([3]), 'the others beat on');
    for (const stop of [...stops.slice(0, 100), ending]) stop();
    const before = [...beats];
    advance(INTERVAL);
    assert.deepEqual(beats, before, 'nothing beats once every stream stopped');
  });
});
