import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type RunningService, startService } from '../../server/boot/service.js';
import { ROOT } from '../embed/build-app.js';
import { page, type Site, startSite } from '../embed/site.js';
import { selectedEngines } from '../helpers/browsers.mjs';
import { type Driver, launch, person } from './drivers.js';

/**
 * A visitor's whole journey, written once and walked in Chromium, Firefox and WebKit: a site on one origin
 * embeds the chat with a script tag from the service's origin; the visitor sends, watches a reply stream in
 * as rendered markdown, stops a slow one, answers a form card, and after a reload finds the conversation
 * again; starts another, goes back to the first from the list, continues it and deletes the other; and while
 * the service is stopped writes two messages that go out by themselves, once and in order, when it is back.
 * The driver presses and types as a visitor does; the page is only observed (probe.js). A screenshot of each
 * engine goes to test-results/journey/.
 */

const SHOTS = join(ROOT, 'test-results/journey');
let site: Site;

/** The demo service, as `npm start` runs it, on a database that outlives a stop (the outbox step restarts it). */
const service = {
  dir: mkdtempSync(join(tmpdir(), 'svc-journey-')),
  running: undefined as RunningService | undefined,
  port: 0,
  async start() {
    const { dir, port } = this;
    this.running = await startService({ port, db: join(dir, 'svc.db'), filesDir: join(dir, 'files'), demo: true });
    this.port = Number(new URL(this.running.url).port);
    return this.running;
  },
  async stop() {
    await this.running?.close();
    this.running = undefined;
  },
};

before(async () => {
  assert.ok(existsSync(join(ROOT, 'dist/svc-chat.js')), 'the journey loads the built widget: run npm run build');
  const running = await service.start();
  const serviceUrl = running.url;
  process.env.SVC_E2E_URL = serviceUrl;
  process.env.SVC_E2E_API_KEY = running.demoApiKey;
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
  await service.stop();
  rmSync(service.dir, { recursive: true, force: true });
});

describe('the visitor journey', { timeout: 300_000 }, () => {
  for (const engine of selectedEngines()) {
    it(`${engine}: script tag from another origin, send, stream, markdown, stop, a card answered, history on reload`, async (t) => {
      const browser = await launch(engine);
      try {
        t.diagnostic(browser.version);
        await walk(browser);
      } catch (error) {
        // What the page showed when it went wrong, beside the diagnosis in the error.
        await browser.screenshot(join(SHOTS, `${engine}-failed.png`)).catch(() => {});
        throw error;
      } finally {
        await browser.close();
      }
    });
  }
});

async function walk(browser: Driver) {
  const { evaluate, look, press, send } = person(browser);
  // The list shows what it read before while it reads again (`aria-busy`): a conversation written in since then
  // moves to the top when the read arrives, so a row is pressed once the list is read.
  const openList = async () => {
    await press('[part~="list-button"]');
    await look('shown', ['[part~="conversations"][aria-busy="false"]']);
  };
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

  // Another conversation, then back to the first from the list: its history is there, and it goes on.
  await press('[part~="new-button"]');
  // The turns this page heard since the reload are counted from 1 again.
  await send('hello');
  assert.equal(await look('turn', 1), 'success');
  assert.equal(await look<string[]>('transcript').then((lines) => lines.length), 2);
  await openList();
  await look('shown', ['[part~="conversation"]:nth-child(2)']);
  // Newest first: the first conversation is the list's last row.
  await press('[part~="conversation"]:last-child [part~="conversation-open"]');
  await evaluate(`__journey.until(() => __journey.transcript().length === ${seen.length})`);
  assert.deepEqual(await look('transcript'), seen);
  await send('/help');
  assert.equal(await look('turn', 2), 'success');
  // The other one (now the older, so the last row) is deleted after a confirmation; the first is left alone.
  await openList();
  await press('[part~="conversation"]:last-child [part~="delete-button"]');
  await press('[part~="confirm-delete"]');
  await evaluate('__journey.until(() => __journey.count(\'[part~="conversation"]\') === 1)');
  await press('[part~="conversation-open"]');
  await evaluate(`__journey.until(() => __journey.transcript().length === ${seen.length + 2})`);

  // The service stops: two messages wait, shown as such, and go out once and in order when it is back.
  const before = await look<string[]>('transcript');
  await service.stop();
  await send('first while away');
  // The composer takes the next message once the first is held (while its send is under way, Enter waits).
  await evaluate("__journey.until(() => __journey.count('[part~=\"message-user\"]', 'Waiting to send') === 1)");
  await send('second while away');
  await evaluate("__journey.until(() => __journey.count('[part~=\"message-user\"]', 'Waiting to send') === 2)");
  await service.start();
  assert.equal(await look('turn', 4), 'success');
  const after = await look<string[]>('transcript');
  assert.deepEqual(after.slice(0, before.length), before);
  assert.deepEqual(
    after.slice(before.length).map((line) => line.split(':')[0]),
    ['visitor', 'agent', 'visitor', 'agent'],
  );
  assert.match(after[before.length]!, /^visitor: first while away/);
  assert.match(after[before.length + 2]!, /^visitor: second while away/);
  await evaluate("__journey.until(() => __journey.count('[part~=\"message-user\"]', 'Waiting to send') === 0)");
  // The widget reports the outage on the console, and nothing else went wrong.
  const errors = await look<string[]>('errors');
  assert.deepEqual(
    errors.filter((error) => !/^<svc-chat>: connection error: /.test(error)),
    [],
  );
}
