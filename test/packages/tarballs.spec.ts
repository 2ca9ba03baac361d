import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { watchErrors } from '../e2e/demo-page.js';
import { chatThrough } from '../embed/chat-through.js';
import { filesUnder, page, type Site, startSite } from '../embed/site.js';
import { type TestPostgres, testPostgres } from '../helpers/postgres.js';
import {
  consumerProject,
  filesMatching,
  folderBytes,
  installedPackages,
  installedVersion,
  npmInstall,
  npmWarnings,
  type Output,
  packBoth,
  ROOT,
  sh,
  startCdn,
  startUntil,
} from './consumer.js';

/**
 * Both packages as their users get them: packed as `npm publish` would, installed from the tarballs into fresh
 * projects, built by the tools sites use (Vite; Next.js in guides.spec.ts), and run. The figures the two-packages issue set are
 * printed (and the ones a machine cannot change asserted): what the SDK's install brings, and how soon the
 * server's `npx svc-server --demo` listens.
 */

/** What an install of the SDK may bring besides React (the packages of `lit`, `marked`, `dompurify`, …). */
const MAX_SDK_PACKAGES = 15;
const MAX_SDK_BYTES = 20 * 1024 * 1024;
/** Server packages a widget or client user must never install. */
const SERVER_PACKAGES = ['fastify', 'pg', 'openai', '@modelcontextprotocol/sdk', 'better-sqlite3', 'tsx', 'zod'];
/** The SDK's entries, each of which imports in plain Node (a server rendering the page). */
const ENTRIES = ['@svc/agent-sdk', '@svc/agent-sdk/protocol', '@svc/agent-sdk/elements', '@svc/agent-sdk/react'];
/** The SDK's runtime dependencies, as design.md names them (Packaging). */
const DEPENDENCIES = ['@lit/context', 'dompurify', 'eventsource-parser', 'lit', 'marked'];
/** The React entry's peers, which a React site installs beside the SDK (docs/frameworks/react.md). */
const REACT_PEERS = ['react', 'react-dom', '@lit/react'];

let packs: Awaited<ReturnType<typeof packBoth>>;
let sdkUser: string;
let sdkInstall: Output;
/** The server's install, started first and awaited by its tests. */
let serverInstall: Promise<{ dir: string; output: Output }>;
const projects: string[] = [];
/** Stops each server a test started. */
const servers: (() => void)[] = [];
const figures: [string, string, string][] = [];

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  test.setTimeout(15 * 60_000);
  packs = await packBoth();
  // An operator on PostgreSQL: better-sqlite3 is an optional peer, which this install leaves out.
  const serverUser = consumerProject('server-user');
  projects.push(serverUser);
  serverInstall = npmInstall(serverUser, [packs.sdk, packs.server]).then((output) => ({ dir: serverUser, output }));
  serverInstall.catch(() => {});
  sdkUser = consumerProject('sdk-user');
  projects.push(sdkUser);
  sdkInstall = await npmInstall(sdkUser, [packs.sdk]);
});

test.afterAll(async () => {
  test.setTimeout(10 * 60_000);
  for (const stop of servers) stop();
  await serverInstall?.catch(() => {});
  console.log(
    [
      'figures of the packed packages:',
      ...figures.map(([name, value, goal]) => `  ${name}: ${value} (goal ${goal})`),
    ].join('\n'),
  );
  for (const dir of [...projects, packs?.dir]) if (dir) rmSync(dir, { recursive: true, force: true });
});

test('the SDK installs like its peers: a few browser packages, no server, no native module, no warning', async () => {
  const others = installedPackages(sdkUser).filter((name) => !/^(react|react-dom|scheduler|@types\/react)$/.test(name));
  const bytes = folderBytes(join(sdkUser, 'node_modules'));
  figures.push(['SDK install: packages besides React', String(others.length), `≤ ${MAX_SDK_PACKAGES}`]);
  figures.push(['SDK install: node_modules', `${(bytes / 1024 / 1024).toFixed(1)} MB`, '≤ 20 MB']);
  figures.push(['SDK install: npm warnings on Node 20.19+', String(npmWarnings(sdkInstall).length), '0']);
  expect(others.length, others.join(', ')).toBeLessThanOrEqual(MAX_SDK_PACKAGES);
  expect(bytes).toBeLessThanOrEqual(MAX_SDK_BYTES);
  expect(npmWarnings(sdkInstall)).toEqual([]);
  expect(others.filter((name) => SERVER_PACKAGES.includes(name))).toEqual([]);
  expect(filesMatching(join(sdkUser, 'node_modules'), /\.node$|^binding\.gyp$/)).toEqual([]);
  const lock = JSON.parse(readFileSync(join(sdkUser, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { hasInstallScript?: boolean }>;
  };
  expect(Object.keys(lock.packages).filter((path) => lock.packages[path]!.hasInstallScript)).toEqual([]);
  // The same install where npm refuses any package whose engines exclude this Node.
  const strict = consumerProject('sdk-strict');
  projects.push(strict);
  await npmInstall(strict, [packs.sdk], ['--engine-strict']);
});

test('the SDK depends on its five runtime packages; the code highlighter is built in', async () => {
  const installed = join(sdkUser, 'node_modules/@svc/agent-sdk');
  const pkg = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  expect(Object.keys(pkg.dependencies).sort()).toEqual(DEPENDENCIES);
  expect(installedPackages(sdkUser).filter((name) => /^@speed-highlight\/|^@lit\/react$/.test(name))).toEqual([]);
  // The module the markdown engine loads for a code block, highlighting with nothing more installed.
  const { stdout } = await sh(sdkUser, process.execPath, [
    '--input-type=module',
    '-e',
    `const { highlight } = await import(${JSON.stringify(join(installed, 'dist/lib/elements/svc-markdown/highlight.js'))});
    console.log(highlight('const answer = 42;', 'js'));`,
  ]);
  expect(stdout).toContain('<span class="tok-kwd">const</span>');
});

test('every entry of the SDK imports in plain Node, where there is no DOM', async () => {
  // The React entry's optional peers, as a React site has them.
  await npmInstall(
    sdkUser,
    REACT_PEERS.map((name) => `${name}@${installedVersion(name)}`),
  );
  for (const entry of [...ENTRIES, '@svc/agent-sdk/tools']) {
    const { stdout } = await sh(sdkUser, process.execPath, [
      '--input-type=module',
      '-e',
      `const m = await import(${JSON.stringify(entry)}); console.log(Object.keys(m).length);`,
    ]);
    expect(Number(stdout), entry).toBeGreaterThan(0);
  }
  figures.push(['SDK entries that import in plain Node', `${ENTRIES.length + 1} of ${ENTRIES.length + 1}`, 'all']);
});

test('the SDK ships JavaScript, types for every entry, a licence and its manifest pointing at shipped files', async () => {
  const installed = join(sdkUser, 'node_modules/@svc/agent-sdk');
  const pkg = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as Record<string, unknown>;
  expect(pkg.repository).toBeTruthy();
  expect(pkg.homepage).toBeTruthy();
  expect(pkg.bugs).toBeTruthy();
  expect(readFileSync(join(installed, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
  expect(filesMatching(installed, /\.(ts|map)$/).filter((file) => !file.endsWith('.d.ts'))).toEqual([]);
  const manifest = readFileSync(join(installed, 'custom-elements.json'), 'utf8');
  const modules = [...manifest.matchAll(/"(?:path|module)": "([^"]+)"/g)].map((m) => m[1]!);
  expect(modules.length).toBeGreaterThan(5);
  for (const module of new Set(modules)) expect(() => readFileSync(join(installed, module)), module).not.toThrow();
});

test('publint --strict and arethetypeswrong find no problem in either tarball', async () => {
  // Four tool runs of their own (each starts Node and reads a tarball): over a minute on a busy machine.
  test.setTimeout(5 * 60_000);
  for (const tarball of [packs.sdk, packs.server]) {
    const lint = await sh(ROOT, 'npx', ['publint', 'run', tarball, '--strict']);
    expect(lint.stdout).toContain('All good!');
    // ESM only: `esm-only` leaves out the resolutions of CommonJS `require` (docs/packages.md).
    await sh(ROOT, 'npx', ['attw', tarball, '--profile', 'esm-only', '--format', 'ascii']);
  }
});

test.describe("the README's CDN snippet, from the tarball's files served as an npm CDN serves them", () => {
  let site: Site;
  let cdn: { url: string; close: () => Promise<void> };

  test.beforeAll(async () => {
    const installed = join(sdkUser, 'node_modules/@svc/agent-sdk');
    const { version } = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { version: string };
    cdn = await startCdn(`/npm/@svc/agent-sdk@${version}/`, installed);
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const snippet = /\*\*From a CDN, pinned to a release\.\*\*[\s\S]*?```html\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(snippet).toContain(`https://cdn.jsdelivr.net/npm/@svc/agent-sdk@${version}/dist/svc-chat.js`);
    // The one change: the CDN's origin. The page is the site's own; the element talks to its origin.
    site = await startSite({ '/': page(snippet.replace('https://cdn.jsdelivr.net', cdn.url)) });
  });

  test.afterAll(async () => {
    await site?.close();
    await cdn?.close();
  });

  test("its integrity is the release's, and the chat loads every file from the CDN path and chats", async ({
    page: browser,
  }) => {
    const errors = watchErrors(browser);
    const fromCdn: string[] = [];
    browser.on('response', (response) => {
      if (response.url().startsWith(cdn.url)) fromCdn.push(new URL(response.url()).pathname.replace(/^.*\/dist\//, ''));
    });
    await browser.goto(site.url);
    const chat = browser.locator('svc-chat');
    await chat.locator('[part~="launcher"]').click();
    const input = chat.locator('[part~="input"]');
    await input.fill('/help');
    await input.press('Enter');
    await expect(chat.locator('[part~="message-agent"] [part~="bubble"]').last()).toContainText('/markdown');
    // The browser checked the script against `integrity` (a mismatch blocks it): the README names this release's.
    const published = JSON.parse(
      readFileSync(join(sdkUser, 'node_modules/@svc/agent-sdk/dist/integrity.json'), 'utf8'),
    ) as Record<string, string>;
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain(`integrity="${published['svc-chat.js']}"`);
    // The classic script is the launcher itself (issue 43): the ES module launcher is not a file of this page.
    expect(fromCdn).toContain('svc-chat.js');
    expect(fromCdn).not.toContain('svc-chat.esm.js');
    expect(fromCdn.some((file) => /^svc-chat-panel\.[\w-]{8}\.js$/.test(file))).toBe(true);
    expect(fromCdn.some((file) => /^svc-chat-markdown\.[\w-]{8}\.js$/.test(file))).toBe(true);
    expect(errors).toEqual([]);
  });
});

test.describe('a Vite site built against the installed SDK', () => {
  let site: Site;

  test.beforeAll(async () => {
    test.setTimeout(10 * 60_000);
    const dir = consumerProject(
      'vite-site',
      { scripts: { build: 'vite build' } },
      {
        'index.html': { copy: join(import.meta.dirname, 'vite/index.html') },
        'main.js': { copy: join(import.meta.dirname, 'vite/main.js') },
        // The React guide's snippet (docs/frameworks/react.md), as the embed tests run it from the repository.
        react: { copy: join(ROOT, 'test/embed/react') },
        'vite.config.js': `export default { build: { rollupOptions: { input: ['index.html', 'react/index.html'] } } };\n`,
      },
    );
    projects.push(dir);
    const versions = ['vite', ...REACT_PEERS].map((name) => `${name}@${installedVersion(name)}`);
    await npmInstall(dir, [packs.sdk, ...versions]);
    await sh(dir, 'npm', ['run', 'build']);
    site = await startSite(filesUnder(join(dir, 'dist'), '/'));
  });

  test.afterAll(() => site?.close());

  test('a plain page that imports @svc/agent-sdk/elements chats with the agent', async ({ page }) => {
    const errors = watchErrors(page);
    await page.goto(`${site.url}/index.html`);
    await chatThrough(page.locator('svc-chat'), 'hello from vite');
    await expect(page).toHaveTitle('replied');
    expect(errors).toEqual([]);
  });

  test("a code block the agent sends is highlighted, with no highlighter in the site's dependencies", async ({
    page,
  }) => {
    const errors = watchErrors(page);
    await page.goto(`${site.url}/index.html`);
    const chat = page.locator('svc-chat');
    const input = chat.locator('[part~="input"]');
    await input.fill('code:\n```js\nconst answer = 42;\n```');
    await input.press('Enter');
    const reply = chat.locator('[part~="message-agent"] [part~="bubble"]').last();
    await expect(reply.locator('pre code span.tok-kwd')).toHaveText('const');
    expect(errors).toEqual([]);
  });

  test('a React 19 page with ChatBox and useSvcChat chats with the agent', async ({ page }) => {
    const errors = watchErrors(page);
    await page.goto(`${site.url}/react/index.html`);
    await chatThrough(page.locator('svc-chat'), 'hello from react');
    await expect(page.getByText('Replies: 1')).toBeVisible();
    expect(errors).toEqual([]);
  });
});

test.describe('the server installed from its tarball', () => {
  let dir: string;
  let service: string;
  let postgres: TestPostgres;

  test.beforeAll(async () => {
    test.setTimeout(10 * 60_000);
    const install = await serverInstall;
    dir = install.dir;
    figures.push(['server install: npm warnings on Node 20.19+', String(npmWarnings(install.output).length), '0']);
    expect(npmWarnings(install.output)).toEqual([]);
    postgres = await testPostgres();
    const db = await postgres.createDatabase();
    const started = performance.now();
    const { stop, match } = await startUntil(
      dir,
      'npx',
      ['svc-server', '--demo', '--port', '0', '--db', db],
      /^listening on (\S+)$/,
    );
    servers.push(stop);
    service = match[1]!;
    figures.push([
      '`npx svc-server --demo`: start to `listening on`',
      `${Math.round(performance.now() - started)} ms`,
      '≤ 2 s',
    ]);
  });

  test.afterAll(() => postgres?.stop());

  test('a PostgreSQL-only install compiles nothing; asked for SQLite, it says in one line how to add it', async () => {
    expect(installedPackages(dir)).not.toContain('better-sqlite3');
    expect(filesMatching(join(dir, 'node_modules'), /\.node$|^binding\.gyp$/)).toEqual([]);
    const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { hasInstallScript?: boolean }>;
    };
    expect(Object.keys(lock.packages).filter((path) => lock.packages[path]!.hasInstallScript)).toEqual([]);
    const refused = await sh(dir, 'npx', ['svc-server', '--port', '0']).then(
      () => '',
      (err: Error) => err.message,
    );
    expect(refused).toContain(
      '--db :memory: is SQLite, which needs better-sqlite3: npm install better-sqlite3 (or give --db postgres://…)',
    );
    figures.push(['PostgreSQL-only server install: native modules compiled', '0', '0']);
  });

  test('runs compiled JavaScript, with no TypeScript at run time', async () => {
    const installed = join(dir, 'node_modules/@svc/agent-server');
    expect(filesMatching(join(installed, 'dist'), /\.ts$/).filter((file) => !file.endsWith('.d.ts'))).toEqual([]);
    expect(installedPackages(dir)).not.toContain('tsx');
    expect(readFileSync(join(installed, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
    // Its own README: how to install it (with SQLite or without) and run it.
    expect(readFileSync(join(installed, 'README.md'), 'utf8')).toMatch(
      /^# @svc\/agent-server\n[\s\S]*npm install @svc\/agent-server better-sqlite3/,
    );
  });

  test('`npx svc-server --demo` serves its demo page, where a visitor chats with the demo agent', async ({ page }) => {
    const errors = watchErrors(page);
    await page.goto(service);
    const chat = page.locator('#inline-chat');
    const input = chat.locator('[part~="input"]');
    await input.fill('/help');
    await input.press('Enter');
    await expect(chat.locator('[part~="message-agent"] [part~="bubble"]').last()).toContainText('/markdown');
    expect(errors).toEqual([]);
  });
});
