import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { expect, type Request, test } from '@playwright/test';
import { freePort } from '../helpers/free-port.mjs';
import { agentReplies, send, shot } from './demo-page.js';

/**
 * A newcomer who follows only the README: `PORT=… npm start` on a port of their choosing, the page snippet
 * with that port, saved on a site of their own (another origin), and the code example. The snippet and the
 * example are read from README.md itself and changed only as it says.
 */
const README = readFileSync('README.md', 'utf8');
const START = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } }).scripts.start;

/** The README's page snippet with its port changed as the README says: `8787` in its three URLs. */
function snippet(port: number): string {
  const html = /## Chat on your own page[\s\S]*?```html\n([\s\S]*?)```/.exec(README)?.[1] ?? '';
  expect(html.match(/http:\/\/127\.0\.0\.1:8787\b/g)).toHaveLength(3);
  return html.replaceAll('http://127.0.0.1:8787', `http://127.0.0.1:${port}`);
}

/** The README's code example, with `8787` changed to `port` in its `baseUrl`s. */
function codeExample(port: number): string {
  const code = /## From code[\s\S]*?```ts\n([\s\S]*?)```/.exec(README)?.[1] ?? '';
  expect(code.match(/baseUrl: 'http:\/\/127\.0\.0\.1:8787'/g)).toHaveLength(2);
  return code.replaceAll("'http://127.0.0.1:8787'", `'http://127.0.0.1:${port}'`);
}

interface Started {
  child: ChildProcess;
  url: string;
  apiKey: string;
}

/**
 * `PORT=<port> npm start` once built: the server command of package.json's `start` script with `PORT` set,
 * as the README says, keeping its database and files in `dir` instead of the repository's `data/` (a flag
 * given later wins). Resolves with what it prints: its URL and the demo workspace's key.
 */
async function npmStart(port: number, dir: string): Promise<Started> {
  expect(README).toMatch(/^PORT=\d+ npm start/m);
  const [node, ...args] = START.split('&&').at(-1)!.trim().split(/\s+/);
  expect(node).toBe('node');
  const child = spawn(process.execPath, [...args, '--db', join(dir, 'svc.db'), '--files-dir', join(dir, 'files')], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const printed: Partial<Started> = {};
  for await (const line of createInterface({ input: child.stdout! })) {
    printed.url ??= /^listening on (\S+)$/.exec(line)?.[1];
    printed.apiKey ??= /^demo workspace API key: (\S+)$/.exec(line)?.[1];
    if (printed.url && printed.apiKey) break;
  }
  expect(printed.url, 'the service printed its URL').toBe(`http://127.0.0.1:${port}`);
  return { child, url: printed.url!, apiKey: printed.apiKey! };
}

async function stop(started: Started | undefined) {
  if (!started || started.child.exitCode !== null) return;
  const exited = once(started.child, 'exit');
  started.child.kill('SIGTERM');
  await exited;
}

/** The newcomer's own site: one page, `chat.html`, on an origin of its own. */
async function ownSite(html: string) {
  const site = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html);
  });
  await new Promise<void>((done) => site.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${(site.address() as AddressInfo).port}/chat.html`, close: () => site.close() };
}

// Screenshots of the panel in place, without its rise animation.
test.use({ contextOptions: { reducedMotion: 'reduce' } });

let dir: string;
test.beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-readme-'));
});
test.afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('the README snippet chats from a page on another origin, with the service on a port of their choosing', async ({
  page,
}) => {
  const errors: string[] = [];
  page.on('console', (msg) => msg.type() === 'error' && errors.push(msg.text()));
  const port = await freePort();
  let service: Started | undefined;
  const site = await ownSite(snippet(port));
  try {
    service = await npmStart(port, dir);
    await page.goto(site.url);
    const chat = page.locator('svc-chat');
    // The script loaded: the sentence for a page whose script did not is not shown.
    await expect(page.getByText('The chat did not load')).toBeHidden();
    await chat.locator('[part~="launcher"]').click();
    await send(chat, '/help');
    await expect(agentReplies(chat).last()).toContainText('/markdown');
    await expect(chat.locator('[part~="notice"]')).toHaveCount(0);
    await expect(chat.locator('[part~="send-button"]')).toBeVisible();
    await shot(page, 'readme-own-port');

    // A reload in the middle of a reply (`persist`, and the endpoint knows the visitor by its cookie): the panel
    // is open again, the conversation is there, the reply goes on streaming, and the text being written is back.
    await send(chat, '/slow 60');
    await expect(chat.locator('[part~="stop-button"]')).toBeVisible();
    await expect(agentReplies(chat).last()).toContainText(/\w+ \w+/);
    const input = chat.locator('textarea[part~="input"]');
    await input.fill('a question for later');
    await page.reload();
    await expect(input).toBeVisible();
    await expect(input).toHaveValue('a question for later');
    await expect(agentReplies(chat).first()).toContainText('/markdown');
    await expect(chat.locator('[part~="stop-button"]')).toBeVisible();
    // The reply's text is rendered in its markdown element's shadow root.
    const streamed = () =>
      agentReplies(chat)
        .last()
        .evaluate((bubble) => (bubble.querySelector('svc-markdown')?.shadowRoot ?? bubble).textContent?.length ?? 0);
    const after = await streamed();
    await expect.poll(streamed).toBeGreaterThan(after);
    await chat.locator('[part~="stop-button"]').click();
    await expect(chat.getByText('Stopped.')).toBeVisible();
    await expect(chat.locator('[part~="notice"]')).toHaveCount(0);
    expect(errors).toEqual([]);
  } finally {
    site.close();
    await stop(service);
  }
});

test("the README's code example mints a session on the server and chats as the visitor", async () => {
  const port = await freePort();
  const service = await npmStart(port, dir);
  try {
    // Inside the package, so `@svc/agent-sdk` resolves to this package's build, as it does for an installer.
    const examples = resolve('test-results/readme');
    mkdirSync(examples, { recursive: true });
    const file = join(examples, `example-${process.pid}.mts`);
    writeFileSync(file, codeExample(port));
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', file], {
      env: { ...process.env, SVC_API_KEY: service.apiKey },
    });
    expect(stdout).toContain('Demo commands');
    expect(stdout).toContain('/markdown');
  } finally {
    await stop(service);
  }
});

test('a wrong port in the snippet: the page says the chat did not load, not a blank page', async ({ page }) => {
  const site = await ownSite(snippet(await freePort()));
  try {
    await page.goto(site.url);
    await expect(
      page.getByText('The chat did not load: is npm start running, on the port this page names?'),
    ).toBeVisible();
    await shot(page, 'readme-wrong-port');
  } finally {
    site.close();
  }
});

test('a service not running yet: the chat says it cannot reach it, and Retry connects once it runs', async ({
  page,
}) => {
  const port = await freePort();
  // The script comes from a running service; `base-url` and `token-endpoint` name the port not yet started.
  const html = snippet(port).replace(`http://127.0.0.1:${port}/dist/`, `${process.env.SVC_E2E_URL}/dist/`);
  const site = await ownSite(html);
  // The chat also asks again on its own (after 1 s, doubling to 8 s): its clock stops while the service starts,
  // so that what finds the service is the visitor's Retry, and the button is still there to click.
  await page.clock.install();
  const checks = new Set<Request>();
  page.on('request', (request) => request.url().startsWith(`http://127.0.0.1:${port}/`) && checks.add(request));
  page.on('requestfailed', (request) => checks.delete(request));
  page.on('requestfinished', (request) => checks.delete(request));
  let service: Started | undefined;
  try {
    await page.goto(site.url);
    const chat = page.locator('svc-chat');
    await chat.locator('[part~="launcher"]').click();
    const notice = chat.locator('[part~="notice"]');
    await expect(notice).toContainText('Could not reach the service.');
    await shot(page, 'readme-unreachable');

    await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 1000);
    // A check made before the pause has had its answer (none) before the service starts.
    await expect.poll(() => checks.size).toBe(0);
    service = await npmStart(port, dir);
    await notice.getByRole('button', { name: 'Retry' }).click();
    await expect(notice).toHaveCount(0);
    await page.clock.resume();
    await send(chat, '/help');
    await expect(agentReplies(chat).last()).toContainText('/markdown');
    await expect(chat.locator('[part~="send-button"]')).toBeVisible();
    await shot(page, 'readme-unreachable-retried');
  } finally {
    site.close();
    await stop(service);
  }
});
