import { expect, type Locator, test } from '@playwright/test';
import { agentReplies, ask, inline, shot, url } from './demo-page.js';

/**
 * What the demo agent tells a site owner works when they do it: the `/markdown` reply's theming advice
 * keeps the chat readable, `/think` shows its reasoning on the demo pages, and free text is answered
 * briefly with a pointer to `/help`. Against the real service that `npm start` runs (global-setup.ts).
 */
/** What the demo said before: near-white text on the panel's white, and a property that does not exist. */
const OLD_ADVICE = {
  theme: 'light',
  css: 'svc-chat { --svc-color-surface: #111827; --svc-color-text: #f9fafb; --svc-color-accent: #22d3ee; }',
};

/** Puts the advice on `chat`: its `theme` attribute, and its CSS as a page stylesheet. */
async function apply(chat: Locator, advice: { theme: string; css: string }) {
  await chat.evaluate((el, { theme, css }) => {
    el.setAttribute('theme', theme);
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(css);
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  }, advice);
}

/**
 * Every visible text in `chat` (through its shadow roots and the elements inside) whose contrast with what
 * is behind it is under WCAG AA: 4.5:1, or 3:1 for large text (24 px, or 18.66 px bold). The background is
 * the colours of the element and its ancestors in the flat tree, blended until one is opaque.
 */
function lowContrast(chat: Locator) {
  return chat.evaluate((host) => {
    type Rgba = [number, number, number, number];
    const parse = (color: string): Rgba => {
      const [r = 0, g = 0, b = 0, a = 1] = (color.match(/[\d.]+/g) ?? []).map(Number);
      return [r, g, b, color.startsWith('rgba') ? a : 1];
    };
    const over = (top: Rgba, below: Rgba): Rgba => {
      const a = top[3];
      return [0, 1, 2].map((i) => top[i]! * a + below[i]! * (1 - a)).concat(1) as Rgba;
    };
    const luminance = ([r, g, b]: Rgba) =>
      [r, g, b]
        .map((c) => c / 255)
        .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4))
        .reduce((sum, c, i) => sum + c * [0.2126, 0.7152, 0.0722][i]!, 0);
    const ratio = (a: Rgba, b: Rgba) => {
      const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
      return (hi! + 0.05) / (lo! + 0.05);
    };
    const parentOf = (el: Element): Element | null =>
      el.assignedSlot ?? el.parentElement ?? ((el.parentNode as ShadowRoot | null)?.host || null);
    const background = (el: Element): Rgba => {
      const layers: Rgba[] = [];
      for (let at: Element | null = el; at; at = parentOf(at)) {
        const bg = parse(getComputedStyle(at).backgroundColor);
        if (bg[3] > 0) layers.push(bg);
        if (bg[3] === 1) break;
      }
      return layers.reduceRight<Rgba>((below, top) => over(top, below), [255, 255, 255, 1]);
    };
    const found: string[] = [];
    let checked = 0;
    const visit = (root: Node) => {
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (node instanceof Element) {
          if (node.shadowRoot) visit(node.shadowRoot);
          continue;
        }
        const text = node.textContent?.trim();
        const el = node.parentElement ?? (node.parentNode as ShadowRoot).host;
        if (!text || !el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) continue;
        const range = document.createRange();
        range.selectNodeContents(node);
        if (!range.getClientRects().length) continue;
        const style = getComputedStyle(el);
        const size = Number.parseFloat(style.fontSize);
        const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
        const contrast = ratio(over(parse(style.color), background(el)), background(el));
        checked++;
        if (contrast < (large ? 3 : 4.5)) found.push(`${contrast.toFixed(2)}:1 "${text.slice(0, 30)}"`);
      }
    };
    visit(host.shadowRoot!);
    return { checked, found };
  });
}

test("the /markdown reply's dark theme advice keeps every text of the chat readable", async ({ page, browser }) => {
  await page.goto(url('/'));
  const chat = inline(page);
  await ask(chat, '/markdown');
  const reply = agentReplies(chat).last();
  // The advice as the visitor reads it: the sentence that names the attribute, and the CSS block after it.
  const sentence = await reply.locator('p', { hasText: 'dark theme' }).textContent();
  const theme = /theme="(\w+)"/.exec(sentence ?? '')?.[1];
  expect(theme, sentence ?? 'no sentence about a dark theme').toBe('dark');
  const css = await reply.locator('pre code', { hasText: '--svc-color' }).last().textContent();
  expect(css).toContain('svc-chat {');

  // Control: the detector finds the old advice's white-on-white.
  const control = await browser.newPage();
  await control.goto(url('/'));
  await ask(inline(control), '/markdown');
  await apply(inline(control), OLD_ADVICE);
  const before = await lowContrast(inline(control));
  expect(before.found.length).toBeGreaterThan(10);
  await shot(control, 'advice-old-dark-theme');
  await control.close();

  await apply(chat, { theme: theme!, css: css! });
  const after = await lowContrast(chat);
  expect(after.checked).toBeGreaterThan(100);
  expect(after.found).toEqual([]);
  await reply.locator('p', { hasText: 'dark theme' }).scrollIntoViewIfNeeded();
  await shot(page, 'advice-dark-theme');
});

test('/think shows the reply with its reasoning on the demo page', async ({ page }) => {
  await page.goto(url('/'));
  const chat = inline(page);
  await ask(chat, '/think');
  const thinking = chat.locator('[part~="thinking"]');
  await expect(thinking).toBeVisible();
  await thinking.locator('summary').click();
  await expect(thinking).toContainText('Six times seven is 42.');
  await expect(agentReplies(chat).last()).toContainText('The answer is 42.');
  await shot(page, 'think-reasoning');
});

test('free text gets a short answer that points at /help and offers commands to tap', async ({ page }) => {
  await page.goto(url('/'));
  const chat = inline(page);
  await ask(chat, 'hello, what can you do?');
  const reply = agentReplies(chat).last();
  await expect(reply).toContainText('/help');
  await expect(reply).not.toContainText('/markdown');
  // A sentence, not the command list.
  expect((await reply.textContent())!.trim().length).toBeLessThan(120);
  // What it can do, as buttons: a tapped one shows it.
  const offered = chat.locator('[part~="suggestion"]');
  await expect(offered).toHaveText(['/markdown', '/form', '/pay 9.9', '/help']);
  await shot(page, 'free-text-reply');
  await offered.filter({ hasText: '/form' }).click();
  await expect(chat.locator('svc-info-collect')).toBeVisible();
});
