import { html, nothing, type ReactiveControllerHost, type TemplateResult } from 'lit';
import type { ChatClientOptions } from '../chat/create-chat-client.js';
import type { SessionGrant } from '../client/auth.js';
import { AuthenticationError } from '../client/errors.js';
import type { SvcEmitter } from '../internal/emit.js';
import type { ChatLabels } from '../internal/labels/types.js';
import type { SignedIn } from './svc-sms-sign-in.js';
import './svc-sms-sign-in.js';

/** What the session needs of the chat around it. */
export interface SmsSessionOptions {
  baseUrl(): string;
  workspace(): string | undefined;
  /** Keep the session in `sessionStorage` (`persist-session`). */
  persist(): boolean;
  labels(): ChatLabels;
  lang(): string;
  dir(): string;
  /** Overrides of the sign-in's labels. */
  overrides(): Partial<ChatLabels> | undefined;
  /** The visitor signed in: the chat starts again with their session. */
  signedIn(): void;
}

/**
 * The session of a visitor who signs in by SMS (`sign-in="sms"`): the sign-in form while there is none, the
 * grant handed to the client once, the session kept in `sessionStorage` with `persist-session`, and signing
 * out when the service refuses it. An SMS session cannot be renewed silently: when it ends, the visitor is
 * back at the form with `sessionExpired`.
 */
export class SmsSession {
  /** The visitor was signed out because their session ended. */
  ended = false;
  #grant?: SessionGrant;

  constructor(
    private readonly host: ReactiveControllerHost & SvcEmitter,
    private readonly options: SmsSessionOptions,
  ) {}

  get #key(): string {
    return `svc-chat-session:${this.options.baseUrl()}|${this.options.workspace() ?? ''}`;
  }

  /** The client's credential for the signed-in visitor; none before they sign in. */
  credentials(): Pick<ChatClientOptions, 'tokenProvider'> {
    const grant = this.#grant ?? (this.options.persist() ? readSession(this.#key) : undefined);
    if (!grant) return {};
    // When the session ends (or the service refuses it), the request core reports this 401 and the visitor
    // signs in again.
    let handed = false;
    return {
      tokenProvider: async () => {
        if (handed) throw new AuthenticationError(401, this.options.labels().sessionExpired, undefined);
        handed = true;
        return grant;
      },
    };
  }

  /** The service refused the session: back to the form, saying why. */
  signOut(): void {
    this.#grant = undefined;
    sessionStorage.removeItem(this.#key);
    this.ended = true;
    this.host.requestUpdate();
  }

  #signedIn(event: CustomEvent<SignedIn>): void {
    // The page hears who signed in, never the token itself.
    event.stopPropagation();
    const { token, user_id, expires_at } = event.detail;
    if (!token) return;
    this.#grant = { token, expires_at };
    this.ended = false;
    this.host.emit('svc-signed-in', { user_id, expires_at });
    if (this.options.persist()) sessionStorage.setItem(this.#key, JSON.stringify(this.#grant));
    this.options.signedIn();
  }

  render(): TemplateResult {
    const { options } = this;
    const ended = this.ended ? html`<div part="notice" role="alert">${options.labels().sessionExpired}</div>` : nothing;
    return html`${ended}
      <div part="sign-in">
        <svc-sms-sign-in
          base-url=${options.baseUrl()}
          workspace=${options.workspace() ?? ''}
          lang=${options.lang()}
          dir=${options.dir()}
          .labels=${options.overrides()}
          @svc-signed-in=${(e: CustomEvent<SignedIn>) => this.#signedIn(e)}
        ></svc-sms-sign-in>
      </div>`;
  }
}

function readSession(key: string): SessionGrant | undefined {
  try {
    const grant = JSON.parse(sessionStorage.getItem(key) ?? 'null') as SessionGrant | null;
    if (!grant?.token || (grant.expires_at && Date.parse(grant.expires_at) <= Date.now())) return undefined;
    return grant;
  } catch {
    return undefined;
  }
}
