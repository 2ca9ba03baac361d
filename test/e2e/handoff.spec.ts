import { randomUUID } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { agentReplies, ask, inline, input, send, shot, url, watchErrors } from './demo-page.js';

/**
 * Both sides of a handoff as a newcomer plays them in the demo: a visitor's chat on the home page in one browser
 * context, the staff's inbox (`/inbox`, operator Alex) in another, against the service global-setup.ts started.
 */
test('a visitor asks for a person, Alex takes it in the inbox, they write both ways, and Alex gives it back', async ({
  browser,
}) => {
  const visitor = await (await browser.newContext()).newPage();
  const staff = await (await browser.newContext()).newPage();
  const errors = [...watchErrors(visitor), ...watchErrors(staff)];
  // The queue holds every demo visitor's request: this test's is the one with its own reason.
  const reason = `e2e ${randomUUID().slice(0, 8)}`;

  await visitor.goto(url('/'));
  const chat = inline(visitor);
  await expect(input(chat)).toBeVisible();
  await send(chat, `/human ${reason}`);
  await expect(chat.locator('[part~="handoff"]')).toContainText('Waiting for a person to join');

  await staff.goto(url('/inbox'));
  const inbox = staff.locator('#inbox');
  const entry = inbox.locator('[part~="queue-entry"]', { hasText: reason });
  await entry.click();
  await inbox.locator('[part~="take-button"]').click();
  await expect(inbox.locator('[part~="conversation-header"] [role="status"]')).toHaveText('Alex holds it');

  await expect(chat.locator('[part~="handoff"]')).toContainText('Alex joined the conversation.');
  await expect(chat.locator('[part~="person-badge"]')).toHaveText('Alex, support');

  const reply = inbox.locator('[part~="composer"] [part~="input"]');
  await reply.fill('Hello, I am Alex. How can I help?');
  await inbox.locator('[part~="send-button"]:not([disabled])').click();
  const fromAlex = chat.locator('[part~="message-agent"]', { hasText: 'Hello, I am Alex. How can I help?' });
  await expect(fromAlex).toContainText('Alex, support');
  // A person's message has no reply actions (nothing to regenerate or rate).
  await expect(fromAlex.locator('[part~="regenerate-button"]')).toHaveCount(0);

  await send(chat, 'My order has not arrived.');
  await expect(inbox.locator('[part~="message-visitor"]', { hasText: 'My order has not arrived.' })).toBeVisible();
  await shot(visitor, 'handoff-visitor');
  await shot(staff, 'handoff-inbox');

  await inbox.locator('[part~="release-button"]').click();
  await expect(chat.locator('[part~="handoff"]')).toContainText('You are talking with the assistant again.');
  // The agent answers again.
  await ask(chat, '/help');
  await expect(agentReplies(chat).last()).toContainText('/markdown');
  expect(errors).toEqual([]);
});
