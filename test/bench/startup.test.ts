import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startupBenchmark } from '../../bench/startup.js';

/**
 * The start-up benchmark's pages, once each (`npm run bench` takes medians): every page must show its launcher
 * (deep-chat its text field), and the chat must take a click and store a message. No timing is asserted.
 */
describe('start-up bench (smoke run)', () => {
  it('shows the launcher on every page, opens the chat on a click and sends a message', async () => {
    const results = (await startupBenchmark(1)) as unknown as Record<string, Record<string, number>>;
    const pages = [
      'unthrottled',
      'unthrottled, ES module',
      'mobile',
      'mobile, ES module',
      'mobile, the launcher in the HTML',
      "mobile, one script of the launcher's bytes drawing a button",
      'mobile, deep-chat (its text field)',
    ];
    for (const page of pages)
      assert.ok(results[page]?.launcherVisibleMs > 0, `${page}: ${JSON.stringify(results[page])}`);
    for (const page of pages.slice(0, 4)) assert.ok(results[page].clickToMessageSentMs > 0, page);
    // The compressed script bytes before the launcher paints, and before the panel is ready: the launcher's file
    // (and the classic loader) first, the panel only after; deep-chat's whole bundle before its field.
    for (const page of pages.slice(0, 4)) {
      const { wireBytesBeforeLauncher: launcher, wireBytesBeforeReady: ready } = results[page]!;
      assert.ok(launcher > 1000 && launcher < 8000, `${page}: ${launcher} B before the launcher`);
      assert.ok(ready > launcher + 20_000, `${page}: ${ready} B before the panel was ready`);
    }
    assert.ok(results['mobile, deep-chat (its text field)']!.wireBytesBeforeLauncher > 50_000);
    assert.equal(results['mobile, the launcher in the HTML']!.wireBytesBeforeLauncher, 0);
    for (const page of ['unthrottled, click at once', 'mobile, click at once']) {
      assert.ok(results[page]?.clickToReadyWorstMs >= 0, `${page}: ${JSON.stringify(results[page])}`);
    }
  });
});
