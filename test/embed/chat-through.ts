import { expect, type Locator } from '@playwright/test';

/** Types into the widget's field, presses Enter and waits for the echo agent's reply, rendered as markdown. */
export async function chatThrough(chat: Locator, text: string) {
  const input = chat.locator('[part~="input"]');
  await input.fill(`${text} **bold**`);
  await input.press('Enter');
  await expect(chat.locator('[part~="message-user"]').last()).toContainText(`${text} **bold**`);
  const reply = chat.locator('[part~="message-agent"] [part~="bubble"]').last();
  await expect(reply).toHaveText(`Echo: ${text} bold`);
  await expect(reply.locator('strong')).toHaveText('bold');
}
