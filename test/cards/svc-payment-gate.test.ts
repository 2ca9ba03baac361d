import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import '../../src/cards/svc-payment-gate.js';
import type { SvcPaymentGate } from '../../src/cards/svc-payment-gate.js';
import type { PaymentGatePayload } from '../../src/protocol/record-types.js';
import { extractPaymentGate } from '../../src/protocol/records.js';
import { until } from '../helpers/browser-service.js';
import { chat, part, payOnPayPage, stubWindowOpen, turn, typeAndSend, visitorClient, waitFor } from './helpers.js';

async function order(command: string) {
  const client = await visitorClient();
  const { records } = await turn(client, command);
  const payment = records.map(extractPaymentGate).find(Boolean) as PaymentGatePayload;
  return { client, payment };
}

const payButton = (card: SvcPaymentGate) => part<HTMLButtonElement>(card, 'button')!;

describe('<svc-payment-gate>', () => {
  let popups: ReturnType<typeof stubWindowOpen>;
  beforeEach(() => {
    popups = stubWindowOpen();
  });
  afterEach(() => popups.restore());

  it('alone: shows the amount in CNY, opens the pay page once, and turns paid', async () => {
    const { client, payment } = await order('/pay 9.9');
    const card = await fixture<SvcPaymentGate>(
      html`<svc-payment-gate lang="zh-CN" .client=${client} .payment=${payment}></svc-payment-gate>`,
    );
    expect(part(card, 'title')!.textContent).to.equal('Demo order');
    expect(part(card, 'amount')!.textContent).to.equal('¥9.90');
    expect(part(card, 'countdown')!.textContent).to.match(/1[45]:\d\d 后过期/);
    expect(card.getAttribute('state')).to.equal('pending');

    const opening = oneEvent(card, 'svc-payment-open');
    payButton(card).click();
    payButton(card).click();
    expect((await opening).detail).to.deep.equal({
      orderId: payment.orderId,
      payUrl: payment.payUrl,
      amountCny: 9.9,
    });
    expect(popups.urls, 'a double click opens one pay page').to.deep.equal([payment.payUrl]);

    const status = oneEvent(card, 'svc-payment-status');
    await payOnPayPage(payment.payUrl);
    expect((await status).detail).to.deep.equal({ orderId: payment.orderId, status: 'paid' });
    await card.updateComplete;
    expect(card.getAttribute('state')).to.equal('paid');
    expect(part(card, 'status')!.textContent!.trim()).to.equal('已支付');
    expect(part(card, 'button'), 'a paid order offers no pay button').to.equal(null);
  });

  it('lets the page veto opening the pay page', async () => {
    const { client, payment } = await order('/pay 5');
    const card = await fixture<SvcPaymentGate>(
      html`<svc-payment-gate lang="en" .client=${client} .payment=${payment}
        @svc-payment-open=${(e: Event) => e.preventDefault()}></svc-payment-gate>`,
    );
    expect(part(card, 'amount')!.textContent).to.equal('CN¥5.00');
    payButton(card).click();
    expect(popups.urls).to.deep.equal([]);
  });

  it('alone: an order that expires cannot be paid from the card', async () => {
    const { client, payment } = await order('/pay 1 2');
    const card = await fixture<SvcPaymentGate>(
      html`<svc-payment-gate lang="en" .client=${client} .payment=${payment}></svc-payment-gate>`,
    );
    expect(payButton(card).disabled).to.equal(false);
    await until(() => card.getAttribute('state') === 'expired', 'the order to expire');
    await card.updateComplete;
    expect(payButton(card).disabled).to.equal(true);
    expect(part(card, 'status')!.textContent).to.contain('can no longer be paid');
    payButton(card).click();
    expect(popups.urls).to.deep.equal([]);
  });

  it('in the chat: pays an order from the agent and shows it paid', async () => {
    const el = await chat();
    typeAndSend(el, '/pay 12.5');
    const card = await waitFor<SvcPaymentGate>(el, 'svc-payment-gate', 'the payment card');
    await until(() => part(card, 'button'), 'the pay button');
    expect(part(card, 'amount')!.textContent).to.equal('CN¥12.50');
    payButton(card).click();
    expect(popups.urls).to.have.length(1);
    await payOnPayPage(popups.urls[0]!);
    await until(() => card.getAttribute('state') === 'paid', 'the card to turn paid');
    await card.updateComplete;
    expect(part(card, 'button'), 'a paid order offers no pay button').to.equal(null);
  });

  it('in the chat: an order left unpaid expires and its button is disabled', async () => {
    const el = await chat();
    typeAndSend(el, '/pay 1 2');
    const card = await waitFor<SvcPaymentGate>(el, 'svc-payment-gate', 'the payment card');
    await until(() => card.getAttribute('state') === 'expired', 'the order to expire');
    await card.updateComplete;
    expect(payButton(card).disabled).to.equal(true);
  });
});
