import { expect, fixture, html, nextFrame } from '@open-wc/testing';
import type { SvcChat } from '../../../src/elements/svc-chat/svc-chat.js';
import { until } from '../../helpers/browser-service.js';
import { part } from '../../helpers/chat-parts.js';

// A slow connection, and a page never idle: only the launcher's own rule can start the loading.
window.requestIdleCallback = () => 0;
Object.defineProperty(navigator, 'connection', { configurable: true, value: { effectiveType: '3g', saveData: false } });
await import('../../../src/elements/svc-chat/svc-chat.js');

const requested = (file: RegExp) => performance.getEntriesByType('resource').some((entry) => file.test(entry.name));
const PANEL = /\/src\/panel\.[jt]s/;
const ENGINE = /\/svc-markdown\/stream-markdown\.[jt]s/;

/** On a fast connection both load once the launcher has painted: svc-chat-prefetch-fast.test.ts. */
describe('<svc-chat> as a launcher on a slow connection', () => {
  it('loads neither the panel nor the markdown engine after painting, before idle time or the visitor reaching for it', async () => {
    const el = await fixture<SvcChat>(html`<svc-chat mode="launcher" base-url="http://127.0.0.1:9"></svc-chat>`);
    for (let i = 0; i < 10; i++) await nextFrame();
    expect(requested(PANEL) || requested(ENGINE), 'loaded before any intent').to.equal(false);

    part(el, 'launcher')!.dispatchEvent(new PointerEvent('pointerdown', { bubbles: true, composed: true }));
    await until(() => requested(PANEL) && requested(ENGINE), 'the panel and the markdown engine');
  });
});
