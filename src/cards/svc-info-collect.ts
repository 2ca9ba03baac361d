import { html, nothing, type PropertyDeclarations, type TemplateResult } from 'lit';
import type { InfoCollectLabels } from '../labels/label-types.js';
import {
  type InfoCollectAnswer,
  infoCollectSkipMetadata,
  infoCollectSubmitMetadata,
} from '../protocol/card-answers.js';
import type { InfoCollectField, InfoCollectPayload } from '../protocol/types.js';
import { CardActionError, SvcAnswerCard } from './svc-card.js';
import styles from './svc-info-collect.styles.js';
import { validateField } from './validate-field.js';

/** The `<input>` of each kind of field that has one; any other kind is plain text. */
const INPUT_TYPES: Record<string, { type?: string; inputmode?: string; autocomplete?: string }> = {
  email: { type: 'email', inputmode: 'email', autocomplete: 'email' },
  phone: { type: 'tel', inputmode: 'tel', autocomplete: 'tel' },
  number: { inputmode: 'decimal' },
  date: { type: 'date' },
};

/**
 * @summary An information-collection card: a form built from the agent's `collect_info` fields, checked
 * before it is sent, then shown as answered with the values given (also when reloaded from history).
 *
 * Inside `<svc-chat>` the answer goes through the chat; alone, give it `request` (from
 * `extractInfoCollect(record)`), a `client` and `conversation-id`. The answer is a `toolAction` message with
 * `infoCollectSubmitMetadata(values, toolUseId)` or `infoCollectSkipMetadata(toolUseId)`.
 *
 * The host reflects its state as the `state` attribute: `open`, `submitted` or `skipped`.
 *
 * @csspart base - The card.
 * @csspart title - The card's title.
 * @csspart description - The card's description.
 * @csspart field - One field: its label, control and error.
 * @csspart label - A field's label.
 * @csspart input - A field's control (input, select or textarea).
 * @csspart field-error - Why a field's value cannot be sent.
 * @csspart actions - The buttons.
 * @csspart button - The submit button.
 * @csspart secondary-button - The skip button.
 * @csspart error - Why the answer was not sent.
 * @csspart status - "Sent" or "Skipped" once answered.
 * @csspart summary - The values sent.
 *
 * @cssprop --svc-color-primary - The submit button.
 * @cssprop --svc-color-danger - Errors.
 * @cssprop --svc-color-success - The answered status.
 * @cssprop --svc-color-text - Text.
 * @cssprop --svc-color-muted - Secondary text.
 * @cssprop --svc-color-border - Borders.
 * @cssprop --svc-color-bg - Backgrounds.
 * @cssprop --svc-radius-m - The card's corners.
 * @cssprop --svc-radius-s - Corners of fields and buttons.
 *
 * @fires svc-info-submit - Before the answer is sent; cancelable (a host that cancels handles it itself).
 * `detail: { toolUseId, action: 'submit' | 'skip', values? }`.
 */
export class SvcInfoCollect extends SvcAnswerCard {
  static override styles = styles;

  static override properties: PropertyDeclarations = {
    request: { attribute: false },
    answer: { attribute: false },
    labels: { attribute: false },
    _sent: { state: true },
  };

  /** The card (`collect_info` tool call). */
  declare request?: InfoCollectPayload;
  /** The answer given, to summarize. */
  declare answer?: InfoCollectAnswer;
  /** Overrides of any label. */
  declare labels?: Partial<InfoCollectLabels>;

  declare _sent?: InfoCollectAnswer;

  get #labels(): InfoCollectLabels {
    return { ...this.language.labels.infoCollect, ...this.labels };
  }

  /** The answer shown: the one given, the one just sent, or "answered" without details. */
  get #answer(): InfoCollectAnswer | undefined {
    return this.answer ?? this._sent ?? (this.answered ? { action: 'submit' } : undefined);
  }

  protected override updated(): void {
    const answer = this.#answer;
    this.setAttribute('state', answer ? (answer.action === 'skip' ? 'skipped' : 'submitted') : 'open');
  }

  /** Checks the form and sends the values; a field that cannot be sent gets a message and the focus. */
  async submit(): Promise<void> {
    const request = this.request;
    const form = this.renderRoot.querySelector('form');
    if (!request || !form || this._busy) return;
    const data = new FormData(form);
    const labels = this.#labels;
    const errors: Record<string, string | undefined> = {};
    const values: Record<string, string | number> = {};
    for (const field of request.fields) {
      const { value, error } = validateField(field, String(data.get(field.name) ?? ''), labels);
      errors[field.name] = error;
      if (value !== undefined) values[field.name] = value;
    }
    this._errors = errors;
    const invalid = request.fields.findIndex((field) => errors[field.name]);
    if (invalid >= 0) {
      await this.updateComplete;
      this.renderRoot.querySelector<HTMLElement>(`#field-${invalid}`)?.focus();
      return;
    }
    await this.#answerWith({ action: 'submit', values });
  }

  /** A field marked wrong is checked again as the visitor corrects it, so a fixed field stops saying so. */
  #recheck(input: HTMLInputElement): void {
    const field = this.request?.fields.find((f) => f.name === input.name);
    if (field && this._errors[field.name]) {
      this._errors = { ...this._errors, [field.name]: validateField(field, input.value, this.#labels).error };
    }
  }

  /** Declines to answer. */
  async skip(): Promise<void> {
    if (this.request && !this._busy) await this.#answerWith({ action: 'skip' });
  }

  async #answerWith(answer: InfoCollectAnswer): Promise<void> {
    const { toolUseId } = this.request!;
    const request = this.emit('svc-info-submit', { toolUseId, ...answer }, { cancelable: true });
    if (request.defaultPrevented) return;
    this._busy = true;
    this._error = '';
    try {
      await this.sendAction(
        '',
        answer.action === 'submit'
          ? infoCollectSubmitMetadata(answer.values ?? {}, toolUseId)
          : infoCollectSkipMetadata(toolUseId),
      );
      this._sent = answer;
    } catch (err) {
      const labels = this.#labels;
      this._error =
        err instanceof CardActionError && err.reason === 'no-conversation' ? labels.noConversation : labels.sendFailed;
    } finally {
      this._busy = false;
    }
  }

  protected override render(): TemplateResult {
    const request = this.request;
    if (!request) return html``;
    const labels = this.#labels;
    const answer = this.#answer;
    return html`<section part="base" dir=${this.language.dir} aria-label=${request.title}>
      <h3 part="title">${request.title}</h3>
      ${request.description ? html`<p part="description">${request.description}</p>` : nothing}
      ${answer ? this.#renderAnswer(request, answer, labels) : this.#renderForm(request, labels)}
    </section>`;
  }

  #renderForm(request: InfoCollectPayload, labels: InfoCollectLabels): TemplateResult {
    return html`<form
      novalidate
      @input=${(e: Event) => this.#recheck(e.target as HTMLInputElement)}
      @submit=${(e: Event) => {
        e.preventDefault();
        void this.submit();
      }}
    >
      ${request.fields.map((field, i) => this.#renderField(field, i, labels))}
      ${this._error ? html`<p part="error" role="alert">${this._error}</p>` : nothing}
      <div part="actions">
        <button part="button" type="submit" ?disabled=${this._busy}>
          ${this._busy ? labels.sending : (request.submitLabel ?? labels.submit)}
        </button>
        <button part="secondary-button" type="button" ?disabled=${this._busy} @click=${() => void this.skip()}>
          ${labels.skip}
        </button>
      </div>
    </form>`;
  }

  #renderField(field: InfoCollectField, index: number, labels: InfoCollectLabels): TemplateResult {
    const id = `field-${index}`;
    const error = this._errors[field.name];
    const describedBy = error ? `${id}-error` : nothing;
    let control: TemplateResult;
    if (field.type === 'select') {
      control = html`<select part="input" id=${id} name=${field.name} ?required=${field.required}
        aria-invalid=${!!error} aria-describedby=${describedBy}>
        <option value="">${field.placeholder ?? labels.choose}</option>
        ${(field.options ?? []).map((option) => html`<option value=${option}>${option}</option>`)}
      </select>`;
    } else if (field.type === 'textarea') {
      control = html`<textarea part="input" id=${id} name=${field.name} ?required=${field.required}
        placeholder=${field.placeholder ?? nothing} aria-invalid=${!!error}
        aria-describedby=${describedBy}></textarea>`;
    } else {
      const kind = INPUT_TYPES[field.type] ?? {};
      control = html`<input part="input" id=${id} name=${field.name} type=${kind.type ?? 'text'}
        inputmode=${kind.inputmode ?? nothing} autocomplete=${kind.autocomplete ?? 'off'}
        ?required=${field.required} placeholder=${field.placeholder ?? nothing} aria-invalid=${!!error}
        aria-describedby=${describedBy} />`;
    }
    return html`<div part="field">
      <label part="label" for=${id}>
        <bdi>${field.label}</bdi>${field.required ? html`<span aria-hidden="true"> *</span>` : html` <span class="optional">(${labels.optional})</span>`}
      </label>
      ${control}
      ${error ? html`<p part="field-error" id=${`${id}-error`}>${error}</p>` : nothing}
    </div>`;
  }

  #renderAnswer(request: InfoCollectPayload, answer: InfoCollectAnswer, labels: InfoCollectLabels): TemplateResult {
    const given = request.fields.filter((field) => answer.values?.[field.name] !== undefined);
    return html`<p part="status" role="status" tabindex="-1">${answer.action === 'skip' ? labels.skipped : labels.submitted}</p>
      ${
        given.length
          ? html`<dl part="summary">
            ${given.map((field) => html`<dt>${field.label}</dt><dd>${String(answer.values![field.name])}</dd>`)}
          </dl>`
          : nothing
      }`;
  }
}

SvcInfoCollect.define('svc-info-collect');

declare global {
  interface HTMLElementTagNameMap {
    'svc-info-collect': SvcInfoCollect;
  }
  interface GlobalEventHandlersEventMap {
    'svc-info-submit': CustomEvent<{ toolUseId: string; action: 'submit' | 'skip'; values?: Record<string, unknown> }>;
  }
}
