import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import '../../src/cards/svc-connector-setup.js';
import type { SvcConnectorSetup } from '../../src/cards/svc-connector-setup.js';
import { extractConnectorSetup } from '../../src/protocol/records.js';
import { until } from '../helpers/browser-service.js';
import { chat, fill, idle, part, parts, recordAfter, turn, typeAndSend, visitorClient, waitFor } from './helpers.js';

const agentTexts = (el: Element) =>
  parts(el, 'message-agent').map((m) => m.querySelector('svc-markdown')?.shadowRoot?.textContent?.trim() ?? '');

/** The card the demo agent shows for `/connect github`, alone on the page, answering in its conversation. */
async function githubCard() {
  const client = await visitorClient();
  const { conversationId, records } = await turn(client, '/connect github');
  const [request] = records.flatMap(extractConnectorSetup);
  const card = await fixture<SvcConnectorSetup>(html`<svc-connector-setup lang="en" .client=${client}
    conversation-id=${conversationId} .request=${request}></svc-connector-setup>`);
  return { client, conversationId, records, card };
}

describe('<svc-connector-setup>', () => {
  it('alone: masks secrets with a show toggle, requires fields, stores them and tells the agent', async () => {
    const { client, conversationId, records, card } = await githubCard();
    expect(part(card, 'title')!.textContent).to.equal('GitHub');

    const key = card.shadowRoot!.querySelector<HTMLInputElement>('[name=api_key]')!;
    expect(key.type).to.equal('password');
    const toggle = part<HTMLButtonElement>(card, 'toggle')!;
    expect(toggle.getAttribute('aria-label')).to.equal('Show API key');
    toggle.click();
    await card.updateComplete;
    expect(key.type).to.equal('text');
    expect(toggle.getAttribute('aria-pressed')).to.equal('true');

    part<HTMLButtonElement>(card, 'button')!.click();
    await until(() => part(card, 'field-error'), 'the required error');
    expect(part(card, 'field-error')!.textContent).to.equal('This field is required.');
    expect(card.shadowRoot!.activeElement).to.equal(key);

    fill(card, 'api_key', 'ghp_secret');
    const submitting = oneEvent(card, 'svc-connector-submit');
    const saved = oneEvent(card, 'svc-connector-saved');
    part<HTMLButtonElement>(card, 'button')!.click();
    // The page hears which fields were filled, never their values.
    expect((await submitting).detail).to.deep.equal({ connectorTypeId: 'github', fields: ['api_key'] });
    await saved;
    await until(() => card.getAttribute('state') === 'submitted', 'the saved state');
    expect(part(card, 'status')!.textContent).to.contain('GitHub is set up');
    expect(card.shadowRoot!.querySelector('input')).to.equal(null);

    // The agent retries with the credentials.
    await recordAfter(client, conversationId, records.at(-1)!, (r) =>
      JSON.stringify(r.raw).includes('is connected now (stored fields: api_key)'),
    );
  });

  it('alone: clears "This field is required." once the field is filled, and shows whether a secret is shown', async () => {
    const { card } = await githubCard();
    part<HTMLButtonElement>(card, 'button')!.click();
    await until(() => part(card, 'field-error'), 'the required error');
    fill(card, 'api_key', 'ghp_');
    await card.updateComplete;
    expect(part(card, 'field-error')?.textContent, 'no error under a filled field').to.equal(undefined);
    expect(card.shadowRoot!.querySelector('[name=api_key]')!.getAttribute('aria-invalid')).to.equal('false');

    const toggle = part<HTMLButtonElement>(card, 'toggle')!;
    const hidden = toggle.innerHTML;
    toggle.click();
    await card.updateComplete;
    expect(toggle.innerHTML, 'the icon of a shown secret').not.to.equal(hidden);
    expect(toggle.querySelectorAll('path')).to.have.length(2);
    toggle.click();
    await card.updateComplete;
    expect(toggle.innerHTML).to.equal(hidden);
  });

  it('alone: shows why the credentials could not be stored', async () => {
    const client = await visitorClient();
    const { conversationId, records } = await turn(client, '/connect notion');
    const [request] = records.flatMap(extractConnectorSetup);
    // A connector type id the service refuses (upper case).
    const broken = { ...request!, connectorTypeId: 'Notion' };
    const card = await fixture<SvcConnectorSetup>(html`<svc-connector-setup lang="en" .client=${client}
      conversation-id=${conversationId} .request=${broken}></svc-connector-setup>`);
    fill(card, 'api_key', 'secret');
    part<HTMLButtonElement>(card, 'button')!.click();
    await until(() => part(card, 'error'), 'the error');
    expect(part(card, 'error')!.textContent).to.contain('The credentials could not be saved: connectorTypeId must be');
    expect(card.getAttribute('state')).to.equal('open');
  });

  it('a server’s card says which host asks, and saves for that agent’s server alone', async () => {
    const client = await visitorClient();
    const { conversationId, records } = await turn(client, '/connect billing');
    const [request] = records.flatMap(extractConnectorSetup);
    expect(
      part(await fixture(html`<svc-connector-setup lang="en" .request=${request}></svc-connector-setup>`), 'server'),
    ).to.equal(null, 'a connector that is no server’s names none');
    // As an MCP server's card: its host, and the agent whose server asks (the demo agent names none).
    const agentId = records.map((r) => (r.raw as { agentId?: string }).agentId).find(Boolean)!;
    const asked = { ...request!, server: 'billing.example.com', agentId };
    const card = await fixture<SvcConnectorSetup>(html`<svc-connector-setup lang="en" .client=${client}
      conversation-id=${conversationId} .request=${asked}></svc-connector-setup>`);
    expect(part(card, 'server')!.textContent).to.equal('Asked by the server billing.example.com; saved for it alone.');
    fill(card, 'api_key', 'secret');
    part<HTMLButtonElement>(card, 'button')!.click();
    await until(() => part(card, 'error'), 'the error');
    // The service was asked to save for the demo agent's server `billing`, which it has not.
    expect(part(card, 'error')!.textContent).to.contain('the agent has no MCP server of that name');
  });

  it('in the chat: sets up a connector and the agent confirms it', async () => {
    const el = await chat();
    typeAndSend(el, '/connect github');
    const card = await waitFor<SvcConnectorSetup>(el, 'svc-connector-setup', 'the connector card');
    await until(() => card.shadowRoot?.querySelector('[name=api_key]'), 'the fields');
    await idle(el);
    fill(card, 'api_key', 'ghp_chat');
    fill(card, 'account', 'me@example.com');
    part<HTMLButtonElement>(card, 'button')!.click();
    await until(() => card.getAttribute('state') === 'submitted', 'the saved state');
    await until(
      () => agentTexts(el).some((t) => t.includes('github is connected now (stored fields: api_key, account)')),
      'the confirmation',
    );
  });
});
