import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startService } from '../../server/boot/service.js';
import { NOBODY_THERE } from '../../server/runtimes/nobody-there.js';
import { ROOT } from '../embed/build-app.js';
import { page, startSite } from '../embed/site.js';
import { selectedEngines } from '../helpers/browsers.mjs';
import {
  type ModelRequest,
  type ModelServer,
  type ModelStep,
  pieces,
  startModelServer,
} from '../helpers/model-server.mjs';
import { type Driver, launch, person } from './drivers.js';

/**
 * A person of the site's staff takes a conversation over, walked in Chromium, Firefox and WebKit with both sides
 * in browsers of their own: a visitor's chat on a site that embeds it with a script tag from the service's origin,
 * and the staff's inbox (`<svc-inbox>` from `svc-chat-inbox.js`) on that site's admin page. The model agent hands
 * the conversation off, Alex takes it, they write both ways, the visitor reloads and still has Alex, Alex gives it
 * back and the model answers with what Alex wrote; then, in a workspace whose visitors wait a second, nobody comes,
 * the visitor leaves their details in the contact card and the inbox shows them. The drivers press and type; the
 * pages are only observed (probe.js). A screenshot of each side per engine goes to test-results/journey/.
 */

const SHOTS = join(ROOT, 'test-results/journey');
const MODEL_KEY_ENV = 'SVC_JOURNEY_MODEL_KEY';
/** The person of the staff the site signs in (test/embed/site.ts), as the visitor sees them. */
const ALEX = 'Alex, support';
const REASON = 'the visitor asks for a person';
const SIDES = ['visitor', 'staff'];
/** What a person's message is to the model (server/runtimes/model/handoff.ts). */
const PERSON_WROTE = / \(a person from the team\) wrote:\n/;

/**
 * The scripted model: it hands the conversation to a person, and once a person wrote in it, answers with what
 * they wrote, so that its reply in the widget shows it read the conversation.
 */
function respond(body: ModelRequest['body']): ModelStep {
  const said = body.messages
    .map((m: { content: unknown }) => m.content)
    .filter((c): c is string => typeof c === 'string');
  const wrote = said.findLast((content) => PERSON_WROTE.test(content));
  if (!wrote) {
    return {
      text: 'Let me find you a person.',
      toolCalls: [{ name: 'handoff', arguments: pieces(JSON.stringify({ reason: REASON })) }],
    };
  }
  const [name, words] = wrote.split(PERSON_WROTE);
  return { text: pieces(`${name} told you: ${words}`) };
}

let model: ModelServer;
before(async () => {
  assert.ok(existsSync(join(ROOT, 'dist/svc-chat-inbox.js')), 'the journey loads the built widget: run npm run build');
  process.env[MODEL_KEY_ENV] = 'sk-journey';
  model = await startModelServer({ respond });
  mkdirSync(SHOTS, { recursive: true });
});
after(() => model?.close());

/**
 * The service (with the script-tag files its demo serves) and two sites of their own workspaces: the shop's
 * agent is a `model` agent against the scripted model; the clinic's visitors wait a second for a person.
 */
async function startSites() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-journey-handoff-'));
  const owner = (slug: string) => ({ user_id: `owner_${slug}`, login_token: `lt_${slug}`, wallet: 1000 });
  const running = await startService({
    filesDir: join(dir, 'files'),
    demo: true,
    fixture: {
      workspaces: [
        {
          slug: 'shop',
          display_name: 'Shop',
          owner: owner('shop'),
          operators: {},
          api_keys: [{ id: 'key_shop', secret: 'sk_shop_journey' }],
          agents: [
            {
              id: 'agent_ada',
              name: 'Ada',
              runtime: 'model',
              model: 'scripted-1',
              base_url: model.url,
              api_key_env: MODEL_KEY_ENV,
            },
          ],
        },
        {
          slug: 'clinic',
          display_name: 'Clinic',
          owner: owner('clinic'),
          operators: { wait_seconds: 1 },
          api_keys: [{ id: 'key_clinic', secret: 'sk_clinic_journey' }],
          agents: [{ id: 'agent_desk', name: 'Desk', runtime: 'demo' }],
        },
      ],
    },
  });
  const serviceUrl = running.url;
  const site = (slug: string, apiKey: string, agent: string) =>
    startSite(
      {
        '/journey-probe.js': join(import.meta.dirname, 'probe.js'),
        '/': page(`<script src="/journey-probe.js"></script>
<script src="${serviceUrl}/dist/svc-chat.js"></script>
<svc-chat base-url="${serviceUrl}" token-endpoint="/svc-token" agent-ids="${agent}" persist handoff
  style="display: block; height: 720px; max-width: 720px"></svc-chat>`),
        '/staff': page(`<script src="/journey-probe.js"></script>
<script type="module" src="${serviceUrl}/dist/svc-chat-inbox.js"></script>
<svc-inbox base-url="${serviceUrl}" token-endpoint="/svc-operator-token" style="display: block; height: 720px"></svc-inbox>`),
      },
      { serviceUrl, slug, apiKey },
    );
  const [shop, clinic] = await Promise.all([
    site('shop', 'sk_shop_journey', 'agent_ada'),
    site('clinic', 'sk_clinic_journey', 'agent_desk'),
  ]);
  return {
    shop,
    clinic,
    async close() {
      await Promise.all([shop.close(), clinic.close()]);
      await running.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe('a person takes over: the visitor and the staff in two browsers', { timeout: 300_000 }, () => {
  for (const engine of selectedEngines()) {
    it(`${engine}: the model hands off, Alex takes, both write, a reload, Alex releases, nobody there`, async (t) => {
      const sites = await startSites();
      // Two browsers of the engine, one a side (for WebKit two drivers, each on a display of its own).
      const browsers: Driver[] = [];
      try {
        browsers.push(await launch(engine), await launch(engine));
        const [visitor, staff] = browsers as [Driver, Driver];
        t.diagnostic(visitor.version);
        await takeOver(visitor, staff, sites);
        await nobodyThere(visitor, staff, sites);
      } catch (error) {
        // What each side showed when it went wrong, beside the diagnosis in the error.
        for (const [side, browser] of browsers.entries())
          await browser.screenshot(join(SHOTS, `${engine}-handoff-${SIDES[side]}-failed.png`)).catch(() => {});
        throw error;
      } finally {
        await Promise.all(browsers.map((browser) => browser.close()));
        await sites.close();
      }
    });
  }
});

type Sites = Awaited<ReturnType<typeof startSites>>;

async function takeOver(visitorBrowser: Driver, staffBrowser: Driver, { shop }: Sites) {
  const visitor = person(visitorBrowser);
  const staff = person(staffBrowser);
  const { engine } = visitorBrowser;
  await staffBrowser.goto(`${shop.url}/staff`);
  // The inbox follows the queue before anyone waits: what comes later comes live.
  assert.deepEqual(await staff.look('queue'), { waiting: [], mine: [], missed: [] });
  await visitorBrowser.goto(shop.url);

  // The visitor writes; the model calls `handoff`.
  await visitor.send('My parcel never came. Can a person help?');
  await visitor.look('says', 'Waiting for a person to join…');

  // The inbox, open before, shows the visitor waiting: the reason, the last message; the page's title counts them.
  await staff.until(`__journey.count('[part~="queue-entry"]', ${JSON.stringify(REASON)}) === 1`);
  await staff.look('showsText', ['[part~="queue-entry"]'], 'Let me find you a person.');
  await staff.until(`document.title === '(1) embed'`);
  await staff.press('[part~="queue-entry"]');
  await staff.press('[part~="take-button"]');
  await staff.look('showsText', ['[part~="conversation-header"] [role="status"]'], 'Alex holds it');

  // The visitor sees who holds it.
  await visitor.look('showsText', ['[part~="person-badge"]'], ALEX);
  await visitor.look('says', 'Alex joined the conversation.');

  // Alex writes in the inbox's composer; the visitor gets it live, with Alex's name.
  const fromAlex = `Hello, I am Alex. Your parcel left our store today (${engine}).`;
  await staff.fill(['[part~="composer"] [part~="input"]'], fromAlex);
  await staff.press('[part~="send-button"]');
  await visitor.until(`__journey.transcript().some((line) => line === ${JSON.stringify(`agent: ${fromAlex}`)})`);
  assert.equal(await visitor.look('count', '[part~="message-agent"]', ALEX), 1, "the person's name on their message");

  // The visitor answers; Alex gets it live.
  await visitor.send('Thank you, Alex!');
  await staff.until(`__journey.count('[part~="message-visitor"]', 'Thank you, Alex!') === 1`);
  await visitorBrowser.screenshot(join(SHOTS, `${engine}-handoff-visitor.png`));
  await staffBrowser.screenshot(join(SHOTS, `${engine}-handoff-staff.png`));

  // After a reload the visitor still has Alex, and every message.
  await visitor.look('rendered');
  const seen = await visitor.look<string[]>('transcript');
  assert.match(seen.at(-1)!, /^visitor: Thank you, Alex!/);
  assert.deepEqual(await visitor.look('errors'), []);
  await visitorBrowser.goto(shop.url);
  await visitor.until(`__journey.transcript().length === ${seen.length}`);
  await visitor.look('rendered');
  assert.deepEqual(await visitor.look('transcript'), seen);
  await visitor.look('showsText', ['[part~="person-badge"]'], ALEX);

  // Alex gives it back; the model answers the next message with what Alex wrote.
  await staff.press('[part~="release-button"]');
  await staff.look('showsText', ['[part~="conversation-header"] [role="status"]'], 'The assistant answers');
  await visitor.look('says', 'You are talking with the assistant again.');
  await visitor.send('Where is my parcel now?');
  await visitor.until(`__journey.lastReply().text === ${JSON.stringify(`Alex told you: ${fromAlex}`)}`);
  assert.deepEqual(await visitor.look('errors'), []);
  assert.deepEqual(await staff.look('errors'), []);
}

async function nobodyThere(visitorBrowser: Driver, staffBrowser: Driver, { clinic }: Sites) {
  const visitor = person(visitorBrowser);
  const staff = person(staffBrowser);
  const name = `Kim ${visitorBrowser.engine}`;
  await staffBrowser.goto(`${clinic.url}/staff`);
  assert.deepEqual(await staff.look('queue'), { waiting: [], mine: [], missed: [] });
  await visitorBrowser.goto(clinic.url);

  // The demo agent asks for a person; nobody takes it within the clinic's second.
  await visitor.send('/human nobody around?');
  await visitor.until(`__journey.lastReply().text === ${JSON.stringify(NOBODY_THERE)}`);
  await visitor.look('says', 'Nobody could join just now.');
  await staff.until(`__journey.count('[part~="queue-entry"]', 'nobody around?') === 1`);
  await staff.look('says', 'Missed (1)');

  // The visitor leaves their details in the contact card; the inbox shows them.
  await visitor.fill(['svc-info-collect', 'input[name="name"]'], name);
  await visitor.fill(['svc-info-collect', 'input[name="email"]'], 'kim@example.com');
  await visitor.press('svc-info-collect', '[part="button"]');
  await visitor.look('shown', ['svc-info-collect', '[part="status"]']);
  await staff.until(
    `__journey.count('[part~="queue-entry"]', ${JSON.stringify(`Left their details: ${name}, kim@example.com`)}) === 1`,
  );
  assert.deepEqual(await visitor.look('errors'), []);
  assert.deepEqual(await staff.look('errors'), []);
}
