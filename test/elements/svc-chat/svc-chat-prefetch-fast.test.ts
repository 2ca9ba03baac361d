import { expect, fixture, html } from '@open-wc/testing';
import { until } from '../../helpers/browser-service.js';

// A fast connection, and a page never idle: only the launcher's own rule can start the loading.
window.requestIdleCallback = () => 0;
Object.defineProperty(navigator, 'connection', { configurable: true, value: { effectiveType: '4g', saveData: false } });
await import('../../../src/elements/svc-chat/svc-chat.js');

const requested = (file: RegExp) => performance.getEntriesByType('resource').some((entry) => file.test(entry.name));
const timing = (file: RegExp) =>
  (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).find((entry) => file.test(entry.name))!;
const PANEL = /\/src\/panel\.[jt]s/;
const ENGINE = /\/svc-markdown\/stream-markdown\.[jt]s/;

/** On a slow connection they wait for the visitor: svc-chat-prefetch.test.ts. */
describe('<svc-chat> as a launcher on a fast connection', () => {
  it('loads the panel and then the markdown engine once the launcher has painted, before any click', async () => {
    await fixture(html`<svc-chat mode="launcher" base-url="http://127.0.0.1:9"></svc-chat>`);
    await until(() => requested(PANEL) && requested(ENGINE), 'the panel and the markdown engine');
    // Not side by side: on a slow connection a click would wait for the panel's share of the bandwidth.
    expect(timing(ENGINE).startTime).to.be.at.least(timing(PANEL).responseEnd);
  });
});
