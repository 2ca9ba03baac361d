import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { expect, type Page, test } from '@playwright/test';
import { agentReplies, send, watchErrors } from './demo-page.js';

/**
 * The README's page snippet as a newcomer saves it: a whole page (doctype, language, title), served from an
 * origin of its own, that axe finds nothing on, the chat closed and open. Page rules included: the page's own
 * language and title, its landmarks.
 */
const README = readFileSync('README.md', 'utf8');
const AXE = createRequire(import.meta.url).resolve('axe-core');

/** What axe finds on the whole page (WCAG 2.2 AA and best practices), one line a violation. */
async function violations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE });
  return page.evaluate(async () => {
    const { violations } = await (
      window as unknown as { axe: { run: (c: Document) => Promise<{ violations: { id: string; help: string }[] }> } }
    ).axe.run(document);
    return violations.map((v) => `${v.id}: ${v.help}`);
  });
}

test("the README's snippet is a whole page that axe finds nothing on, the chat closed and open", async ({ page }) => {
  const html = /## Chat on your own page[\s\S]*?```html\n([\s\S]*?)```/.exec(README)?.[1] ?? '';
  expect(html).toMatch(/^<!doctype html>\n<html lang="en">/);
  expect(html).toMatch(/<title>[^<]+<\/title>/);
  const site = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html.replaceAll('http://127.0.0.1:8787', process.env.SVC_E2E_URL!));
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  try {
    const errors = watchErrors(page);
    await page.goto(`http://127.0.0.1:${(site.address() as AddressInfo).port}/chat.html`);
    const chat = page.locator('svc-chat');
    await expect(chat.locator('[part~="launcher"]')).toBeVisible();
    await expect(page).toHaveTitle('Chat with Aria');
    expect(await violations(page)).toEqual([]);
    await chat.locator('[part~="launcher"]').click();
    await send(chat, '/help');
    await expect(agentReplies(chat).last()).toContainText('/markdown');
    await expect(chat.locator('[part~="send-button"]')).toBeVisible();
    expect(await violations(page)).toEqual([]);
    expect(errors).toEqual([]);
  } finally {
    site.close();
  }
});
