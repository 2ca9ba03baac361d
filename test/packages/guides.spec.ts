import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect, test } from '@playwright/test';
import { watchErrors } from '../e2e/demo-page.js';
import { chatThrough } from '../embed/chat-through.js';
import { filesUnder, page, type Site, startSite } from '../embed/site.js';
import { freePort } from '../helpers/free-port.mjs';
import { consumerProject, npmInstall, type Output, packBoth, ROOT, sh, startUntil } from './consumer.js';

/**
 * Each framework guide of docs/frameworks/ as an adopter follows it: a project made by that framework's own
 * starter, the guide's install line with the packed tarball in place of the registry's package, every code block
 * the guide names a file of (```jsx title="src/App.jsx"```) written over the starter's file as it stands in the
 * guide, the starter's own build, and the page in Chromium chatting with the real service. Nothing of the guide is
 * changed; one `npm install` per project.
 */

/** The starters, pinned so that a run is the same: the official scaffolding of each framework. */
const CREATE_VITE = 'vite@9.3.0';
const ANGULAR_CLI = '@angular/cli@20.3.41';
// The newest create-next-app the registry has; its starter pins next and React to its own release.
const CREATE_NEXT_APP = 'create-next-app@16.4.3';
/** A font file for the Google Fonts stand-in (fonts-dejavu-core, which Chromium's package brings). */
const FONT_FILE = process.env.SVC_TEST_FONT ?? '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf';

interface Guide {
  /** The guide's file in docs/frameworks/. */
  file: string;
  /** The command that makes the starter project in `app/`. */
  create: string[];
  /** Where the starter's build writes the site. */
  out: string;
}

const viteStarter = (template: string) => [
  'npm',
  'create',
  '--yes',
  CREATE_VITE,
  'app',
  '--',
  '--template',
  template,
  '--no-interactive',
];

const GUIDES: Record<string, Guide> = {
  React: { file: 'react.md', create: viteStarter('react'), out: 'dist' },
  Vue: { file: 'vue.md', create: viteStarter('vue'), out: 'dist' },
  Svelte: { file: 'svelte.md', create: viteStarter('svelte'), out: 'dist' },
  // Angular 20: the last major whose CLI runs on Node 20 (21 needs Node 22); the release whose @angular/build the registry has too.
  Angular: {
    file: 'angular.md',
    create: [
      'npx',
      '--yes',
      '-p',
      ANGULAR_CLI,
      'ng',
      'new',
      'app',
      '--defaults',
      '--skip-git',
      '--skip-install',
      '--ssr=false',
    ],
    out: 'dist/app/browser',
  },
};

/** The code blocks of `markdown` that name a file (`title="path"`), by path. */
function guideFiles(markdown: string): Record<string, string> {
  const blocks = [...markdown.matchAll(/^```\w+ title="([^"]+)"\n([\s\S]*?)^```$/gm)];
  return Object.fromEntries(blocks.map(([, path, code]) => [path!, code!]));
}

/** The packages of the guide's first `npm install` line, the SDK as `tarball`; none where it has no such line. */
function guideInstall(markdown: string, tarball: string): string[] {
  const line = /^npm install (.+)$/m.exec(markdown)?.[1] ?? '@svc/agent-sdk';
  return line.split(/\s+/).map((name) => (name === '@svc/agent-sdk' ? tarball : name));
}

/** Writes each code block of `markdown` that names a file over the project in `app`. */
function writeGuideFiles(app: string, markdown: string): void {
  const files = guideFiles(markdown);
  expect(Object.keys(files).length, 'the guide names the files it shows').toBeGreaterThan(0);
  for (const [path, code] of Object.entries(files)) {
    mkdirSync(dirname(join(app, path)), { recursive: true });
    writeFileSync(join(app, path), code);
  }
}

let packs: Awaited<ReturnType<typeof packBoth>>;
const dirs: string[] = [];

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  packs = await packBoth();
});

test.afterAll(() => {
  for (const dir of [...dirs, packs?.dir]) if (dir) rmSync(dir, { recursive: true, force: true });
});

for (const [name, guide] of Object.entries(GUIDES)) {
  test.describe(`docs/frameworks/${guide.file} in ${name}'s starter`, () => {
    let site: Site;

    test.beforeAll(async () => {
      test.setTimeout(10 * 60_000);
      const markdown = readFileSync(join(ROOT, 'docs/frameworks', guide.file), 'utf8');
      const root = mkdtempSync(join(tmpdir(), `svc-guide-${name.toLowerCase()}-`));
      dirs.push(root);
      const [command, ...args] = guide.create;
      await sh(root, command!, args);
      const app = join(root, 'app');
      writeGuideFiles(app, markdown);
      // The starter's dependencies and the guide's, in one install.
      await npmInstall(app, guideInstall(markdown, packs.sdk));
      await sh(app, 'npm', ['run', 'build']);
      site = await startSite(filesUnder(join(app, guide.out), '/'));
    });

    test.afterAll(() => site?.close());

    test('the page chats with the agent', async ({ page }) => {
      const errors = watchErrors(page);
      await page.goto(`${site.url}/`);
      await chatThrough(page.locator('svc-chat').first(), `hello from ${name}`);
      await expect(page.getByText('Replies: 1')).toBeVisible();
      expect(errors).toEqual([]);
    });
  });
}

test.describe('docs/frameworks/html.md on a site of plain HTML', () => {
  let site: Site;

  test.beforeAll(async () => {
    const markdown = readFileSync(join(ROOT, 'docs/frameworks/html.md'), 'utf8');
    const snippet = /^```html\n([\s\S]*?)^```$/m.exec(markdown)?.[1] ?? '';
    expect(snippet).toContain('<script src="/assets/svc-chat.js"></script>');
    const dir = consumerProject('html-site');
    dirs.push(dir);
    await npmInstall(dir, guideInstall(markdown, packs.sdk));
    // As the guide says: every `dist/svc-chat*.js` file of the installed package, in one folder of the site.
    const dist = join(dir, 'node_modules/@svc/agent-sdk/dist');
    const scripts = readdirSync(dist).filter((file) => /^svc-chat.*\.js$/.test(file));
    site = await startSite({
      ...Object.fromEntries(scripts.map((file) => [`/assets/${file}`, join(dist, file)])),
      '/': page(snippet),
    });
  });

  test.afterAll(() => site?.close());

  test('the page chats with the agent', async ({ page: browser }) => {
    const errors = watchErrors(browser);
    await browser.goto(`${site.url}/`);
    await chatThrough(browser.locator('svc-chat'), 'hello from plain HTML');
    expect(errors).toEqual([]);
  });
});

test.describe("docs/frameworks/nextjs.md in create-next-app's starter", () => {
  let url: string;
  let build: Output;
  let fonts: Site;
  let stop: (() => void) | undefined;

  test.beforeAll(async () => {
    test.setTimeout(15 * 60_000);
    const markdown = readFileSync(join(ROOT, 'docs/frameworks/nextjs.md'), 'utf8');
    const root = mkdtempSync(join(tmpdir(), 'svc-guide-next-'));
    dirs.push(root);
    await sh(root, 'npx', ['--yes', CREATE_NEXT_APP, 'app', '--yes', '--skip-install', '--disable-git']);
    const app = join(root, 'app');
    writeGuideFiles(app, markdown);
    await npmInstall(app, guideInstall(markdown, packs.sdk));
    // The starter's layout asks Google Fonts for Geist and Geist Mono (variable weights), out of reach here:
    // Next.js's own stand-in answers with a stylesheet per URL, whose font file it still fetches, from `fonts`.
    fonts = await startSite({ '/font.ttf': FONT_FILE });
    const face = `@font-face { font-family: 'Stand-in'; font-weight: 100 900; src: url(${fonts.url}/font.ttf) format('truetype'); }`;
    const stylesheets = Object.fromEntries(
      ['Geist', 'Geist+Mono'].map((family) => [
        `https://fonts.googleapis.com/css2?family=${family}:wght@100..900&display=swap`,
        face,
      ]),
    );
    const mock = join(root, 'google-fonts.cjs');
    writeFileSync(mock, `module.exports = ${JSON.stringify(stylesheets)};\n`);
    const env = {
      NEXT_PUBLIC_SVC_URL: process.env.SVC_E2E_URL!,
      SVC_URL: process.env.SVC_E2E_URL!,
      SVC_API_KEY: process.env.SVC_E2E_API_KEY!,
      NEXT_FONT_GOOGLE_MOCKED_RESPONSES: mock,
    };
    build = await sh(app, 'npm', ['run', 'build'], env);
    const port = await freePort();
    const args = ['run', 'start', '--', '--port', String(port), '--hostname', '127.0.0.1'];
    ({ stop } = await startUntil(app, 'npm', args, /Ready in/, env));
    url = `http://127.0.0.1:${port}`;
  });

  test.afterAll(async () => {
    stop?.();
    await fonts?.close();
  });

  test('`next build` prerenders the page with <ChatBox>, with no dynamic import turned off for the server', () => {
    expect(`${build.stdout}\n${build.stderr}`).toMatch(/○ \/\s*$/m);
  });

  test('the prerendered page comes to life and chats, its session minted by the route handler with SvcClient', async ({
    page: browser,
  }) => {
    const errors = watchErrors(browser);
    const html = await (await fetch(url)).text();
    // Configured in the HTML itself: the element upgrades before React hydrates it.
    const tag = html.match(/<svc-chat[^>]*>/)?.[0];
    expect(tag).toContain(' mode="inline"');
    expect(tag).toContain(` base-url="${process.env.SVC_E2E_URL}"`);
    expect(tag).toContain(' token-endpoint="/api/svc-token"');
    await browser.goto(url);
    await chatThrough(browser.locator('svc-chat'), 'hello from next');
    expect(errors).toEqual([]);
  });
});
