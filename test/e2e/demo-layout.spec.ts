import { expect, type Page, test } from '@playwright/test';
import { shot, url } from './demo-page.js';

/**
 * The demo home page's layout, measured: its grid sits centred under the header on a wide screen, and on a
 * phone the floating launcher never covers the "Try these" commands or, at the end of the page, the footer; on a
 * laptop it never covers the inline chat beside them.
 */

/** The boxes of the text (not of the elements) matching `selector`: where the words are drawn. */
function textBoxes(page: Page, selector: string) {
  return page.evaluate((sel) => {
    const boxes: { left: number; right: number; top: number; bottom: number; text: string }[] = [];
    for (const el of document.querySelectorAll(sel)) {
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (!node.textContent?.trim()) continue;
        const range = document.createRange();
        range.selectNodeContents(node);
        for (const r of range.getClientRects()) {
          boxes.push({ left: r.left, right: r.right, top: r.top, bottom: r.bottom, text: node.textContent.trim() });
        }
      }
    }
    return boxes;
  }, selector);
}

test('on a wide screen the grid is centred under the header', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(url('/'));
  const header = (await page.locator('body > header').boundingBox())!;
  const grid = (await page.locator('main.grid').boundingBox())!;
  expect(Math.abs(grid.x - header.x)).toBeLessThanOrEqual(1);
  expect(Math.abs(grid.x + grid.width / 2 - 720)).toBeLessThanOrEqual(1);
  expect(Math.abs(header.x + header.width / 2 - 720)).toBeLessThanOrEqual(1);
  await shot(page, 'demo-desktop');
});

test('on a phone the launcher covers neither the commands nor the footer', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 740 });
  await page.goto(url('/'));
  const launcher = (await page.locator('#launcher-chat [part~="launcher"]').boundingBox())!;
  // The launcher is fixed: a command drawn anywhere in its column would pass under it while scrolling.
  const commands = await textBoxes(page, '.commands');
  expect(commands.length).toBeGreaterThan(10);
  const under = commands.filter((box) => box.right > launcher.x);
  expect(under.map((box) => box.text)).toEqual([]);
  await shot(page, 'demo-phone');

  // Scrolled to its end, the footer's last words are above the launcher.
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  const footer = await textBoxes(page, 'footer');
  const end = (await page.locator('#launcher-chat [part~="launcher"]').boundingBox())!;
  const covered = footer.filter(
    (box) => box.right > end.x && box.left < end.x + end.width && box.bottom > end.y && box.top < end.y + end.height,
  );
  expect(covered.map((box) => box.text)).toEqual([]);
  await shot(page, 'demo-phone-end');
});

test('on a laptop the launcher keeps out of the inline chat, its send button included', async ({ page }) => {
  for (const width of [880, 1024, 1180]) {
    await page.setViewportSize({ width, height: 700 });
    await page.goto(url('/'));
    const launcher = (await page.locator('#launcher-chat [part~="launcher"]').boundingBox())!;
    // The launcher is fixed: any part of the chat in its column passes under it while the page scrolls.
    const chat = (await page.locator('#inline-chat').boundingBox())!;
    expect(chat.x + chat.width, `at ${width} px`).toBeLessThanOrEqual(launcher.x - 8);
  }
  await page.locator('#inline-chat').scrollIntoViewIfNeeded();
  await shot(page, 'demo-laptop');
});
