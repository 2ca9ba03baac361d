import { html, nothing, type ReactiveControllerHost, type TemplateResult } from 'lit';
import type { ChatClientOptions } from '../../chat/create-chat-client.js';
import type { SessionGrant } from '../../client/auth.js';
import { AuthenticationError } from '../../client/errors.js';
import type { SvcEmitter } from '../../internal/emit.js';
import type { ChatLabels } from '../../labels/label-types.js';
import type { SignedIn } from '../svc-sms-sign-in/svc-sms-sign-in.js';

/** What the session needs of the chat's panel. */
export interface SmsSessionHost extends ReactiveControllerHost, SvcEmitter {
  /** The service's address (`base-url`, else the page's origin). */
  readonly serviceUrl: string;
  workspace?: string;
  /** Keep the session in `sessionStorage` (`persist-session`). */
  persistSession: boolean;
  /** Every label of the chat's language, with the page's overrides. */
  readonly chatLabels: ChatLabels;
  /** The page's overrides of the labels, which the sign-in form takes too. */
  labels?: Partial<ChatLabels>;
}

/**
 * The session of a visitor who signs in by SMS (`sign-in="sms"`): the grant handed to the client once, the
 * session kept in `sessionStorage` with `persist-session`, and signing out when the service refuses it. An SMS
 * session cannot be renewed silently: when it ends, the visitor is back at the form, which says so (`ended`).
 */
export class SmsSession {
  /** The visitor was signed out because their session ended. */
  ended = false;
  #grant?: SessionGrant;

  constructor(private readonly host: SmsSessionHost) {}

  get #key(): string {
    return `svc-chat-session:${this.host.serviceUrl}|${this.host.workspace ?? ''}`;
  }

  /** The client's credential for the signed-in visitor; none before they sign in. */
  credentials(): Pick<ChatClientOptions, 'tokenProvider'> {
    const grant = this.#grant ?? (this.host.persistSession ? readSession(this.#key) : undefined);
    if (!grant) return {};
    // When the session ends (or the service refuses it), the request core reports this 401 and the visitor
    // signs in again.
    let handed = false;
    return {
      tokenProvider: async () => {
        if (handed) throw new AuthenticationError(401, this.host.chatLabels.sessionExpired, undefined);
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

  /**
   * The sign-in form of `sign-in="sms"`, while no visitor is signed in (saying so when their session ended);
   * `started` once one has signed in.
   */
  render(labels: ChatLabels, language: { tag: string; dir: string }, started: () => void): TemplateResult {
    const { host } = this;
    const ended = this.ended ? html`<div part="notice" role="alert">${labels.sessionExpired}</div>` : nothing;
    return html`${ended}
      <div part="sign-in">
        <svc-sms-sign-in base-url=${host.serviceUrl} workspace=${host.workspace ?? ''} lang=${language.tag}
          dir=${language.dir} .labels=${host.labels}
          @svc-signed-in=${(e: CustomEvent<SignedIn>) => this.signedIn(e) && started()}
        ><slot name="sms-challenge" slot="challenge"></slot></svc-sms-sign-in>
      </div>`;
  }

  /**
   * The sign-in element's `svc-signed-in`: keeps its session and tells the page who signed in, never the token.
   * False when it carries no session.
   */
  signedIn(event: CustomEvent<SignedIn>): boolean {
    event.stopPropagation();
    const { token, user_id, expires_at } = event.detail;
    if (!token) return false;
    this.#grant = { token, expires_at };
    this.ended = false;
    this.host.emit('svc-signed-in', { user_id, expires_at });
    if (this.host.persistSession) sessionStorage.setItem(this.#key, JSON.stringify(this.#grant));
    return true;
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
