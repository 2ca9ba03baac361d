import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import '../../src/cards/svc-info-collect.js';
import type { SvcInfoCollect } from '../../src/cards/svc-info-collect.js';
import { extractInfoCollect } from '../../src/protocol/records.js';
import type { InfoCollectPayload } from '../../src/protocol/types.js';
import { until } from '../helpers/browser-service.js';
import { allInShadow } from '../helpers/chat-parts.js';
import {
  chat,
  fill,
  idle,
  part,
  parts,
  recordAfter,
  summary,
  turn,
  typeAndSend,
  visitorClient,
  waitFor,
} from './helpers.js';

const agentTexts = (el: Element) =>
  parts(el, 'message-agent').map((m) => m.querySelector('svc-markdown')?.shadowRoot?.textContent?.trim() ?? '');

const submit = (card: SvcInfoCollect) => part<HTMLButtonElement>(card, 'button')!.click();

describe('<svc-info-collect>', () => {
  it('alone: builds the form, checks it, and answers the agent with the values', async () => {
    const client = await visitorClient();
    const { conversationId, records } = await turn(client, '/form');
    const request = records.map(extractInfoCollect).find(Boolean) as InfoCollectPayload;
    const card = await fixture<SvcInfoCollect>(html`<svc-info-collect lang="en" .client=${client}
      conversation-id=${conversationId} .request=${request}></svc-info-collect>`);

    // Labels are tied to their controls, and each kind of field gets its control.
    const email = card.shadowRoot!.querySelector<HTMLInputElement>('[name=email]')!;
    expect(card.shadowRoot!.querySelector(`label[for="${email.id}"]`)!.textContent).to.contain('Email');
    expect(email.type).to.equal('email');
    expect(email.placeholder).to.equal('ada@example.com');
    expect(card.shadowRoot!.querySelector('[name=phone]')!.getAttribute('type')).to.equal('tel');
    expect(card.shadowRoot!.querySelector('[name=date]')!.getAttribute('type')).to.equal('date');
    expect(card.shadowRoot!.querySelector('select[name=plan]')!.querySelectorAll('option')).to.have.length(4);
    expect(card.shadowRoot!.querySelector('textarea[name=notes]')).to.exist;

    // Nothing is sent while a field is wrong; each says why, and the first one gets the focus.
    let requests = 0;
    card.addEventListener('svc-info-submit', () => requests++);
    fill(card, 'email', 'not-an-email');
    fill(card, 'seats', 'many');
    submit(card);
    await until(() => parts(card, 'field-error').length === 3, 'the field errors');
    expect(parts(card, 'field-error').map((p) => p.textContent)).to.deep.equal([
      'This field is required.',
      'Enter an email address like name@example.com.',
      'Enter a number.',
    ]);
    expect(card.shadowRoot!.activeElement?.getAttribute('name')).to.equal('name');
    expect(card.shadowRoot!.querySelector('[name=name]')!.getAttribute('aria-invalid')).to.equal('true');
    expect(requests).to.equal(0);

    // A corrected field stops saying it is wrong as soon as it is right.
    fill(card, 'name', 'Ada');
    await until(() => parts(card, 'field-error').length === 2, 'the fixed field to clear');
    expect(card.shadowRoot!.querySelector('[name=name]')!.getAttribute('aria-invalid')).to.equal('false');
    fill(card, 'email', 'ada@example.com');
    fill(card, 'seats', '12');
    card.shadowRoot!.querySelector<HTMLSelectElement>('select[name=plan]')!.value = 'Team';
    const submitted = oneEvent(card, 'svc-info-submit');
    submit(card);
    expect((await submitted).detail).to.deep.equal({
      toolUseId: request.toolUseId,
      action: 'submit',
      values: { name: 'Ada', email: 'ada@example.com', seats: 12, plan: 'Team' },
    });
    await until(() => card.getAttribute('state') === 'submitted', 'the answered state');
    expect(part(card, 'status')!.textContent).to.equal('Sent');
    expect(summary(card)).to.deep.equal(['Name', 'Ada', 'Email', 'ada@example.com', 'Team size', '12', 'Plan', 'Team']);

    // The agent got the answer and replied to it.
    await recordAfter(
      client,
      conversationId,
      records.at(-1)!,
      (r) => r.raw.type === 'assistant' && JSON.stringify(r.raw).includes('Thank you!'),
    );
  });

  it('in the chat: keeps its width when its errors appear', async () => {
    const el = await chat();
    typeAndSend(el, '/form');
    const card = await waitFor<HTMLElement & { updateComplete: Promise<boolean> }>(el, 'svc-info-collect', 'the form');
    await card.updateComplete;
    const before = card.getBoundingClientRect().width;
    part<HTMLButtonElement>(card, 'button')!.click();
    await until(() => part(card, 'field-error'), 'the errors');
    // Email's error is longer than any label of the form.
    fill(card, 'email', 'not an address');
    part<HTMLButtonElement>(card, 'button')!.click();
    await until(() => parts(card, 'field-error').length === 2, 'the email error');
    expect(card.getBoundingClientRect().width).to.equal(before);
  });

  it('alone without a conversation says it cannot be answered', async () => {
    const client = await visitorClient();
    const { records } = await turn(client, '/form');
    const request = records.map(extractInfoCollect).find(Boolean) as InfoCollectPayload;
    const card = await fixture<SvcInfoCollect>(
      html`<svc-info-collect lang="en" .client=${client} .request=${request}></svc-info-collect>`,
    );
    part<HTMLButtonElement>(card, 'secondary-button')!.click();
    await until(() => part(card, 'error'), 'the error');
    expect(part(card, 'error')!.textContent).to.contain('not part of a conversation');
    expect(card.getAttribute('state')).to.equal('open');
  });

  it('in the chat: fills and skips forms, and shows them answered after a reload', async () => {
    const el = await chat();
    const sent = oneEvent(el, 'svc-message-sent');
    typeAndSend(el, '/form');
    const { conversationId } = (await sent).detail;
    const card = await waitFor<SvcInfoCollect>(el, 'svc-info-collect', 'the form card');
    await until(() => card.shadowRoot?.querySelector('form'), 'the form');
    fill(card, 'name', 'Grace');
    fill(card, 'email', 'grace@example.com');
    submit(card);
    await until(() => card.getAttribute('state') === 'submitted', 'the answered state');
    await until(() => agentTexts(el).some((t) => t.startsWith('Thank you! I received')), 'the reply');
    await idle(el);
    // The answer is a card action, not a message of the visitor's.
    expect(parts(el, 'message-user').map((m) => m.textContent?.trim())).to.deep.equal(['/form']);

    typeAndSend(el, '/form');
    await until(() => allInShadow(el, 'svc-info-collect').length === 2, 'a second form');
    const second = allInShadow(el, 'svc-info-collect')[1]!;
    await until(() => part(second, 'secondary-button'), 'the skip button');
    part<HTMLButtonElement>(second, 'secondary-button')!.click();
    await until(() => second.getAttribute('state') === 'skipped', 'the skipped state');
    await until(() => agentTexts(el).some((t) => t.includes('skip the form')), 'the reply to skipping');

    // A new chat showing the same conversation finds both cards answered in its history.
    const token = el.getAttribute('token')!;
    const again = await chat({ conversationId, token });
    await until(() => allInShadow(again, 'svc-info-collect').length === 2, 'the history');
    const [first, skipped] = allInShadow(again, 'svc-info-collect');
    await until(() => first!.getAttribute('state') === 'submitted', 'the first answered');
    expect(summary(first!)).to.deep.equal(['Name', 'Grace', 'Email', 'grace@example.com']);
    expect(skipped!.getAttribute('state')).to.equal('skipped');
    expect(first!.shadowRoot!.querySelector('form')).to.equal(null);
  });
});
