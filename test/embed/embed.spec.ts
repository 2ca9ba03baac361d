import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { scriptTagFiles } from '../../scripts/script-tag-files.mjs';
import { watchErrors } from '../e2e/demo-page.js';
import { buildApp, ROOT } from './build-app.js';
import { chatThrough } from './chat-through.js';
import { filesUnder, type Site, startSite, page as wrap } from './site.js';

/**
 * The chat embedded the ways the guides in docs/frameworks/ show (their snippets are the files used here),
 * in real pages of a real site, against the real service: each sends a message to `agent_echo` and sees
 * the echo rendered.
 */

const snippet = readFileSync(join(import.meta.dirname, 'html/snippet.html'), 'utf8');
const asset = (name: string) => join(ROOT, 'dist', name);
/** The built file of a chunk (`svc-chat-markdown` → `svc-chat-markdown.<hash>.js`: named by its content). */
const chunk = (name: string) => basename(scriptTagFiles(join(ROOT, 'dist'))[`${name}.js`]!);
/** Every script-tag file (`svc-chat.js`, `svc-chat.esm.js` and the files it loads), at `prefix` + its name. */
const assets = (prefix: string, keep: (name: string) => boolean = () => true) =>
  Object.fromEntries(
    readdirSync(join(ROOT, 'dist'))
      .filter((name) => /^svc-chat.*\.js$/.test(name) && keep(name))
      .map((name) => [`${prefix}${name}`, asset(name)]),
  );

let site: Site;
let builds: string;

test.beforeAll(async () => {
  builds = mkdtempSync(join(tmpdir(), 'svc-embed-'));
  // React's development build: its warnings (unknown props, effects run twice by StrictMode) show.
  await buildApp('react', join(builds, 'react'), { mode: 'development' });
  await buildApp('vue', join(builds, 'vue'), {
    // The full build of Vue compiles the app's template in the browser.
    alias: [{ find: /^vue$/, replacement: 'vue/dist/vue.esm-bundler.js' }],
    define: {
      __VUE_OPTIONS_API__: 'true',
      __VUE_PROD_DEVTOOLS__: 'false',
      __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'false',
    },
  });
  // Svelte compiles its components at build time, as a site's Vite does with the Svelte plugin.
  await buildApp('svelte', join(builds, 'svelte'), { plugins: [svelte()] });
  site = await startSite({
    ...assets('/assets/'),
    '/html/': wrap(snippet),
    // The launcher: what a page loads before the chat is used.
    '/launcher/': wrap(snippet.replace('<svc-chat ', '<svc-chat mode="launcher" ')),
    '/module/': wrap(
      `${snippet.replace('<script src="/assets/svc-chat.js"></script>', '')}\n<script type="module" src="/assets/svc-chat.esm.js"></script>`,
    ),
    // The same page in Arabic: its labels are a file beside the script too.
    '/arabic/': wrap(snippet.replace('<svc-chat ', '<svc-chat lang="ar" ')),
    // The script deployed without the markdown engine next to it.
    ...assets('/lone/', (name) => name !== chunk('svc-chat-markdown')),
    '/lone/': wrap(snippet.replace('/assets/svc-chat.js', '/lone/svc-chat.js')),
    // The script loaded again, as a classic script and as the ES module build, after the chat is on the page.
    '/twice/': wrap(
      `${snippet}\n<script src="/assets/svc-chat.js"></script>\n<script type="module" src="/assets/svc-chat.esm.js"></script>`,
    ),
    ...filesUnder(join(builds, 'react'), '/react/'),
    ...filesUnder(join(builds, 'vue'), '/vue/'),
    ...filesUnder(join(builds, 'svelte'), '/svelte/'),
  });
});

test.afterAll(async () => {
  await site?.close();
  if (builds) rmSync(builds, { recursive: true, force: true });
});

test('plain HTML: one script tag and the element chat with the agent', async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto(`${site.url}/html/`);
  await chatThrough(page.locator('svc-chat'), 'hello from html');
  // The classic script also offers the chat client and the record helpers to the page.
  expect(await page.evaluate(() => typeof (window as { Svc?: { ChatClient?: unknown } }).Svc?.ChatClient)).toBe(
    'function',
  );
  expect(errors).toEqual([]);
});

test('plain HTML: the markdown engine loads once, from next to the script', async ({ page }) => {
  const engine: string[] = [];
  page.on('request', (request) => {
    if (request.url().includes('/svc-chat-markdown.')) engine.push(new URL(request.url()).pathname);
  });
  await page.goto(`${site.url}/html/`);
  await chatThrough(page.locator('svc-chat'), 'engine');
  expect(engine).toEqual([`/assets/${chunk('svc-chat-markdown')}`]);
});

test('plain HTML in Arabic: the labels load once, from next to the script, and the chat is right to left', async ({
  page,
}) => {
  const errors = watchErrors(page);
  const labels: string[] = [];
  page.on('request', (request) => {
    if (request.url().includes('/svc-chat-lang-')) labels.push(new URL(request.url()).pathname);
  });
  await page.goto(`${site.url}/arabic/`);
  const chat = page.locator('svc-chat');
  await expect(chat.locator('[part~="input"]')).toHaveAttribute('placeholder', 'اكتب رسالة…');
  await expect(chat.locator('[part~="panel"]')).toHaveAttribute('dir', 'rtl');
  await chatThrough(chat, 'marhaba');
  expect(labels).toEqual([`/assets/${chunk('svc-chat-lang-ar')}`]);
  expect(errors).toEqual([]);
});

test('deployed without the markdown engine: messages show as plain text, and the console says why', async ({
  page,
}) => {
  const errors = watchErrors(page);
  await page.goto(`${site.url}/lone/`);
  const chat = page.locator('svc-chat');
  const input = chat.locator('[part~="input"]');
  await input.fill('plain **text**');
  await input.press('Enter');
  const reply = chat.locator('[part~="message-agent"] [part~="bubble"]').last();
  await expect(reply).toHaveText('Echo: plain **text**');
  await expect(reply.locator('strong')).toHaveCount(0);
  expect(errors.some((error) => error.includes('the markdown renderer did not load'))).toBe(true);
});

test('the script loaded twice: no error, one registration, and the chat works', async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto(`${site.url}/twice/`);
  // Both copies ran: the ES module build is evaluated after the classic script.
  await page.waitForFunction(() => document.readyState === 'complete');
  const first = await page.evaluate(
    () => customElements.get('svc-chat') === document.querySelector('svc-chat')?.constructor,
  );
  expect(first).toBe(true);
  await expect(page.locator('svc-chat')).toHaveCount(1);
  await chatThrough(page.locator('svc-chat'), 'hello twice');
  expect(errors).toEqual([]);
});

test('React: ChatBox with event props, and useSvcChat driving a chat drawn by React', async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto(`${site.url}/react/`);
  await chatThrough(page.locator('svc-chat'), 'hello from react');
  // onTurnComplete arrived as a React prop callback.
  await expect(page.getByText('Replies: 1')).toBeVisible();
  // So does onFeedback, once the service stored the visitor's 👍.
  await page.locator('svc-chat').getByRole('button', { name: 'Good reply' }).last().click();
  await expect(page.getByText('Rated: up')).toBeVisible();

  const custom = page.getByRole('form', { name: 'Custom chat' });
  await custom.getByLabel('Message').fill('hook says *hi*');
  await custom.getByRole('button', { name: 'Send' }).click();
  await expect(custom.locator('li.user')).toHaveText(['hook says hi']);
  const reply = custom.locator('li.agent svc-markdown');
  await expect(reply).toHaveText('Echo: hook says hi');
  await expect(reply.locator('em')).toHaveText('hi');
  await expect(custom.getByRole('button', { name: 'Send' })).toBeEnabled();
  expect(errors).toEqual([]);
});

test('React: useInjectStyles adds the token sheet once and removes it with its last user', async ({ page }) => {
  await page.goto(`${site.url}/react/`);
  const tokenSheets = () =>
    page.evaluate(
      () =>
        document.adoptedStyleSheets.filter((sheet) =>
          [...sheet.cssRules].some((rule) => rule.cssText.includes('--svc-color-primary')),
        ).length,
    );
  const custom = page.getByRole('form', { name: 'Custom chat' });
  await expect(custom).toBeVisible();
  // StrictMode runs the effect, its cleanup and the effect again: still one sheet.
  expect(await tokenSheets()).toBe(1);
  await page.getByRole('button', { name: 'Hide custom chat' }).click();
  await expect(custom).toHaveCount(0);
  expect(await tokenSheets()).toBe(0);
});

test('Vue: the element in a Vue template, its event handled by Vue', async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto(`${site.url}/vue/`);
  await chatThrough(page.locator('svc-chat'), 'hello from vue');
  await expect(page.getByText('Replies: 1')).toBeVisible();
  expect(errors).toEqual([]);
});

test('Svelte: the element in a Svelte 5 component, given properties and its event handled by Svelte', async ({
  page,
}) => {
  const errors = watchErrors(page);
  await page.goto(`${site.url}/svelte/`);
  const chat = page.locator('svc-chat');
  // `labels` arrived as an object property, not as the attribute "[object Object]".
  await expect(chat.locator('[part~="input"]')).toHaveAttribute('placeholder', 'Ask us anything');
  await expect(chat.locator('[part~="title"]')).toHaveText('Support');
  // The session comes from `tokenProvider`, a function only a property can carry.
  await chatThrough(chat, 'hello from svelte');
  await expect(page.getByText('Replies: 1')).toBeVisible();
  expect(errors).toEqual([]);
});

/**
 * Holds every request for the chat's panel (and, when asked, its markdown engine) until `release()`: the rest of
 * the widget is late for as long as a test wants. `asked` resolves once the panel is requested.
 */
async function holdPanel(page: Page, { markdown = false } = {}) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let requested!: () => void;
  const asked = new Promise<void>((resolve) => {
    requested = resolve;
  });
  await page.route(`**/${chunk('svc-chat-panel')}`, async (route) => {
    requested();
    await released;
    await route.continue();
  });
  if (markdown) {
    await page.route(`**/${chunk('svc-chat-markdown')}`, async (route) => {
      await released;
      await route.continue();
    });
  }
  return { asked, release };
}

test('the launcher paints from svc-chat.js alone, one request, and the rest loads while the page is idle', async ({
  page,
}) => {
  const errors = watchErrors(page);
  const scripts: string[] = [];
  page.on('request', (request) => {
    if (request.resourceType() === 'script') scripts.push(new URL(request.url()).pathname);
  });
  const panel = await holdPanel(page, { markdown: true });
  await page.goto(`${site.url}/launcher/`);
  await expect(page.locator('svc-chat [part~="launcher"]')).toBeVisible();
  // The panel (with Lit) and the markdown engine are held back (the launcher asks for the engine as soon as it
  // has painted): the launcher painted from the classic script alone (issue 43: no module imported in a row).
  const rest = [`/assets/${chunk('svc-chat-panel')}`, `/assets/${chunk('svc-chat-markdown')}`];
  expect(scripts.filter((script) => !rest.includes(script))).toEqual(['/assets/svc-chat.js']);
  // Nobody touched the launcher: the rest is asked for once the page is idle.
  await panel.asked;
  expect(scripts).toContain(`/assets/${chunk('svc-chat-panel')}`);
  panel.release();
  await page.waitForFunction(
    () => typeof (window as { Svc?: { ChatClient?: unknown } }).Svc?.ChatClient === 'function',
  );
  expect(errors).toEqual([]);
});

test('a visitor who opens the launcher before the panel has arrived sees it open at once, and what they typed is sent', async ({
  page,
}) => {
  const errors = watchErrors(page);
  const panel = await holdPanel(page);
  await page.goto(`${site.url}/launcher/`);
  const chat = page.locator('svc-chat');
  await chat.locator('[part~="launcher"]').click();
  // Open at once, saying it is on its way, with a field to write in.
  await expect(chat.locator('[part~="panel"]')).toBeVisible();
  await expect(chat.locator('[part~="panel"]')).toHaveAttribute('aria-busy', 'true');
  await expect(chat.locator('[part~="notice"]')).toHaveText('Connecting…');
  const input = chat.locator('[part~="input"]');
  await expect(input).toBeFocused();
  await input.pressSequentially('early **bird**');
  await input.press('Enter');
  await panel.asked;
  panel.release();
  // The panel took over: what was typed and sent went out once it was there.
  await expect(chat.locator('[part~="message-user"]')).toHaveText(['early **bird**']);
  await expect(chat.locator('[part~="message-agent"] [part~="bubble"]').last()).toHaveText('Echo: early bird');
  await expect(chat.locator('[part~="panel"]')).not.toHaveAttribute('aria-busy', 'true');
  expect(errors).toEqual([]);
});

test('typed before the panel arrived and not sent: the text stays in the field, with the focus', async ({ page }) => {
  const panel = await holdPanel(page);
  await page.goto(`${site.url}/launcher/`);
  const chat = page.locator('svc-chat');
  await chat.locator('[part~="launcher"]').click();
  const input = chat.locator('[part~="input"]');
  await input.pressSequentially('half a thought');
  await panel.asked;
  panel.release();
  await expect(chat.locator('[part~="new-button"]')).toBeVisible();
  await expect(input).toHaveValue('half a thought');
  await expect(input).toBeFocused();
  await expect(chat.locator('[part~="message-user"]')).toHaveCount(0);
});

test('window.Svc: Svc.load() loads the rest at once and resolves with window.Svc, which then holds the clients', async ({
  page,
}) => {
  const panel = await holdPanel(page);
  await page.goto(`${site.url}/launcher/`);
  type Svc = { load(): Promise<Svc>; ChatClient?: unknown; extractText?: unknown; SvcPaymentGate?: unknown };
  expect(await page.evaluate(() => typeof (window as unknown as { Svc: Svc }).Svc.ChatClient)).toBe('undefined');
  const loaded = page.evaluate(async () => {
    const svc = (window as unknown as { Svc: Svc }).Svc;
    const same = (await svc.load()) === svc;
    return { same, client: typeof svc.ChatClient, helper: typeof svc.extractText, card: typeof svc.SvcPaymentGate };
  });
  await panel.asked;
  panel.release();
  expect(await loaded).toEqual({ same: true, client: 'function', helper: 'function', card: 'function' });
});

test('the ES module build: svc-chat.esm.js alone, its load() resolves with the clients, and the chat works', async ({
  page,
}) => {
  const errors = watchErrors(page);
  await page.goto(`${site.url}/module/`);
  const client = await page.evaluate(async () => {
    const file = '/assets/svc-chat.esm.js';
    const module = await import(file);
    return typeof (await module.load()).ChatClient;
  });
  expect(client).toBe('function');
  await chatThrough(page.locator('svc-chat'), 'hello module');
  expect(errors).toEqual([]);
});
