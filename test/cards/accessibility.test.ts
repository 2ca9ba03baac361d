import { expect, oneEvent } from '@open-wc/testing';
import type { SvcChat } from '../../src/elements/svc-chat.js';
import { expectAccessible } from '../helpers/axe.js';
import { until } from '../helpers/browser-service.js';
import { chat, fill, idle, inShadow, payOnPayPage, stubWindowOpen, waitFor } from './helpers.js';

/** Checks the chat around a card at WCAG 2.2 AA in the light theme and in the dark one. */
async function expectAccessibleInBothThemes(el: SvcChat, state: string): Promise<void> {
  for (const theme of ['light', 'dark'] as const) {
    el.theme = theme;
    await el.updateComplete;
    await expectAccessible(el, `${state}, ${theme}`);
  }
  el.theme = 'light';
  await el.updateComplete;
}

/** The card's region and the name a screen reader gives it (its title, by `aria-label`). */
function nameOf(card: Element): string | null {
  const region = inShadow(card, '[part~=base]')!;
  expect(region.localName, 'a section: a region when it is named').to.equal('section');
  return region.getAttribute('aria-label');
}

describe('cards: accessibility, measured with axe-core at WCAG 2.2 AA', () => {
  it('a form card has no violations open, with invalid fields, and answered', async function () {
    this.timeout(30_000);
    const el = await chat();
    await el.send('/form');
    const card = await waitFor<HTMLElement & { updateComplete: Promise<boolean> }>(el, 'svc-info-collect', 'the card');
    await idle(el);
    await card.updateComplete;
    expect(nameOf(card)).to.equal('Book a demo');
    await expectAccessibleInBothThemes(el, 'form card, open');

    inShadow<HTMLButtonElement>(card, '[part~=button]')!.click();
    await until(() => inShadow(card, '[part~=field-error]'), 5000, 'the field errors');
    await expectAccessibleInBothThemes(el, 'form card, invalid');

    fill(card, 'name', 'Ada Lovelace');
    fill(card, 'email', 'ada@example.com');
    const answered = oneEvent(el, 'svc-turn-complete');
    inShadow<HTMLButtonElement>(card, '[part~=button]')!.click();
    await answered;
    await until(() => card.getAttribute('state') === 'submitted', 5000, 'the card answered');
    await idle(el);
    await expectAccessibleInBothThemes(el, 'form card, answered');
  });

  it('a connector card has no violations open, with a missing key, and answered', async function () {
    this.timeout(30_000);
    const el = await chat();
    await el.send(`/connect a11y${Date.now()}`);
    const card = await waitFor<HTMLElement & { updateComplete: Promise<boolean> }>(
      el,
      'svc-connector-setup',
      'the card',
    );
    await idle(el);
    await card.updateComplete;
    expect(nameOf(card)).to.match(/^A11y\d+$/);
    await expectAccessibleInBothThemes(el, 'connector card, open');

    inShadow<HTMLButtonElement>(card, '[part~=button]')!.click();
    await until(() => inShadow(card, '[part~=field-error]'), 5000, 'the missing key');
    await expectAccessibleInBothThemes(el, 'connector card, invalid');

    fill(card, 'api_key', 'sk-test-key');
    const answered = oneEvent(el, 'svc-turn-complete');
    inShadow<HTMLButtonElement>(card, '[part~=button]')!.click();
    await answered;
    await until(() => card.getAttribute('state') === 'submitted', 5000, 'the card answered');
    await idle(el);
    await expectAccessibleInBothThemes(el, 'connector card, answered');
  });

  it('a payment card has no violations pending, waiting for the payment, and paid', async function () {
    this.timeout(30_000);
    const el = await chat();
    await el.send('/pay 9.9');
    const card = await waitFor<HTMLElement & { updateComplete: Promise<boolean> }>(el, 'svc-payment-gate', 'the card');
    await idle(el);
    await card.updateComplete;
    expect(nameOf(card)).to.equal('Demo order');
    await expectAccessibleInBothThemes(el, 'payment card, pending');

    const popup = stubWindowOpen();
    try {
      inShadow<HTMLButtonElement>(card, '[part~=button]')!.click();
      await until(() => popup.urls.length === 1, 5000, 'the pay page');
      await expectAccessibleInBothThemes(el, 'payment card, waiting');
      await payOnPayPage(popup.urls[0]!);
    } finally {
      popup.restore();
    }
    await until(() => card.getAttribute('state') === 'paid', 10_000, 'the paid order');
    await expectAccessibleInBothThemes(el, 'payment card, paid');
  });
});
