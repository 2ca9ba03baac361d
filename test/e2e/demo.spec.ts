import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { agentReplies, ask, inline, input, send, shot, url, watchErrors } from './demo-page.js';

/**
 * The demo pages as a visitor uses them, against the real service that `npm start` runs (started by
 * global-setup.ts on a free port). Screenshots of the main states go to test-results/screenshots.
 */
test('the home page chats through the script tag and streams a rendered markdown reply', async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto(url('/'));
  const chat = inline(page);
  await expect(input(chat)).toBeVisible();
  await send(chat, '/markdown');
  await expect(chat.locator('[part~="message-user"]')).toHaveText(['/markdown']);
  // The stop button shows while the reply streams, the send button when it is done.
  await expect(chat.locator('[part~="stop-button"]')).toBeVisible();
  await expect(chat.locator('[part~="send-button"]')).toBeVisible();
  const reply = agentReplies(chat).last();
  await expect(reply.locator('table').first()).toBeVisible();
  await expect(reply.locator('pre code').first()).toBeVisible();
  await expect(reply.locator('h2').first()).toBeVisible();
  await expect(chat.locator('[part~="name"]').last()).toHaveText('Aria');
  await shot(page, 'home-markdown-reply');
  expect(errors).toEqual([]);
});

test("the agent adds to the page's cart through the page's tool, and says what the page answered", async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto(url('/'));
  const chat = inline(page);
  await page.locator('[data-product="Mug"]').click();
  await expect(page.locator('#cart li')).toHaveText(['1 × Mug']);
  await ask(chat, '/cart add Tea 2');
  await expect(page.locator('#cart li')).toHaveText(['1 × Mug', '2 × Tea']);
  await expect(chat.locator('[part~="tool-call-row"]')).toHaveText('Added to cart');
  await expect(agentReplies(chat).last()).toContainText('Done. The page answered: {"cart":{"Mug":1,"Tea":2}}');
  await shot(page, 'home-cart');
  expect(errors).toEqual([]);
});

test('a visitor stops a slow reply and sends again', async ({ page }) => {
  await page.goto(url('/'));
  const chat = inline(page);
  await send(chat, '/slow 20');
  const stop = chat.locator('[part~="stop-button"]');
  await expect(stop).toBeVisible();
  await expect(agentReplies(chat).last()).toContainText(/\w{3,}/);
  await shot(page, 'streaming-with-stop');
  await stop.click();
  await expect(chat.getByText('Stopped.')).toBeVisible();
  await expect(chat.locator('[part~="send-button"]')).toBeVisible();
  await send(chat, '/help');
  await expect(agentReplies(chat).last()).toContainText('/markdown');
});

test('the conversation continues after a reload', async ({ page }) => {
  await page.goto(url('/'));
  const chat = inline(page);
  // A reply still running keeps the send button hidden: wait for the whole reply, as a visitor would.
  await ask(chat, '/help');
  await send(chat, 'remember this line');
  await expect(chat.locator('[part~="message-user"]').last()).toHaveText('remember this line');
  await expect(chat.locator('[part~="send-button"]')).toBeVisible();
  await page.reload();
  await expect(inline(page).locator('[part~="message-user"]').last()).toHaveText('remember this line');
  await send(inline(page), '/help');
  await expect(inline(page).locator('[part~="message-user"]').last()).toHaveText('/help');
});

test('the launcher opens, closes with Escape and returns focus', async ({ page }) => {
  await page.goto(url('/'));
  const launcher = page.locator('#launcher-chat');
  const button = launcher.locator('[part~="launcher"]');
  await expect(button).toBeVisible();
  await expect(launcher.locator('[part~="panel"]')).toHaveCount(0);
  await button.click();
  await expect(launcher.locator('[part~="panel"]')).toBeVisible();
  await expect(input(launcher)).toBeFocused();
  await shot(page, 'launcher-open');
  await page.keyboard.press('Escape');
  await expect(launcher.locator('[part~="panel"]')).toHaveCount(0);
  await expect(button).toBeFocused();
});

test('the launcher fills a small screen', async ({ browser }) => {
  // Reduced motion: the panel appears in place, without its rise animation.
  const page = await browser.newPage({ viewport: { width: 390, height: 740 }, reducedMotion: 'reduce' });
  await page.goto(url('/'));
  await page.locator('#launcher-chat [part~="launcher"]').click();
  const box = await page.locator('#launcher-chat [part~="panel"]').boundingBox();
  expect(box).toMatchObject({ x: 0, y: 0, width: 390, height: 740 });
  await shot(page, 'launcher-mobile');
  await page.close();
});

test('keyboard only: reach the input, send, and stop', async ({ page }) => {
  await page.goto(url('/'));
  const chat = inline(page);
  await input(chat).focus();
  await page.keyboard.type('/slow 10');
  await page.keyboard.press('Enter');
  await expect(chat.locator('[part~="stop-button"]')).toBeVisible();
  await page.keyboard.press('Tab');
  await expect(chat.locator('[part~="stop-button"]')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(chat.getByText('Stopped.')).toBeVisible();
  // Every control has a name a screen reader can say.
  for (const name of ['new-button', 'send-button']) {
    await expect(chat.locator(`[part~="${name}"]`)).toHaveAttribute('aria-label', /\w/);
  }
  await expect(chat.locator('[part~="messages"]')).toHaveAttribute('role', 'log');
});

test('dark theme follows the system with theme="auto"', async ({ browser }) => {
  const page = await browser.newPage({ colorScheme: 'dark' });
  await page.goto(url('/'));
  const panel = inline(page).locator('[part~="panel"]');
  await expect(panel).toHaveCSS('background-color', 'rgb(21, 23, 28)');
  await ask(inline(page), '/markdown');
  await shot(page, 'dark-theme');
  await page.close();
});

test('a visitor signs in by SMS on the SMS page and chats', async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto(url('/sms'));
  const chat = page.locator('#sms-chat');
  const phone = `+86137${String(Date.now()).slice(-8)}`;
  await chat.locator('input[name="phone"]').fill(phone);
  await shot(page, 'sms-phone');
  await chat.getByRole('button', { name: 'Send code' }).click();
  await expect(chat.locator('input[name="code"]')).toBeVisible();
  // The service writes the SMS before it answers, so the code is there once the code step shows.
  expect(lastCode(phone)).toMatch(/^\d{6}$/);
  await chat.locator('input[name="code"]').fill(lastCode(phone)!);
  await chat.getByRole('button', { name: 'Sign in' }).click();
  await expect(input(chat)).toBeVisible();
  await send(chat, '/help');
  await expect(agentReplies(chat).last()).toContainText('/markdown');
  await shot(page, 'sms-signed-in');
  expect(errors).toEqual([]);
});

test('the ES module page uses a token provider and Chinese labels', async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto(url('/esm'));
  const chat = page.locator('#esm-chat');
  await expect(input(chat)).toHaveAttribute('placeholder', '输入消息…');
  await send(chat, '/help');
  await expect(agentReplies(chat).last()).toContainText('/markdown');
  await expect(page.locator('#events')).toContainText('svc-turn-complete');
  expect(errors).toEqual([]);
});

function lastCode(phone: string): string | undefined {
  const outbox = process.env.SVC_E2E_OUTBOX ?? '';
  if (!existsSync(outbox)) return undefined;
  const lines = readFileSync(outbox, 'utf8').split('\n').filter(Boolean);
  return lines
    .map((line) => JSON.parse(line) as { phone: string; code: string })
    .filter((m) => m.phone === phone)
    .at(-1)?.code;
}

test("the README's script-tag snippet chats from a page on another origin", async ({ page }) => {
  const readme = readFileSync('README.md', 'utf8');
  const snippet = /## Chat on your own page[\s\S]*?```html\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(snippet).toContain('<svc-chat');
  const site = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(snippet!.replaceAll('http://127.0.0.1:8787', process.env.SVC_E2E_URL!));
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = site.address() as AddressInfo;
    await page.goto(`http://127.0.0.1:${port}/chat.html`);
    const chat = page.locator('svc-chat');
    await chat.locator('[part~="launcher"]').click();
    await send(chat, '/help');
    await expect(agentReplies(chat).last()).toContainText('/markdown');
    // Rendered as markdown: the engine came from the service's origin too, next to the script.
    await expect(agentReplies(chat).last().locator('strong').first()).toHaveText('Demo commands');
  } finally {
    site.close();
  }
});

test('a visitor fills the form card, pays on the local pay page, is back in the chat and thanked', async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto(url('/'));
  const chat = inline(page);
  await send(chat, '/form');
  const form = chat.locator('svc-info-collect');
  await expect(form.locator('[part="title"]')).toBeVisible();
  // Required fields are checked before anything is sent.
  await form.locator('[part="button"]').click();
  await expect(form.locator('[part="field-error"]').first()).toBeVisible();
  await form.locator('input[name="name"]').fill('Ada Lovelace');
  await form.locator('input[name="email"]').fill('ada@example.com');
  await form.locator('select[name="plan"]').selectOption('Team');
  await shot(page, 'form-card');
  await form.locator('[part="button"]').click();
  await expect(form.locator('[part="status"]')).toBeVisible();
  await expect(agentReplies(chat).last()).toContainText('Ada Lovelace');

  await expect(chat.locator('[part~="send-button"]')).toBeVisible();
  await send(chat, '/pay 9.90');
  const card = chat.locator('svc-payment-gate');
  await expect(card.locator('[part="amount"]')).toContainText('9.90');
  const [payPage] = await Promise.all([page.waitForEvent('popup'), card.locator('[part="button"]').click()]);
  await payPage.getByRole('button', { name: /^Pay/ }).click();
  await expect(payPage.locator('body')).toContainText(/paid/i);
  // The way back: the tab the card opened closes itself, and the chat is beneath it.
  await Promise.all([payPage.waitForEvent('close'), payPage.getByRole('button', { name: 'Back to the chat' }).click()]);
  await expect(card).toHaveAttribute('state', 'paid');
  // The agent that asked for the payment acknowledges it by itself.
  await expect(agentReplies(chat).last()).toContainText('Thank you, your payment of CN¥9.90 is received.');
  await shot(page, 'payment-paid');
  expect(errors).toEqual([]);
});

test('on a phone the home page fits the screen and its launcher is in reach', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 740 });
  await page.goto(url('/'));
  // The embed's long lines scroll inside their block; the page itself never scrolls sideways.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  const launcher = page.locator('#launcher-chat [part~="launcher"]');
  await expect(launcher).toBeInViewport();
  await launcher.click();
  await expect(page.locator('#launcher-chat [part~="composer"] [part~="input"]')).toBeVisible();
});

test('the demo links the API reference, rendered from the service itself', async ({ page }) => {
  const errors = watchErrors(page);
  const elsewhere: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(url('/'))) elsewhere.push(request.url());
  });
  await page.goto(url('/'));
  await page.getByRole('link', { name: 'API reference' }).click();
  await expect(page.getByText('Workspace and conversation service')).toBeVisible();
  // Each operation is listed; opening one shows its parameters and the body it takes.
  const grant = page.locator('.opblock').filter({ hasText: '/api/v2/workspaces/{slug}/members/{memberId}/credits' });
  await expect(grant).toBeVisible();
  await expect(grant).toContainText('Grant credits to a member');
  await grant.locator('.opblock-summary').click();
  await expect(grant).toContainText('memberId');
  await expect(grant).toContainText('idempotency_key');
  // What it does, an example of its body, and each refusal with its detail.
  await expect(grant).toContainText("Moves amount from the owner's wallet");
  await expect(grant).toContainText('grant-7f3a');
  await expect(grant).toContainText('insufficient owner wallet balance');
  await shot(page, 'api-reference');
  expect(elsewhere).toEqual([]);
  expect(errors).toEqual([]);
});

test('on a touch phone a visitor acts on replies by tapping: copy, 👎 with a reason, a suggestion, regenerate, edit', async ({
  browser,
}) => {
  const context = await browser.newContext({
    viewport: { width: 390, height: 740 },
    hasTouch: true,
    isMobile: true,
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  const page = await context.newPage();
  const errors = watchErrors(page);
  await page.goto(url('/'));
  const chat = page.locator('#launcher-chat');
  await chat.locator('[part~="launcher"]').tap();
  await send(chat, '/suggest');
  const reply = chat.locator('[part~="message-agent"]', { hasText: 'Here are a few things to try next.' });
  await expect(reply.locator('[part~="bubble"]')).toContainText('Here are a few things to try next.');
  // Without a pointer that hovers, a reply's actions show by themselves: each is one tap away.
  await reply.locator('[part~="copy-button"]').tap();
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toContain('Here are a few things');
  await reply.locator('[part~="feedback-down-button"]').tap();
  await chat.locator('[part~="feedback-reason"]').fill('Not what I asked');
  await chat.locator('[part~="feedback-send-button"]').tap();
  await expect(chat.locator('[part~="feedback-thanks"]')).toBeVisible();
  // A suggestion is sent as the visitor's message.
  await chat.locator('[part~="suggestion"]', { hasText: '/think' }).tap();
  await expect(chat.locator('[part~="message-user"]').last()).toContainText('/think');
  const answer = chat.locator('[part~="message-agent"]').last();
  await expect(answer.locator('[part~="bubble"]')).toContainText('The answer is 42.');
  // An older reply's actions too: with a hovering pointer they would wait for hover or focus.
  await expect(reply.locator('[part~="message-actions"]')).toHaveCSS('opacity', '1');
  // Regenerate: a new reply in place of the last one.
  await answer.locator('[part~="bubble"]').evaluate((bubble) => bubble.setAttribute('data-before', ''));
  await answer.locator('[part~="regenerate-button"]').tap();
  await expect(chat.locator('[part~="message-agent"] [part~="bubble"]:not([data-before])').last()).toContainText(
    'The answer is 42.',
  );
  await expect(chat.locator('[part~="bubble"][data-before]')).toHaveCount(0);
  // Edit the last message: tapped open, changed, sent in its place.
  await chat.locator('[part~="edit-button"]').tap();
  await chat.locator('[part~="edit-input"]').fill('/help');
  await chat.locator('[part~="edit-send-button"]').tap();
  await expect(chat.locator('[part~="message-user"]').last()).toContainText('/help');
  await expect(chat.locator('[part~="message-agent"] [part~="bubble"]').last()).toContainText('Demo commands');
  await shot(page, 'touch-actions');
  expect(errors).toEqual([]);
  await context.close();
});
