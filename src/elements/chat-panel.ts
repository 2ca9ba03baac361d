import { html, nothing, type ReactiveController, render, type TemplateResult } from 'lit';
import type { ChatStore } from '../chat/chat-store.js';
import { plusIcon, previousIcon, stopIcon } from '../internal/content-icons.js';
import { trapTab } from '../internal/focus-trap.js';
import { sendIcon } from '../internal/icons.js';
import type { ChatLabels } from '../internal/labels/types.js';
import { localize } from '../internal/localize.js';
import { hostList, safeUrl } from '../internal/safe-url.js';
import { virtualList } from '../internal/virtual-list.js';
import { whenIdle } from '../internal/when-idle.js';
import type { SendResult } from '../protocol/types.js';
import { AnnouncerController } from './announcer.js';
import { renderAttachButton, renderAttachments, renderDropZone } from './attachments.js';
import attachmentsStyles from './attachments.styles.js';
import { ChatConnection } from './chat-connection.js';
import styles from './chat-panel.styles.js';
import { loadMarkdownEngine } from './markdown/engine.js';
import { agentStatusLine, continuedRuns, renderMessage, type ViewContext } from './message-view.js';
import messageViewStyles from './message-view.styles.js';
import { RichContent } from './rich-content.js';
import { ScrollFollowController } from './scroll-follow.js';
import { SmsSession } from './sms-session.js';
import type { SvcChat } from './svc-chat.js';

/** What the visitor typed into the panel's loading state, and whether they sent it. */
export interface EarlyInput {
  draft: string;
  send: boolean;
}

/**
 * The conversation of `<svc-chat>`: everything inside its panel below the header (and the header's own
 * buttons), rendered with Lit into the chat's shadow root, in a module loaded after the launcher
 * (`load-panel.ts`), which brings Lit. It connects the chat to the
 * service (`ChatConnection`), signs visitors in by SMS, follows the end of the conversation, and holds the
 * composer, the rich content and what screen readers hear.
 */
export class ChatPanel implements ReactiveController {
  static readonly styles = [styles, messageViewStyles, attachmentsStyles];

  readonly #connection: ChatConnection;
  readonly #sms: SmsSession;
  readonly #scroll: ScrollFollowController;
  readonly #content: RichContent;
  readonly #announcer: AnnouncerController;
  /** The chat's panel element, once drawn into. */
  #section?: HTMLElement;
  /** Every label of the chat's language (the launcher has only its own). */
  readonly #language;
  #draft: string;
  /** The visitor sent a message before the panel was there: it goes once the conversation is. */
  #sendEarly: boolean;

  constructor(
    private readonly host: SvcChat,
    early: EarlyInput = { draft: '', send: false },
  ) {
    this.#language = localize(host);
    this.#draft = early.draft;
    this.#sendEarly = early.send;
    const options = {
      labels: () => this.#labels,
      lang: () => this.#language.tag,
      dir: () => this.#language.dir,
    };
    const baseUrl = () => host.baseUrl || location.origin;
    this.#sms = new SmsSession(host, {
      ...options,
      baseUrl,
      workspace: () => host.workspace,
      persist: () => host.persistSession,
      overrides: () => host.labels,
      signedIn: () => this.#connection.start(),
    });
    this.#content = new RichContent(host, { ...options, accept: () => host.accept });
    this.#connection = new ChatConnection(host, {
      signedInVisitor: () => this.#sms.credentials(),
      changed: (connection) =>
        connection ? this.#content.attach(connection.chat, connection.store) : this.#content.detach(),
      turnComplete: () => {
        if (host.mode === 'launcher' && !host.opened) host._unread += 1;
      },
      unauthorized: () => {
        if (host.signIn !== 'sms') return;
        this.#connection.stop();
        this.#sms.signOut();
      },
    });
    this.#scroll = new ScrollFollowController(host, {
      list: () => host.renderRoot.querySelector('[part~=messages]'),
      hasMoreHistory: () => !!this.#store?.hasMoreHistory,
      loadingHistory: () => !!this.#store?.loadingHistory,
      loadOlder: () => void this.#store?.loadOlder(),
      running: () => !!this.#store?.running,
    });
    this.#announcer = new AnnouncerController(host, options.labels);
    host.addController(this);
    // The launcher's styles stay; the conversation's join them.
    const root = host.renderRoot;
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, ...ChatPanel.styles.map((style) => style.styleSheet!)];
  }

  /**
   * Renders the conversation into the chat's panel element `section` (after its header), and the header's
   * buttons before `actions`.
   */
  draw(section: HTMLElement, actions: ChildNode): void {
    if (this.#section !== section) {
      this.#section = section;
      this.#listen(section);
    }
    const options = { host: this.host };
    render(this.#renderHeaderActions(), actions.parentNode as HTMLElement, { ...options, renderBefore: actions });
    render(this.#render(), section, options);
  }

  /** Files dragged over, dropped on or pasted into the panel are attached; Tab stays in a modal panel. */
  #listen(section: HTMLElement): void {
    const drop = () => (this.#store ? this.#content.attachments : undefined);
    section.addEventListener('dragover', (e) => drop()?.onDragOver(e));
    section.addEventListener('dragleave', (e) => drop()?.onDragLeave(e));
    section.addEventListener('drop', (e) => drop()?.onDrop(e));
    section.addEventListener('paste', (e) => drop()?.onPaste(e));
    // The chat makes its panel modal where it covers the screen (a phone).
    section.addEventListener('keydown', (e) => section.ariaModal === 'true' && trapTab(e, section));
  }

  get #labels(): ChatLabels {
    return { ...this.#language.labels.chat, ...this.host.labels };
  }

  /** Where images may come from besides this page: the service (which serves uploads), and `image-hosts`. */
  #imageHosts(): string[] {
    const { host } = this;
    const service = safeUrl(host.client?.chat.http.baseUrl ?? (host.baseUrl || location.origin))?.host ?? '';
    return [service, ...hostList(host.imageHosts)];
  }

  get #store(): ChatStore | undefined {
    return this.#connection.store;
  }

  get #input(): HTMLTextAreaElement | null {
    return this.host.renderRoot.querySelector('[part~=input]');
  }

  hostConnected(): void {
    // The chat is on the page: fetch the markdown renderer while it is idle, before a message needs it.
    whenIdle(() => void loadMarkdownEngine().catch(() => {}), 2000);
  }

  send(text: string): Promise<SendResult | undefined> {
    return this.#store?.send(text) ?? Promise.resolve(undefined);
  }

  async interrupt(): Promise<void> {
    await this.#store?.interrupt();
  }

  newConversation(): void {
    this.#connection.newConversation();
  }

  /** The panel opened: it shows the end of the conversation. */
  opened(): void {
    this.#scroll.follow();
    this.#connection.askReach();
  }

  #submit(event?: Event): void {
    event?.preventDefault();
    const input = this.#input;
    const text = (input?.value ?? '').trim();
    const store = this.#store;
    const { attachments } = this.#content;
    const { parts } = attachments;
    if (!store || store.running) return;
    if (attachments.uploading) {
      attachments.notice = this.#labels.waitForUploads;
      this.host.requestUpdate();
      return;
    }
    if (!text && !parts.length) return;
    this.#draft = '';
    if (input) input.value = '';
    this.#scroll.follow();
    attachments.clear();
    void store.send(text, parts.length ? { parts } : {});
  }

  hostUpdated(): void {
    if (!this.#sendEarly || !this.#store) return;
    this.#sendEarly = false;
    // After this update: sending renders again.
    void this.host.updateComplete.then(() => this.#submit());
  }

  /**
   * The store's last error as the visitor reads it: one plain sentence in their language (the detail went to
   * `svc-error` and the console), with a Retry unless a message carries its own: a message not sent, a reply
   * that failed (which says so itself). Said once: not again beside the notice that the service is unreachable.
   */
  #errorNotice(store: ChatStore, labels: ChatLabels): TemplateResult | typeof nothing {
    const connection = this.#connection;
    const status = connection.failure?.status;
    if (!store.error || connection.failure?.reply || (status === undefined && connection.unreachable)) return nothing;
    const sentence =
      status === undefined ? labels.networkError : status === 429 ? labels.tooManyRequests : labels.serviceError;
    const retry = store.messages.some((m) => m.status === 'failed')
      ? nothing
      : html`<button part="retry-button" type="button" @click=${() => {
          if (store.conversationId) void store.load(store.conversationId);
          else store.clearError();
        }}>${labels.retry}</button>`;
    return html`<div part="notice" class="error" role="alert">${sentence} ${retry}</div>`;
  }

  /** Asks again what the visitor asked before the newest reply failed. */
  #retryReply(store: ChatStore): void {
    const asked = store.messages.findLast((m) => m.role === 'user');
    if (!asked) return;
    this.#scroll.follow();
    void store.send(asked.text, asked.parts.length ? { parts: [...asked.parts] } : {});
  }

  /**
   * The header's buttons of a conversation: back to the one before (after the visitor started a new one: it
   * is kept, not thrown away), and a new one.
   */
  #renderHeaderActions(): TemplateResult | typeof nothing {
    if (!this.#store) return nothing;
    const labels = this.#labels;
    const connection = this.#connection;
    return html`${
      connection.previous
        ? html`<button class="icon-button" part="previous-button" type="button" title=${labels.previousConversation}
          aria-label=${labels.previousConversation} @click=${() => {
            this.#scroll.follow();
            connection.backToPrevious();
            this.host.requestUpdate();
          }}>${previousIcon}</button>`
        : nothing
    }<button class="icon-button" part="new-button" type="button" title=${labels.newConversation}
      aria-label=${labels.newConversation} @click=${() => this.host.newConversation()}>${plusIcon}</button>`;
  }

  #render(): TemplateResult {
    const { host } = this;
    const labels = this.#labels;
    const language = this.#language;
    const connection = this.#connection;
    if (connection.fatal) return html`<div part="notice" class="error" role="alert">${connection.fatal}</div>`;
    const unreachable = connection.unreachable
      ? html`<div part="notice" class="error" role="alert">
          ${labels.networkError}
          <button part="retry-button" type="button" @click=${() => void connection.checkReach()}>${labels.retry}</button>
        </div>`
      : nothing;
    const store = this.#store;
    if (!store && host.signIn === 'sms') return html`${unreachable}${this.#sms.render()}`;
    if (!store) {
      return html`<div part="notice">${host.tokenEndpoint || host.tokenProvider ? labels.connecting : labels.signInRequired}</div>`;
    }
    const { messages } = store;
    const newest = messages.at(-1);
    const content = this.#content;
    const view: ViewContext = {
      labels,
      agents: host.agents,
      imageHosts: this.#imageHosts(),
      retry: (id) => void store.retry(id),
      failedReply: newest && newest.role !== 'user' && newest.error ? newest.key : undefined,
      retryReply: () => this.#retryReply(store),
      lang: language.tag,
      dir: language.dir,
      showThinking: host.showThinking,
      continued: continuedRuns(messages),
      ...content.view,
      readAloudStop: content.view.readAloud.tabStop(messages),
    };
    // One button sends and, while a reply runs, stops it: the same element, so it keeps the focus.
    const running = store.running;
    return html`
      ${unreachable}
      ${store.connection === 'reconnecting' ? html`<div part="notice" role="status">${labels.reconnecting}</div>` : nothing}
      ${this.#errorNotice(store, labels)}
      <div part="messages" role="log" aria-live="off" aria-label=${labels.messageList} tabindex="0"
        @scroll=${this.#scroll.onScroll}>
        ${store.loadingHistory ? html`<div class="history-note" role="status">${labels.loadingOlder}</div>` : nothing}
        ${
          messages.length === 0 && !store.loadingHistory
            ? html`<div part="empty"><slot name="empty">${labels.empty}</slot></div>`
            : virtualList(
                messages,
                (m) => m.key,
                (m) => renderMessage(m, view),
              )
        }
      </div>
      ${
        this.#scroll.awayFromEnd
          ? html`<button part="jump-button" type="button" aria-label=${labels.jumpToEnd} title=${labels.jumpToEnd}
            @click=${this.#scroll.jumpToEnd}>↓</button>`
          : nothing
      }
      <div part="status" aria-live="polite">${agentStatusLine(store.agentStatus, store.agentNames, view)}</div>
      ${this.#announcer.render()}
      ${renderAttachments(content.attachments, labels, view.lang)}
      <form part="composer" @submit=${(e: Event) => this.#submit(e)}>
        ${renderAttachButton(content.attachments, labels, host.accept)}
        <textarea part="input" rows="1" aria-label=${labels.placeholder} placeholder=${labels.placeholder}
          .value=${this.#draft}
          @input=${(e: Event) => {
            this.#draft = (e.target as HTMLTextAreaElement).value;
          }}
          @keydown=${(e: KeyboardEvent) => {
            if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) this.#submit(e);
          }}
        ></textarea>
        <button part=${running ? 'stop-button' : 'send-button'} type=${running ? 'button' : 'submit'}
          aria-label=${running ? labels.stop : labels.send} title=${running ? labels.stop : labels.send}
          @click=${() => store.running && void store.interrupt()}>
          ${running ? stopIcon : sendIcon}
        </button>
      </form>
      ${renderDropZone(content.attachments, labels)} ${content.renderOverlays(labels)}
    `;
  }
}
