import { css, html, nothing } from 'lit';
import { ApiError, PreconditionRequiredError } from '../../client/errors.js';
import { HttpClient } from '../../client/http.js';
import { sendSmsCode, verifySmsCode } from '../../client/sms.js';
import { localize } from '../../internal/localize.js';
import { SvcLocalizedElement } from '../../internal/svc-localized-element.js';
import type { ChatLabels } from '../../labels/label-types.js';
import { E164 } from '../../protocol/phone-number.js';
import type { SessionToken } from '../../protocol/types.js';
import { themeStyles, token } from '../../theme/theme.js';

/** Who signed in. `token` is there only on the sign-in element's own event, for pages that use it alone. */
export interface SignedIn {
  user_id: string;
  expires_at: string;
  token?: string;
}

/** What answers the service's challenge: resolves with the answer (a CAPTCHA token) once the visitor gave it. */
export type SmsChallengeAnswer = () => Promise<string>;

/** The detail of `svc-sms-challenge`: the phone a code is asked for, and how the page answers. */
export interface SmsChallengeRequest {
  phone: string;
  /**
   * Answers the challenge, called while the event is handled: the token, or a promise of it (rejected when the
   * visitor gave up).
   */
  respond(answer: string | Promise<string>): void;
}

/** The service accepts a new code for a phone after 30 s. */
const RESEND_SECONDS = 30;

/**
 * @summary Signs a visitor in with a code sent by SMS: phone number, code, session token.
 *
 * The SMS routes take no credential, so this element needs only `base-url` and `workspace`. Inside
 * `<svc-chat sign-in="sms">` it appears by itself; alone, listen for `svc-signed-in`.
 *
 * @csspart form - Each of the two steps.
 * @csspart label - Field labels.
 * @csspart input - The phone and code fields.
 * @csspart button - The main button.
 * @csspart link-button - "Use another number" and "Send a new code".
 * @csspart message - What happened ("We sent a code…").
 * @csspart error - What went wrong.
 *
 * @slot challenge - The site's CAPTCHA (Turnstile, hCaptcha…), shown while the service asks for it.
 *
 * @fires svc-signed-in - The visitor signed in; `detail: { token, user_id, expires_at }`.
 * @fires svc-sms-challenge - Near its daily cap the service asks for the operator's challenge (428) before it
 * sends a code: `detail: { phone, respond(answer) }`; call `respond` while handling the event, with the
 * CAPTCHA's token or a promise of it, and the code is asked for again with it, once. Not answered here, `challenge` answers; neither, the
 * visitor is told the site cannot send a code now.
 */
export class SvcSmsSignIn extends SvcLocalizedElement {
  static override styles = [
    themeStyles,
    css`
      :host {
        display: block;
        color: ${token('colorText')};
        font-family: ${token('fontFamily')};
      }
      [part='form'] {
        display: grid;
        gap: 10px;
        max-width: 360px;
        margin: 0 auto;
      }
      [part='label'] {
        font-size: 0.9em;
        font-weight: 600;
      }
      [part='input'] {
        font: inherit;
        padding: 10px 12px;
        border: 1px solid ${token('colorBorder')};
        border-radius: ${token('radiusS')};
        background: ${token('colorBg')};
        color: inherit;
      }
      [part='input'][name='code'] {
        letter-spacing: 0.3em;
        font-variant-numeric: tabular-nums;
      }
      [part='button'] {
        font: inherit;
        font-weight: 600;
        padding: 10px 12px;
        border: 0;
        border-radius: ${token('radiusS')};
        background: ${token('colorPrimary')};
        color: ${token('colorOnPrimary')};
        cursor: pointer;
      }
      [part='button']:disabled {
        opacity: 0.55;
        cursor: default;
      }
      [part='link-button'] {
        font: inherit;
        font-size: 0.9em;
        padding: 0;
        border: 0;
        background: none;
        color: ${token('colorLink')};
        cursor: pointer;
        justify-self: start;
      }
      [part='link-button']:disabled {
        color: ${token('colorMuted')};
        cursor: default;
      }
      [part='message'] {
        margin: 0;
        color: ${token('colorMuted')};
        font-size: 0.9em;
      }
      [part='error'] {
        margin: 0;
        color: ${token('colorDanger')};
        font-size: 0.9em;
      }
      :focus-visible {
        outline: 2px solid ${token('colorFocus')};
        outline-offset: 2px;
      }
    `,
  ];

  static override properties = {
    baseUrl: { attribute: 'base-url' },
    workspace: {},
    theme: { reflect: true },
    labels: { attribute: false },
    challenge: { attribute: false },
    _step: { state: true },
    _phone: { state: true },
    _error: { state: true },
    _busy: { state: true },
    _wait: { state: true },
  };

  /** Service address; default: this page's origin. */
  declare baseUrl?: string;
  /** The workspace the visitor joins. */
  declare workspace: string;
  /** `light`, `dark` or `auto`; unset inside `<svc-chat>`, which themes it. */
  declare theme?: string;
  /** Overrides of any label. */
  declare labels?: Partial<ChatLabels>;
  /**
   * Answers the service's challenge when `svc-sms-challenge` was not: shows the site's CAPTCHA (in the
   * `challenge` slot) and resolves with its token.
   */
  declare challenge?: SmsChallengeAnswer;

  protected readonly language = localize(this);
  _step: 'phone' | 'challenge' | 'code' = 'phone';
  _phone = '';
  _error?: string;
  _busy?: boolean;
  /** Seconds until another code may be sent. */
  _wait = 0;
  #timer?: ReturnType<typeof setInterval>;

  get #labels(): ChatLabels {
    return { ...this.language.labels.chat, ...this.labels };
  }

  get #http(): HttpClient {
    // No apiKey: these routes take no credential, and none is sent.
    return new HttpClient({ baseUrl: this.baseUrl || location.origin });
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    clearInterval(this.#timer);
  }

  /** Lit calls a listener with the element as `this`: the form's submit, and the resend button's click. */
  async #sendCode(event: Event): Promise<void> {
    event.preventDefault();
    const input = this.renderRoot.querySelector<HTMLInputElement>('input[name=phone]');
    const phone = (input?.value ?? this._phone).replace(/[\s()-]/g, '');
    if (!E164.test(phone)) {
      this._error = this.#labels.badPhone;
      return;
    }
    // Kept for the form that shows again after the challenge step.
    this._phone = phone;
    await this.#run(async () => {
      try {
        await sendSmsCode(this.#http, this.workspace, { phone });
      } catch (err) {
        if (!(err instanceof PreconditionRequiredError)) throw err;
        const challenge = await this.#answer(phone);
        if (challenge === undefined) {
          this._error = this.#labels.challengeUnavailable;
          return;
        }
        // Asked again once: a second 428 (an answer the service did not accept) is explained, not looped on.
        await sendSmsCode(this.#http, this.workspace, { phone, challenge });
      }
      this._step = 'code';
      this.#countdown(RESEND_SECONDS);
      await this.updateComplete;
      this.renderRoot.querySelector<HTMLInputElement>('input[name=code]')?.focus();
    });
  }

  /**
   * The answer to the service's challenge, from the page (`svc-sms-challenge`) or `challenge`, with the
   * `challenge` slot shown meanwhile; undefined when neither answers. A visitor who gave up is told it failed.
   */
  async #answer(phone: string): Promise<string | undefined> {
    let answer: Promise<string> | undefined;
    this.emit('svc-sms-challenge', { phone, respond: (given) => (answer ??= Promise.resolve(given)) });
    answer ??= this.challenge?.();
    if (!answer) return undefined;
    const step = this._step;
    this._step = 'challenge';
    try {
      return await answer;
    } catch {
      throw new PreconditionRequiredError(428, this.#labels.challengeFailed, undefined);
    } finally {
      this._step = step;
    }
  }

  async #verify(event: Event): Promise<void> {
    event.preventDefault();
    const input = this.renderRoot.querySelector<HTMLInputElement>('input[name=code]');
    const code = (input?.value ?? '').replace(/\D/g, '');
    if (code.length !== 6) {
      this._error = this.#labels.wrongCode;
      return;
    }
    await this.#run(async () => {
      const session: SessionToken = await verifySmsCode(this.#http, this.workspace, { phone: this._phone, code });
      this.emit('svc-signed-in', session);
    });
  }

  /** Runs a step with the button disabled, turning any failure into words a visitor understands. */
  async #run(step: () => Promise<void>): Promise<void> {
    this._busy = true;
    this._error = '';
    try {
      await step();
    } catch (err) {
      this._error = this.#explain(err);
      if (err instanceof ApiError && err.status === 429) {
        const retryAfter = Number(err.headers?.get('retry-after'));
        this.#countdown(Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : RESEND_SECONDS);
      }
    } finally {
      this._busy = false;
    }
  }

  #explain(err: unknown): string {
    const labels = this.#labels;
    if (!(err instanceof ApiError)) return labels.networkError;
    if (err.status === 401) return labels.wrongCode;
    if (err.status === 429) return labels.tooManyTries;
    if (err.status === 400) return labels.badPhone;
    if (err.status === 403 && /disabled/.test(err.message)) return labels.smsDisabled;
    if (err instanceof PreconditionRequiredError) return labels.challengeFailed;
    return err.message;
  }

  #countdown(seconds: number): void {
    clearInterval(this.#timer);
    this._wait = Math.ceil(seconds);
    this.#timer = setInterval(() => {
      if (--this._wait === 0) clearInterval(this.#timer);
    }, 1000);
  }

  protected override render() {
    const labels = this.#labels;
    const resendIn = this._wait > 0 && labels.resendIn(this._wait);
    // `aria-invalid=${!!this._error}` below: a boolean binding writes "true" or "false".
    const error = this._error ? html`<p part="error" role="alert">${this._error}</p>` : nothing;
    if (this._step === 'challenge') {
      return html`<div part="form" dir=${this.language.dir}>
        <p part="message" role="status">${labels.challengePrompt}</p>
        <slot name="challenge"></slot>
      </div>`;
    }
    if (this._step === 'phone') {
      return html`<form part="form" dir=${this.language.dir} @submit=${this.#sendCode} novalidate>
        <label part="label" for="phone">${labels.phoneLabel}</label>
        <input part="input" id="phone" name="phone" type="tel" dir="ltr" inputmode="tel" autocomplete="tel"
          placeholder=${labels.phonePlaceholder} .value=${this._phone} required
          aria-invalid=${!!this._error} aria-describedby="phone-error" />
        <div id="phone-error">${error}</div>
        <button part="button" type="submit" ?disabled=${this._busy || resendIn}>
          ${resendIn || labels.sendCode}
        </button>
      </form>`;
    }
    return html`<form part="form" dir=${this.language.dir} @submit=${this.#verify} novalidate>
      <p part="message" role="status">${labels.codeSent(this._phone)}</p>
      <label part="label" for="code">${labels.codeLabel}</label>
      <input part="input" id="code" name="code" type="text" dir="ltr" inputmode="numeric" autocomplete="one-time-code"
        maxlength="6" pattern="[0-9]{6}" required aria-invalid=${!!this._error}
        aria-describedby="code-error" />
      <div id="code-error">${error}</div>
      <button part="button" type="submit" ?disabled=${this._busy}>${labels.verify}</button>
      <button part="link-button" type="button" ?disabled=${this._busy || resendIn} @click=${this.#sendCode}>
        ${resendIn || labels.resend}
      </button>
      <button part="link-button" type="button" @click=${() => {
        this._step = 'phone';
        this._error = '';
      }}>${labels.changePhone}</button>
    </form>`;
  }
}

SvcSmsSignIn.define('svc-sms-sign-in');

declare global {
  interface HTMLElementTagNameMap {
    'svc-sms-sign-in': SvcSmsSignIn;
  }
  interface GlobalEventHandlersEventMap {
    /** Alone, the detail holds the session token; `<svc-chat>` re-emits it without the token. */
    'svc-signed-in': CustomEvent<SignedIn>;
    'svc-sms-challenge': CustomEvent<SmsChallengeRequest>;
  }
}
