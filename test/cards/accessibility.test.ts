import { expect, oneEvent } from '@open-wc/testing';
import { expectAccessibleInBothThemes } from '../helpers/axe.js';
import { until } from '../helpers/browser-service.js';
import { chat, fill, idle, inShadow, payOnPayPage, stubWindowOpen, waitFor } from './helpers.js';

/** The card's region and the name a screen reader gives it (its title, by `aria-label`). */
function nameOf(card: Element): string | null {
  const region = inShadow(card, '[part~=base]')!;
  expect(region.localName, 'a section: a region when it is named').to.equal('section');
  return region.getAttribute('aria-label');
}

/** The card `command` brings into a fresh chat, once it has drawn itself, checked to be named `title`. */
async function cardOf(command: string, tag: string, title: string | RegExp) {
  const el = await chat();
  await el.send(command);
  const card = await waitFor<HTMLElement & { updateComplete: Promise<boolean> }>(el, tag, 'the card');
  await idle(el);
  await card.updateComplete;
  if (typeof title === 'string') expect(nameOf(card)).to.equal(title);
  else expect(nameOf(card)).to.match(title);
  return { el, card };
}

/** A card that is answered, checked open, sent empty (every required field invalid), then filled and sent. */
async function checkAnswerCard(command: string, tag: string, title: string | RegExp, values: Record<string, string>) {
  const { el, card } = await cardOf(command, tag, title);
  await expectAccessibleInBothThemes(el, `${tag}, open`);
  inShadow<HTMLButtonElement>(card, '[part~=button]')!.click();
  await until(() => inShadow(card, '[part~=field-error]'), 'the field errors');
  await expectAccessibleInBothThemes(el, `${tag}, invalid`);
  for (const [name, value] of Object.entries(values)) fill(card, name, value);
  const answered = oneEvent(el, 'svc-turn-complete');
  inShadow<HTMLButtonElement>(card, '[part~=button]')!.click();
  await answered;
  await until(() => card.getAttribute('state') === 'submitted', 'the card answered');
  await idle(el);
  await expectAccessibleInBothThemes(el, `${tag}, answered`);
}

describe('cards: accessibility, measured with axe-core at WCAG 2.2 AA', () => {
  it('a form card has no violations open, with invalid fields, and answered', async function () {
    this.timeout(30_000);
    await checkAnswerCard('/form', 'svc-info-collect', 'Book a demo', {
      name: 'Ada Lovelace',
      email: 'ada@example.com',
    });
  });

  it('a connector card has no violations open, with a missing key, and answered', async function () {
    this.timeout(30_000);
    await checkAnswerCard(`/connect a11y${Date.now()}`, 'svc-connector-setup', /^A11y\d+$/, { api_key: 'sk-test-key' });
  });

  it('a payment card has no violations pending, waiting for the payment, and paid', async function () {
    this.timeout(30_000);
    const { el, card } = await cardOf('/pay 9.9', 'svc-payment-gate', 'Demo order');
    await expectAccessibleInBothThemes(el, 'payment card, pending');

    const popup = stubWindowOpen();
    try {
      inShadow<HTMLButtonElement>(card, '[part~=button]')!.click();
      await until(() => popup.urls.length === 1, 'the pay page');
      await expectAccessibleInBothThemes(el, 'payment card, waiting');
      await payOnPayPage(popup.urls[0]!);
    } finally {
      popup.restore();
    }
    await until(() => card.getAttribute('state') === 'paid', 'the paid order');
    await expectAccessibleInBothThemes(el, 'payment card, paid');
  });
});
