import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { it } from 'node:test';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import { STATES, takeScreenshots } from '../visual/screenshots.js';

/**
 * The visual review cannot rot: `npm run screenshots` is run here on one state (a reply with its actions, Copy's
 * tooltip shown by the keyboard, the header and the composer: the built widget's icons) in Chromium, and its screenshot is compared with the
 * committed baseline. Antialiasing and colour noise are tolerated (pixelmatch's threshold, and up to
 * `TOLERATED` differing pixels); a real change fails, with the difference written next to the test results.
 * After a change meant to be seen, `SVC_UPDATE_SCREENSHOTS=1` writes the baseline anew (review it, then commit).
 */
const ROOT = resolve(import.meta.dirname, '../..');
const BASELINE = join(ROOT, 'test/visual/baseline/chromium-actions.png');
/**
 * Few: pixelmatch already passes over antialiased pixels, which also hides thin strokes, so a lost shape of an
 * 18 px icon differs in only tens of pixels (the Copy icon's second sheet, missing, differed in 51).
 */
const TOLERATED = 10;

it("the visual review draws a reply's actions in Chromium as the committed baseline shows it", {
  timeout: 180_000,
}, async (t) => {
  assert.ok(existsSync(join(ROOT, 'dist/svc-chat.js')), 'the review shows the built widget: run npm run build');
  const dir = mkdtempSync(join(tmpdir(), 'svc-review-'));
  try {
    const [shot] = await takeScreenshots(
      dir,
      ['chromium'],
      STATES.filter((s) => s.name === 'actions'),
    );
    assert.ok(readFileSync(join(dir, 'index.html'), 'utf8').includes('chromium-actions.png'), 'the index shows it');
    if (process.env.SVC_UPDATE_SCREENSHOTS) writeFileSync(BASELINE, readFileSync(shot!.file));
    const actual = PNG.sync.read(readFileSync(shot!.file));
    const expected = PNG.sync.read(readFileSync(BASELINE));
    assert.deepEqual([actual.width, actual.height], [expected.width, expected.height], 'the size of the screenshot');
    const diff = new PNG({ width: actual.width, height: actual.height });
    const differing = pixelmatch(actual.data, expected.data, diff.data, actual.width, actual.height, {
      threshold: 0.1,
    });
    t.diagnostic(`${differing} pixels differ`);
    if (differing > TOLERATED) {
      const out = join(ROOT, 'test-results/screenshots-diff');
      mkdirSync(out, { recursive: true });
      writeFileSync(join(out, 'chromium-actions.png'), readFileSync(shot!.file));
      writeFileSync(join(out, 'chromium-actions-diff.png'), PNG.sync.write(diff));
    }
    assert.ok(differing <= TOLERATED, `${differing} pixels differ from the baseline (test-results/screenshots-diff/)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it('the visual review holds every state a visitor meets (issue 46), messages waiting offline among them', () => {
  const states = STATES.map((s) => s.name);
  const listed = ['launcher', 'empty', 'streaming', 'form', 'payment', 'connector', 'list', 'actions', 'error'];
  for (const state of [...listed, 'unreachable', 'offline', 'phone', 'dark', 'rtl']) {
    assert.ok(states.includes(state), `the review shows ${state}`);
  }
  // Offline is only the state it says once the composer says messages wait (the review waits for its note).
  assert.match(STATES.find((s) => s.name === 'offline')?.steps ?? '', /outbox-note/);
});
