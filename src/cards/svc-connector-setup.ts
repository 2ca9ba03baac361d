import { html, nothing, type PropertyDeclarations, svg, type TemplateResult } from 'lit';
import type { ConnectorLabels } from '../labels/label-types.js';
import { connectorSetupMetadata } from '../protocol/card-answers.js';
import type { ConnectorSetupField, ConnectorSetupRequest } from '../protocol/types.js';
import { SvcAnswerCard } from './svc-card.js';
import styles from './svc-connector-setup.styles.js';

const eye = (crossed: boolean) => svg`<svg viewBox="0 0 24 24" width="18" height="18" fill="none" stroke="currentColor"
  stroke-width="2" aria-hidden="true"><path d="M2 12s3.5-7 10-7 10 7 10 7-3.5 7-10 7S2 12 2 12Z"/><circle cx="12" cy="12"
  r="3"/>${crossed ? svg`<path d="M4 4l16 16"/>` : nothing}</svg>`;

/**
 * @summary A connector-setup card: the credentials an agent needs for a service (secret ones masked, with
 * a show toggle), stored for the user, after which the agent is told to try again.
 *
 * What it does is `Conversation.submitConnectorSetup(setup, values, { notify })`: the values go to
 * `chat.submitConnectorCredentials`, then (unless `notify` is false) a `toolAction` message
 * `{ connectorSetup: { connectorTypeId, status: 'submitted', toolUseId } }` makes the agent retry. Inside
 * `<svc-chat>` that message goes through the chat; alone, give it `request` (from
 * `extractConnectorSetup(record)`), a `client` and `conversation-id`.
 *
 * The host reflects its state as the `state` attribute: `open` or `submitted`.
 *
 * @csspart base - The card.
 * @csspart title - The connector's name.
 * @csspart server - Which server asks (the host of an agent's MCP server), when a server asks.
 * @csspart description - Why the credentials are needed.
 * @csspart field - One credential: its label, control and error.
 * @csspart label - A field's label.
 * @csspart input - A field's input.
 * @csspart toggle - Shows or hides a secret field.
 * @csspart field-error - Why a field's value cannot be saved.
 * @csspart actions - The buttons.
 * @csspart button - The save button.
 * @csspart error - Why saving failed.
 * @csspart status - "… is set up" once saved.
 *
 * @cssprop --svc-color-primary - The save button.
 * @cssprop --svc-color-danger - Errors.
 * @cssprop --svc-color-success - The saved status.
 * @cssprop --svc-color-text - Text.
 * @cssprop --svc-color-muted - Secondary text.
 * @cssprop --svc-color-border - Borders.
 * @cssprop --svc-color-bg - Backgrounds.
 *
 * @fires svc-connector-submit - Before the credentials are stored; cancelable. `detail: { connectorTypeId,
 * fields }` (the names of the fields filled in, never their values).
 * @fires svc-connector-saved - The credentials were stored; `detail: { connectorTypeId, fields }`.
 */
export class SvcConnectorSetup extends SvcAnswerCard {
  static override styles = styles;

  static override properties: PropertyDeclarations = {
    request: { attribute: false },
    notify: { attribute: false },
    labels: { attribute: false },
    _shown: { state: true },
    _saved: { state: true },
  };

  /** The card (`setup_connector` tool call). */
  declare request?: ConnectorSetupRequest;
  /** After saving, tell the agent with a card-action message so it retries. */
  notify = true;
  /** Overrides of any label. */
  declare labels?: Partial<ConnectorLabels>;

  /** Secret fields shown in clear. */
  _shown: ReadonlySet<string> = new Set();
  _saved = false;

  get #labels(): ConnectorLabels {
    return { ...this.language.labels.connector, ...this.labels };
  }

  protected override updated(): void {
    this.setAttribute('state', this.answered || this._saved ? 'submitted' : 'open');
  }

  /** Checks the fields, stores the credentials, then (with `notify`) tells the agent. */
  async submit(): Promise<void> {
    const request = this.request;
    const form = this.renderRoot.querySelector('form');
    if (!request || !form || this._busy) return;
    const labels = this.#labels;
    const data = new FormData(form);
    const values: Record<string, string> = {};
    const errors: Record<string, string> = {};
    for (const field of request.fields) {
      const value = String(data.get(field.name) ?? '').trim();
      if (value) values[field.name] = value;
      else if (field.required) errors[field.name] = labels.required;
    }
    this._errors = errors;
    const invalid = request.fields.findIndex((field) => errors[field.name]);
    if (invalid >= 0) {
      await this.updateComplete;
      this.renderRoot.querySelector<HTMLElement>(`#field-${invalid}`)?.focus();
      return;
    }
    const { connectorTypeId } = request;
    const detail = { connectorTypeId, fields: Object.keys(values) };
    if (this.emit('svc-connector-submit', detail, { cancelable: true }).defaultPrevented) return;
    const client = this.cardClient;
    if (!client || (this.notify && !this.canAnswer)) {
      this._error = labels.noConversation;
      return;
    }
    this._busy = true;
    this._error = '';
    try {
      await client.chat.submitConnectorCredentials(connectorTypeId, values, {
        ...(request.server && request.agentId ? { agentId: request.agentId } : {}),
      });
      // The values are stored: they are not kept in the page any longer than needed.
      form.reset();
      this._saved = true;
      this.emit('svc-connector-saved', detail);
      if (this.notify) {
        await this.sendAction(`Connected ${request.name}.`, connectorSetupMetadata(connectorTypeId, request.toolUseId));
      }
    } catch (err) {
      this._error = this._saved
        ? labels.notifyFailed
        : labels.saveFailed(err instanceof Error ? err.message : String(err));
    } finally {
      this._busy = false;
    }
  }

  /** A required field that was empty says so only until it is filled. */
  #filled(input: HTMLInputElement): void {
    if (!this._errors[input.name] || !input.value.trim()) return;
    this._errors = Object.fromEntries(Object.entries(this._errors).filter(([name]) => name !== input.name));
  }

  #toggle(name: string): void {
    const shown = new Set(this._shown);
    if (!shown.delete(name)) shown.add(name);
    this._shown = shown;
  }

  protected override render(): TemplateResult {
    const request = this.request;
    if (!request) return html``;
    const labels = this.#labels;
    const done = this.answered || this._saved;
    return html`<section part="base" dir=${this.language.dir} aria-label=${request.name}>
      <h3 part="title">${request.name}</h3>
      ${request.server ? html`<p part="server">${labels.asks(request.server)}</p>` : nothing}
      ${request.description ? html`<p part="description">${request.description}</p>` : nothing}
      ${
        done
          ? html`<p part="status" role="status" tabindex="-1">${labels.connected(request.name)}</p>`
          : html`<form
            novalidate
            @input=${(e: Event) => this.#filled(e.target as HTMLInputElement)}
            @submit=${(e: Event) => {
              e.preventDefault();
              void this.submit();
            }}
          >
            ${request.fields.map((field, i) => this.#renderField(field, i, labels))}
            <div part="actions">
              <button part="button" type="submit" ?disabled=${this._busy}>
                ${this._busy ? labels.saving : labels.save}
              </button>
            </div>
          </form>`
      }
      ${this._error ? html`<p part="error" role="alert">${this._error}</p>` : nothing}
    </section>`;
  }

  #renderField(field: ConnectorSetupField, index: number, labels: ConnectorLabels): TemplateResult {
    const id = `field-${index}`;
    const error = this._errors[field.name];
    const shown = this._shown.has(field.name);
    const input = html`<input part="input" id=${id} name=${field.name}
      type=${field.secret && !shown ? 'password' : 'text'} autocomplete="off" spellcheck="false"
      ?required=${field.required} placeholder=${field.placeholder ?? nothing}
      aria-invalid=${!!error} aria-describedby=${error ? `${id}-error` : nothing} />`;
    return html`<div part="field">
      <label part="label" for=${id}>
        <bdi>${field.label}</bdi>${field.required ? html`<span aria-hidden="true"> *</span>` : html` <span class="optional">(${labels.optional})</span>`}
      </label>
      ${
        field.secret
          ? html`<div class="secret">
            ${input}
            <button part="toggle" type="button" aria-pressed=${shown}
              aria-label=${labels.show(field.label)}
              @click=${() => this.#toggle(field.name)}>${eye(shown)}</button>
          </div>`
          : input
      }
      ${error ? html`<p part="field-error" id=${`${id}-error`}>${error}</p>` : nothing}
    </div>`;
  }
}

SvcConnectorSetup.define('svc-connector-setup');

declare global {
  interface HTMLElementTagNameMap {
    'svc-connector-setup': SvcConnectorSetup;
  }
  interface GlobalEventHandlersEventMap {
    'svc-connector-submit': CustomEvent<{ connectorTypeId: string; fields: string[] }>;
    'svc-connector-saved': CustomEvent<{ connectorTypeId: string; fields: string[] }>;
  }
}
