import { html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { readError } from '../../chat/chat-state.js';
import { MessageLog } from '../../chat/message-log.js';
import type { TokenProvider } from '../../client/auth.js';
import { tokenEndpointProvider } from '../../client/auth.js';
import { FilesClient } from '../../client/files.js';
import { HttpClient } from '../../client/http.js';
import { OperatorInbox } from '../../client/operators.js';
import { SvcElement } from '../../internal/svc-element.js';
import type { HandoffResult, OperatorQueue, QueueEntry } from '../../protocol/handoff-types.js';
import { INBOX_LABELS, type InboxLabels } from './inbox-labels.js';
import styles from './svc-inbox.styles.js';

const EMPTY_QUEUE: OperatorQueue = { waiting: [], mine: [], missed: [] };

/**
 * @summary The inbox of a person of the site's staff (an operator): the conversations waiting for a person, live;
 * one conversation's history and live records; Take, Release, Close; replies with attachments.
 *
 * A site embeds it in its admin, with an operator's session token from its backend (`token-endpoint`, or a
 * `tokenProvider`; never the workspace key). Not part of the visitor's widget: it is a chunk of its own
 * (`<script type="module" src="…/svc-chat-inbox.js">`, or `import '@svc/agent-sdk/inbox'` with a bundler).
 * While visitors wait, the page's title starts with their number, "(2) …".
 *
 * @csspart queue - The list of conversations: waiting, yours, missed.
 * @csspart queue-heading - The heading of each list.
 * @csspart queue-entry - A conversation in a list (a button that opens it).
 * @csspart conversation - The conversation opened.
 * @csspart conversation-header - Who the visitor is, who holds it, and its buttons.
 * @csspart take-button - Takes the waiting conversation.
 * @csspart release-button - Gives it back to the agents.
 * @csspart close-button - Closes the matter.
 * @csspart messages - The conversation's messages.
 * @csspart message - One message; with `message-visitor`, `message-agent` or `message-person`.
 * @csspart composer - The reply form, while this operator holds the conversation.
 * @csspart input - The reply's field.
 * @csspart attach-input - The files to attach.
 * @csspart send-button - Sends the reply.
 * @csspart error - What went wrong, in a sentence.
 *
 * @cssprop --svc-inbox-queue-width - The width of the list of conversations (default 280px).
 *
 * @fires svc-queue - The queue changed (at once, then after every change); `detail: { waiting, mine, missed }`.
 * @fires svc-handoff - This operator took, released or closed a conversation; `detail: { conversationId, state, operator?, at }`.
 * @fires svc-error - A request failed; `detail: { message, status? }` (the service's sentence, e.g. another
 * person took the conversation first).
 */
export class SvcInbox extends SvcElement {
  static override styles = styles;

  static override properties = {
    baseUrl: { attribute: 'base-url' },
    token: {},
    tokenEndpoint: { attribute: 'token-endpoint' },
    tokenProvider: { attribute: false },
    labels: { attribute: false },
    _queue: { state: true },
    _open: { state: true },
    _error: { state: true },
    _busy: { state: true },
  };

  /**
   * The service's address.
   * @default the page's origin
   */
  declare baseUrl?: string;
  /** An operator's session token (`ot_…`). */
  declare token?: string;
  /** The site's backend that answers `POST` with an operator's `{ token, expires_at }`. */
  declare tokenEndpoint?: string;
  /** Returns a fresh operator token, or `{ token, expires_at }`, from the site's backend. */
  declare tokenProvider?: TokenProvider;
  /** Overrides of any text (see `INBOX_LABELS`). */
  declare labels?: Partial<InboxLabels>;

  declare _queue: OperatorQueue;
  /** The conversation opened: its id, its entry in the queue, its records as messages. */
  declare _open?: { id: string; log: MessageLog; version: number };
  declare _error?: string;
  declare _busy: boolean;

  #inbox?: OperatorInbox;
  #files?: FilesClient;
  /** Aborts the queue's stream (when the credentials change or the element leaves the page). */
  #session?: AbortController;
  /** Aborts the opened conversation's stream. */
  #reading?: AbortController;
  #title?: string;

  constructor() {
    super();
    this._queue = EMPTY_QUEUE;
    this._busy = false;
  }

  get #labels(): InboxLabels {
    return { ...INBOX_LABELS, ...this.labels };
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.#title = document.title;
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#session?.abort();
    this.#reading?.abort();
    this.#session = undefined;
    if (this.#title !== undefined) document.title = this.#title;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    const credentials = ['baseUrl', 'token', 'tokenEndpoint', 'tokenProvider'] as const;
    if (this.#session && !credentials.some((name) => changed.has(name))) return;
    this.#session?.abort();
    this.#reading?.abort();
    const tokenProvider =
      this.tokenProvider ?? (this.tokenEndpoint ? tokenEndpointProvider(this.tokenEndpoint) : undefined);
    if (!this.token && !tokenProvider) return;
    const http = new HttpClient({ baseUrl: this.baseUrl || location.origin, apiKey: this.token, tokenProvider });
    this.#inbox = new OperatorInbox(http);
    this.#files = new FilesClient(http);
    this.#session = new AbortController();
    void this.#followQueue(this.#inbox, this.#session.signal);
  }

  async #followQueue(inbox: OperatorInbox, signal: AbortSignal): Promise<void> {
    try {
      for await (const queue of inbox.queueStream({ signal })) {
        this._queue = queue;
        if (this.#title !== undefined) {
          const n = queue.waiting.length;
          document.title = n ? `(${n}) ${this.#title}` : this.#title;
        }
        this.emit('svc-queue', queue);
      }
    } catch (err) {
      if (!signal.aborted) this.#fail(err);
    }
  }

  #fail(err: unknown): void {
    const { message, status } = readError(err);
    // The service's sentence, as a sentence.
    this._error = `${message.charAt(0).toUpperCase()}${message.slice(1)}${/[.!?]$/.test(message) ? '' : '.'}`;
    this.emit('svc-error', { message, ...(status === undefined ? {} : { status }) });
  }

  /** Opens conversation `id`: its latest history, then its live records. */
  async open(id: string): Promise<void> {
    const inbox = this.#inbox;
    if (!inbox) return;
    this.#reading?.abort();
    const reading = new AbortController();
    this.#reading = reading;
    const { signal } = reading;
    const log = new MessageLog();
    this._open = { id, log, version: 0 };
    this._error = undefined;
    const apply = (records: Parameters<MessageLog['apply']>[0][]) => {
      for (const record of records) log.apply(record);
      if (!signal.aborted) this._open = { id, log, version: this._open!.version + 1 };
    };
    try {
      const page = await inbox.history(id, { signal, turns: 20 });
      apply(page.entries);
      if (page.handoff) log.handoff.adopt(page.handoff);
      for await (const record of inbox.stream(id, { signal, lastEventId: log.lastId })) apply([record]);
    } catch (err) {
      if (!signal.aborted) this.#fail(err);
    }
  }

  async #act(action: 'take' | 'release' | 'close'): Promise<void> {
    const inbox = this.#inbox;
    const id = this._open?.id;
    if (!inbox || !id) return;
    this._busy = true;
    this._error = undefined;
    try {
      const result: HandoffResult = await inbox[action](id);
      this.emit('svc-handoff', result);
    } catch (err) {
      this.#fail(err);
    } finally {
      this._busy = false;
    }
  }

  async #reply(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    const input = form.querySelector<HTMLTextAreaElement>('[part~=input]')!;
    const files = form.querySelector<HTMLInputElement>('[part~=attach-input]')!;
    const id = this._open?.id;
    const message = input.value.trim();
    if (!id || !this.#inbox || (!message && !files.files?.length)) return;
    this._busy = true;
    this._error = undefined;
    try {
      const parts = await Promise.all([...(files.files ?? [])].map((file) => this.#files!.uploadPart(file)));
      const sent = await this.#inbox.send(id, { message, ...(parts.length ? { parts } : {}) });
      // Shown at once, not when the stream brings it (the log applies each record once).
      const open = this._open;
      if (open?.id === id && open.log.apply(sent.message)) this._open = { ...open, version: open.version + 1 };
      input.value = '';
      files.value = '';
    } catch (err) {
      this.#fail(err);
    } finally {
      this._busy = false;
    }
  }

  #renderEntry(entry: QueueEntry, labels: InboxLabels): TemplateResult {
    const last = entry.lastMessages.at(-1);
    return html`<li>
      <button part="queue-entry" type="button" aria-current=${this._open?.id === entry.conversationId ? 'true' : 'false'}
        @click=${() => void this.open(entry.conversationId)}>
        <strong>${entry.visitor.name ?? labels.visitor}</strong>
        ${entry.reason ? html`<span>${entry.reason}</span>` : nothing}
        ${last ? html`<span class="preview">${last.text}</span>` : nothing}
        ${entry.contact ? html`<span>${labels.contactLeft(Object.values(entry.contact).join(', '))}</span>` : nothing}
      </button>
    </li>`;
  }

  #renderQueue(labels: InboxLabels): TemplateResult {
    const list = (heading: string, entries: QueueEntry[], empty?: string) =>
      html`<h2 part="queue-heading">${heading} (${entries.length})</h2>
        ${entries.length ? html`<ul>${entries.map((entry) => this.#renderEntry(entry, labels))}</ul>` : empty ? html`<p>${empty}</p>` : nothing}`;
    const { waiting, mine, missed } = this._queue;
    return html`<nav part="queue" aria-label=${labels.queue}>
      ${list(labels.waiting, waiting, labels.nobodyWaiting)}${list(labels.mine, mine)}${list(labels.missed, missed)}
    </nav>`;
  }

  #renderConversation(labels: InboxLabels): TemplateResult {
    const open = this._open;
    if (!open) return html`<section part="conversation" class="empty"><p>${labels.pickConversation}</p></section>`;
    const entry = [...this._queue.waiting, ...this._queue.mine, ...this._queue.missed].find(
      (e) => e.conversationId === open.id,
    );
    const { state, operator } = open.log.handoff.status;
    const holds = state === 'human';
    const button = (part: string, label: string, action: 'take' | 'release' | 'close') =>
      html`<button part=${part} type="button" ?disabled=${this._busy} @click=${() => void this.#act(action)}>${label}</button>`;
    return html`<section part="conversation" aria-label=${labels.conversationWith(entry?.visitor.name ?? labels.visitor)}>
      <header part="conversation-header">
        <h2>${entry?.visitor.name ?? labels.visitor}</h2>
        <span role="status">${state === 'waiting' ? labels.isWaiting : holds ? labels.heldBy(operator?.name ?? '') : labels.withAgents}</span>
        ${state === 'waiting' ? button('take-button', labels.take, 'take') : nothing}
        ${holds ? html`${button('release-button', labels.release, 'release')}${button('close-button', labels.close, 'close')}` : nothing}
      </header>
      <div part="messages" role="log" aria-label=${labels.messages} tabindex="0">
        ${open.log.messages.map((m) => {
          const who = m.operator ? 'person' : m.role === 'user' ? 'visitor' : 'agent';
          const name = m.operator
            ? labels.person(m.operator.name)
            : m.role === 'user'
              ? labels.visitor
              : (m.senderName ?? labels.agent);
          return html`<div part="message message-${who}" class=${who}>
            <span class="name">${name}</span>
            <span class="text">${m.text}</span>
            ${m.parts.map((p) => {
              const url = p.type === 'image_url' ? p.image_url.url : p.type === 'file' ? p.file.file_url : undefined;
              return url
                ? html`<a href=${url} target="_blank" rel="noopener noreferrer">${labels.attachment}</a>`
                : nothing;
            })}
          </div>`;
        })}
      </div>
      ${
        holds
          ? html`<form part="composer" @submit=${(e: SubmitEvent) => void this.#reply(e)}>
            <label><span class="visually-hidden">${labels.reply}</span>
              <textarea part="input" rows="2" placeholder=${labels.reply}></textarea></label>
            <label><span class="visually-hidden">${labels.attach}</span><input part="attach-input" type="file" multiple /></label>
            <button part="send-button" type="submit" ?disabled=${this._busy}>${labels.send}</button>
          </form>`
          : nothing
      }
    </section>`;
  }

  protected override render(): TemplateResult {
    const labels = this.#labels;
    return html`${this._error ? html`<p part="error" role="alert">${this._error}</p>` : nothing}
      <div class="columns">${this.#renderQueue(labels)}${this.#renderConversation(labels)}</div>`;
  }
}

SvcInbox.define('svc-inbox');

declare global {
  interface HTMLElementTagNameMap {
    'svc-inbox': SvcInbox;
  }
  interface GlobalEventHandlersEventMap {
    'svc-queue': CustomEvent<OperatorQueue>;
    'svc-handoff': CustomEvent<HandoffResult>;
  }
}
