import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderBenchmarks } from '../../bench/render.js';

/**
 * Every benchmark page runs here with tiny workloads, so that `npm run bench` cannot rot unseen: each page
 * throws when it does not show what it was fed (the reply's last part or word, the newest and the oldest
 * message of a history), and the figures must have been measured. No timing is asserted: `npm run bench`
 * prints the figures.
 */
describe('bench pages (smoke run)', () => {
  it('stream fast and paced in <svc-chat> and deep-chat, and open a history in both, showing what they were fed', async () => {
    const results = await renderBenchmarks({
      copies: 1,
      paced: { kilobytes: [2], seconds: 0.3, rounds: 1 },
      historyMessages: 240,
      naive: true,
      deepChat: true,
    });
    const { streaming, paced, history } = results;
    assert.ok(streaming.reply.bytes > 5000 && streaming.reply.deltas > 1000, JSON.stringify(streaming.reply));
    for (const run of [streaming.finalTextOnce, streaming.svcChat, streaming.wholeTextPerDelta, streaming.deepChat]) {
      assert.ok(run && run.mainThreadMs > 0, JSON.stringify(run));
    }
    for (const renderer of ['svcChat', 'deepChat', 'deepChatPartialRender'] as const) {
      const cell = paced[renderer]['2KB'] as { deltas: number; mainThreadMsPerFrame: number };
      assert.ok(cell.deltas > 0 && cell.mainThreadMsPerFrame > 0, `${renderer}: ${JSON.stringify(cell)}`);
    }
    // Virtualized: the newest rows only, and the oldest once scrolled to the top (the page checks both texts).
    assert.ok(history.atEnd.rows > 0 && history.atEnd.rows < 240, JSON.stringify(history.atEnd));
    assert.ok(history.scrollToTop.frames > 0 && history.atTop.rows > 0, JSON.stringify(history.atTop));
    // deep-chat renders every message of the same history (its page checks the newest).
    assert.ok(
      history.deepChat.atEnd.rows >= 240 && history.deepChat.atEnd.heapMb > 0,
      JSON.stringify(history.deepChat),
    );
  });
});
