import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import startDemoService from '../e2e/global-setup.js';
import { ROOT } from '../embed/build-app.js';
import { page, type Site, startSite } from '../embed/site.js';
import { selectedEngines } from '../helpers/browsers.mjs';
import { type Driver, launch } from './drivers.js';

/**
 * A visitor's whole journey, written once and walked in Chromium, Firefox and WebKit: a site on one origin
 * embeds the chat with a script tag from the service's origin; the visitor sends, watches a reply stream in
 * as rendered markdown, stops a slow one, answers a form card, and after a reload finds the conversation
 * again. The driver presses and types as a visitor does; the page is only observed (probe.js). A screenshot
 * of each engine goes to test-results/journey/.
 */

const SHOTS = join(ROOT, 'test-results/journey');
let stopService: () => Promise<void>;
let site: Site;

before(async () => {
  assert.ok(existsSync(join(ROOT, 'dist/svc-chat.js')), 'the journey loads the built widget: run npm run build');
  stopService = await startDemoService();
  const serviceUrl = process.env.SVC_E2E_URL!;
  site = await startSite({
    '/journey-probe.js': join(import.meta.dirname, 'probe.js'),
    '/': page(`<script src="/journey-probe.js"></script>
<script src="${serviceUrl}/dist/svc-chat.js"></script>
<svc-chat base-url="${serviceUrl}" token-endpoint="/svc-token" agent-ids="agent_aria" persist
  style="display: block; height: 720px; max-width: 720px"></svc-chat>`),
  });
  mkdirSync(SHOTS, { recursive: true });
});

after(async () => {
  await site?.close();
  await stopService?.();
});

/** The visitor's side of the driver: press on parts of the chat, type into them, and wait for what they see. */
function visitor(browser: Driver) {
  /** Runs `expression` in the page; a failure names the expression, since the driver's errors do not. */
  const evaluate = <T>(expression: string) =>
    browser.evaluate<T>(expression).catch((error: Error) => {
      throw new Error(`${expression}: ${error.message}`, { cause: error });
    });
  const look = <T>(call: string, ...args: unknown[]) =>
    evaluate<T>(`__journey.${call}(${args.map((arg) => JSON.stringify(arg)).join(', ')})`);
  const press = async (...selectors: string[]) => {
    await look('shown', selectors);
    const { x, y } = await look<{ x: number; y: number }>('centre', selectors);
    await browser.click(x, y);
  };
  return {
    evaluate,
    look,
    press,
    async send(text: string) {
      await press('textarea[part~="input"]');
      await browser.type(text);
      await browser.press('Enter');
    },
  };
}

describe('the visitor journey', { timeout: 300_000 }, () => {
  for (const engine of selectedEngines()) {
    it(`${engine}: script tag from another origin, send, stream, markdown, stop, a card answered, history on reload`, async (t) => {
      const browser = await launch(engine);
      try {
        t.diagnostic(browser.version);
        await walk(browser);
      } finally {
        await browser.close();
      }
    });
  }
});

async function walk(browser: Driver) {
  const { evaluate, look, press, send } = visitor(browser);
  await browser.goto(site.url);

  // A reply streams in and is rendered as markdown.
  await send('/markdown');
  assert.equal(await look('turn', 1), 'success');
  const markdown = await look<{ tags: string[]; text: string }>('lastReply');
  for (const tag of ['h2', 'table', 'pre', 'code', 'ul', 'strong'])
    assert.ok(markdown.tags.includes(tag), `<${tag}> rendered`);
  assert.doesNotMatch(markdown.text, /^#|\*\*|\|---/, 'no markdown syntax left as text');

  // A slow reply is stopped while it streams, keeping what came so far.
  await send('/slow 20');
  await look('shown', ['[part~="stop-button"]']);
  await evaluate('__journey.until(() => __journey.lastReply().text.length > 20)');
  await press('[part~="stop-button"]');
  assert.equal(await look('turn', 2), 'interrupted');
  await look('says', 'Stopped.');

  // A form card: filled in and sent with the pointer and the keyboard, and answered by the agent.
  await look('shown', ['[part~="send-button"]']);
  await send('/form');
  assert.equal(await look('turn', 3), 'success');
  await press('svc-info-collect', 'input[name="name"]');
  await browser.type('Ada Lovelace');
  await press('svc-info-collect', 'input[name="email"]');
  await browser.type('ada@example.com');
  await press('svc-info-collect', '[part="button"]');
  assert.equal(await look('turn', 4), 'success');
  assert.match((await look<{ text: string }>('lastReply')).text, /Thank you! I received: .*name: Ada Lovelace/);
  await look('shown', ['svc-info-collect', '[part="status"]']);
  await browser.screenshot(join(SHOTS, `${browser.engine}.png`));

  // After a reload the same conversation is there, the card still answered.
  const seen = await look<string[]>('transcript');
  assert.deepEqual(await look('errors'), []);
  await browser.goto(site.url);
  await evaluate(`__journey.until(() => __journey.transcript().length === ${seen.length})`);
  await look('rendered');
  assert.deepEqual(await look('transcript'), seen);
  await look('shown', ['svc-info-collect', '[part="status"]']);
  assert.deepEqual(await look('errors'), []);
}
