import { expect, type Locator, type Page } from '@playwright/test';

/** The demo pages of the service that global-setup.ts started, and the parts of a chat the e2e tests use. */
export const url = (path: string) => `${process.env.SVC_E2E_URL}${path}`;
export const shot = (page: Page, name: string) => page.screenshot({ path: `test-results/screenshots/${name}.png` });

/** Everything the page logs as an error (CSP violations included) fails the test that caused it. */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (msg) => {
    // A failed load names no resource in its text; its location does.
    if (msg.type() === 'error') errors.push(msg.location().url ? `${msg.text()} (${msg.location().url})` : msg.text());
  });
  page.on('pageerror', (err) => errors.push(err.message));
  return errors;
}

export const inline = (page: Page) => page.locator('#inline-chat');
// The composer's field (the SMS sign-in form's fields share its part name).
export const input = (chat: Locator) => chat.locator('textarea[part~="input"]');
export const agentReplies = (chat: Locator) => chat.locator('[part~="message-agent"] [part~="bubble"]');

export async function send(chat: Locator, text: string) {
  await input(chat).fill(text);
  await input(chat).press('Enter');
}

/**
 * Sends `text` and waits for the whole reply: a new reply is there, and then the send button is back. (The chat
 * shows the stop button a task after the send, so without the reply a wait for its absence could end at once.)
 */
export async function ask(chat: Locator, text: string) {
  const replies = await agentReplies(chat).count();
  await send(chat, text);
  await expect.poll(() => agentReplies(chat).count()).toBeGreaterThan(replies);
  await expect(chat.locator('[part~="stop-button"]')).toBeHidden();
  await expect(chat.locator('[part~="send-button"]')).toBeVisible();
}
