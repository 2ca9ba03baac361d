import { html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import type { ChatMessage } from '../chat/chat-message.js';
import { ChatStore } from '../chat/chat-store.js';
import { type ChatClientOptions, createChatClient } from '../chat/create-chat-client.js';
import type { SessionGrant, TokenProvider } from '../client/auth.js';
import type { ChatClient } from '../client/chat.js';
import { AuthenticationError } from '../client/errors.js';
import type { SendResult } from '../client/types.js';
import { AnnouncerController } from './announcer.js';
import { renderAttachButton, renderAttachments, renderDropZone } from './attachments.js';
import attachmentsStyles from './attachments.styles.js';
import { ChatContent } from './chat-content.js';
import { ChatController } from './chat-controller.js';
import { trapTab } from './focus-trap.js';
import { icons } from './icons.js';
import type { ChatLabels } from './labels/types.js';
import { loadMarkdownEngine } from './markdown/engine.js';
import { renderMessage, type ViewContext } from './message-view.js';
import messageViewStyles from './message-view.styles.js';
import { type PersistedChat, persistedChat } from './persist.js';
import { hostList, safeUrl } from './safe-url.js';
import styles, { FULL_SCREEN } from './svc-chat.styles.js';
import { SvcLocalizedElement } from './svc-localized-element.js';
import { type PlatformTokens, tokenStyle } from './tokens.js';
import { virtualList } from './virtual-list.js';
import './svc-markdown.js';
import type { SignedIn } from './svc-sms-sign-in.js';
import './svc-sms-sign-in.js';

export type ChatMode = 'inline' | 'launcher';
export type ChatTheme = 'light' | 'dark' | 'auto';

/** Distance from the bottom under which the list follows new content. */
const STICK_PX = 48;
/** Distance from the top under which older messages are loaded. */
const HISTORY_PX = 200;

/**
 * @summary The embeddable chat: a visitor signs in, talks to the site's agents and watches replies stream in
 * as rendered, sanitized markdown.
 *
 * Configure it with attributes (`base-url`, `agent-ids`, `token-endpoint`, …) or properties (`client`,
 * `tokenProvider`, `labels`, `tokens`). Authentication, most preferred first: `client` (a ready client);
 * `tokenProvider` or `token-endpoint` (the site's backend mints a visitor session with its workspace key;
 * the token is renewed before it expires and on a 401); `token` (a session token, not renewed);
 * `sign-in="sms"` with `workspace` (the visitor signs in with a code sent by SMS).
 *
 * @slot header-actions - Extra buttons in the header, before the built-in ones.
 * @slot empty - Shown instead of the default text while the conversation is empty.
 *
 * @csspart launcher - The floating button of `mode="launcher"`.
 * @csspart badge - The unread count on the launcher.
 * @csspart panel - The chat window.
 * @csspart header - The top bar; `title` is its heading.
 * @csspart title - The heading.
 * @csspart new-button - Starts a new conversation.
 * @csspart close-button - Closes the launcher's panel.
 * @csspart notice - The line that says "Reconnecting…", that the service cannot be reached, or shows an error.
 * @csspart messages - The scrolling conversation (`role="log"`, not live: see `announcer`).
 * @csspart empty - The empty conversation's text.
 * @csspart message - Each message row; also `message-user`, `message-agent` or `message-system`.
 * @csspart avatar - An agent's or the user's avatar.
 * @csspart name - The sender's name.
 * @csspart bubble - The message's content.
 * @csspart message-error - Why a send or a reply failed.
 * @csspart retry-button - Sends a failed message again, or checks again for a service that did not answer.
 * @csspart tool-call - A tool the agent used (expandable).
 * @csspart image - An image in a reply.
 * @csspart jump-button - "New messages" when the reader is above the end.
 * @csspart status - "Aria is typing…".
 * @csspart announcer - Reads each finished reply, once and whole, to screen readers (visually hidden).
 * @csspart composer - The input row; `input`, `send-button` and `stop-button` are inside.
 * @csspart input - The message field.
 * @csspart send-button - Sends the message.
 * @csspart stop-button - Stops the running reply.
 * @csspart sign-in - The SMS sign-in area.
 * @csspart attach-button - Chooses files to attach.
 * @csspart attachments - The files waiting to be sent, above the input; each is an `attachment`.
 * @csspart attachment - A file waiting to be sent (`attachment-preview`, `attachment-name`, `upload-progress`).
 * @csspart remove-attachment - Takes a file out of the message.
 * @csspart attachment-error - Why a file was refused or could not be uploaded.
 * @csspart drop-zone - Shown while files are dragged over the panel.
 * @csspart file - A file an agent made; `file-name`, `download-button` inside.
 * @csspart file-chip - A file the visitor sent.
 * @csspart image-button - An image in the conversation; opens the `lightbox`.
 * @csspart lightbox - The dialog showing an image larger (`lightbox-image`, `lightbox-close`).
 * @csspart read-aloud-button - Reads a reply aloud, pauses and resumes.
 * @csspart delegation - An agent handing a task to another.
 * @csspart thinking - An agent's thoughts (with `show-thinking`).
 * @csspart card - A card; also `payment-card`, `info-card` or `connector-card`.
 *
 * @cssprop --svc-color-primary - Buttons, the launcher and the user's bubbles.
 * @cssprop --svc-color-on-primary - Text on the primary color.
 * @cssprop --svc-color-bg - Background of the panel.
 * @cssprop --svc-color-surface - Background of hovered controls and notices.
 * @cssprop --svc-color-text - Text.
 * @cssprop --svc-color-muted - Secondary text.
 * @cssprop --svc-color-border - Borders.
 * @cssprop --svc-color-danger - Errors and the unread badge.
 * @cssprop --svc-color-link - Links in replies.
 * @cssprop --svc-color-code-bg - Code in replies.
 * @cssprop --svc-color-user-bubble - The user's bubbles.
 * @cssprop --svc-color-on-user-bubble - Text in the user's bubbles.
 * @cssprop --svc-color-agent-bubble - The agents' bubbles.
 * @cssprop --svc-color-focus - Focus rings.
 * @cssprop --svc-font-family - Text font.
 * @cssprop --svc-font-mono - Code font.
 * @cssprop --svc-font-size - Base font size.
 * @cssprop --svc-radius-s - Small corners.
 * @cssprop --svc-radius-m - Bubble corners.
 * @cssprop --svc-radius-l - Panel corners.
 * @cssprop --svc-shadow - Shadow of the launcher and its panel.
 * @cssprop --svc-chat-width - Width of the launcher's panel.
 * @cssprop --svc-chat-height - Height of the launcher's panel.
 * @cssprop --svc-chat-offset - Distance of the launcher from the window's corner.
 * @cssprop --svc-chat-launcher-size - Size of the launcher's button.
 * @cssprop --svc-chat-radius - Corners of the launcher's panel.
 *
 * @fires svc-ready - The chat can be used; `detail: { conversationId }`.
 * @fires svc-signed-in - A visitor signed in by SMS; `detail: { user_id, expires_at }` (never the token).
 * @fires svc-message-sent - The service stored a message; `detail: { conversationId, text, result }`.
 * @fires svc-turn-complete - A reply ended; `detail: { conversationId, text, subtype, error? }`.
 * @fires svc-error - Something failed (also: the service at `base-url` does not answer); `detail: { message, status? }`.
 * @fires svc-open - The launcher's panel opened.
 * @fires svc-close - The launcher's panel closed.
 */
export class SvcChat extends SvcLocalizedElement {
  static override styles = [...styles, messageViewStyles, attachmentsStyles];

  static override properties = {
    baseUrl: { attribute: 'base-url' },
    agentId: { attribute: 'agent-id' },
    agentIds: { attribute: 'agent-ids' },
    conversationId: { attribute: 'conversation-id' },
    workspace: {},
    token: {},
    tokenEndpoint: { attribute: 'token-endpoint' },
    signIn: { attribute: 'sign-in' },
    mode: { reflect: true },
    theme: { reflect: true },
    persist: {},
    persistSession: { attribute: 'persist-session', type: Boolean },
    heading: {},
    imageHosts: { attribute: 'image-hosts' },
    opened: { attribute: 'open', type: Boolean, reflect: true },
    client: { attribute: false },
    tokenProvider: { attribute: false },
    labels: { attribute: false },
    tokens: { attribute: false },
    agents: { attribute: false },
    showThinking: { attribute: 'show-thinking', type: Boolean },
    accept: {},
    _signedOut: { state: true },
    _sessionEnded: { state: true },
    _fatal: { state: true },
    _unread: { state: true },
    _awayFromEnd: { state: true },
    _unreachable: { state: true },
  };

  /** Service address; default: this page's origin. */
  declare baseUrl?: string;
  /** The agent of new conversations. */
  declare agentId?: string;
  /** Several agents of new conversations, space or comma separated (a coordinator dispatches to each). */
  declare agentIds?: string;
  /** Shows this conversation instead of starting a new one. */
  declare conversationId?: string;
  /** Workspace slug, for `sign-in="sms"`. */
  declare workspace?: string;
  /** A session token (never a workspace key). */
  declare token?: string;
  /** URL of the site's backend that answers `POST` with `{ token, expires_at }`. */
  declare tokenEndpoint?: string;
  /** `sms`: visitors sign in with a code sent by SMS. */
  declare signIn?: string;
  mode: ChatMode = 'inline';
  theme: ChatTheme = 'light';
  /**
   * Present: the conversation continues after a page reload (its id is kept in `localStorage`). A value
   * names the slot, so two chats on one site keep separate conversations.
   */
  declare persist?: string;
  /** Also keeps an SMS-signed-in visitor's session token in `sessionStorage` (opt-in). */
  persistSession = false;
  /** The header's title; default: the `title` label. */
  declare heading?: string;
  /**
   * Hosts images in replies may load from besides this page's and the service's, space or comma separated:
   * `host` (any port), `host:port`, or `*` for any host. Images from other hosts show as links.
   */
  declare imageHosts?: string;
  /** The launcher's panel is open. Use `open()` and `close()`. */
  opened = false;
  /** A ready client: its `chat` part is used as it is. */
  declare client?: { chat: ChatClient };
  /** Returns a fresh session token (or `{ token, expires_at }`) from the site's backend. */
  declare tokenProvider?: TokenProvider;
  /** Overrides of any label. */
  declare labels?: Partial<ChatLabels>;
  /** Design tokens applied to this chat (`{ colorPrimary: 'teal' }`). */
  declare tokens?: Partial<PlatformTokens>;
  /** Names and avatars of agents by id, for multi-agent conversations. */
  declare agents?: Record<string, { name: string; avatar?: string }>;
  /** Shows the agents' thinking (collapsed) above their replies. */
  showThinking = false;
  /** Kinds of files visitors may attach, as a file input's `accept` (`image/*,.pdf`); default: any kind. */
  declare accept?: string;

  declare _signedOut: boolean;
  /** The visitor was signed out because their SMS session ended. */
  _sessionEnded = false;
  declare _fatal?: string;
  _unread = 0;
  _awayFromEnd = false;

  /** The service at `base-url` did not answer the last check; undefined: not asked since the chat started. */
  declare _unreachable?: boolean;

  readonly #chat = new ChatController(this);
  readonly #content = new ChatContent(this, {
    labels: () => this.#labels,
    lang: () => this.#lang,
    accept: () => this.accept,
  });
  #smsGrant?: SessionGrant;
  #setup?: unknown[];
  #persisted?: PersistedChat;
  #unsubscribes: (() => void)[] = [];
  #draft = '';
  #stick = true;
  /** Rows grow after they render (a card draws itself, an image loads): the list still follows the end. */
  readonly #grown = new ResizeObserver(() => this.#stick && this.#jumpToEnd());
  #restoreFrom?: { height: number; top: number };
  readonly #announcer = new AnnouncerController(this, () => this.#labels);
  /** Matches while the launcher's panel covers the screen (a phone): it is then modal and keeps the focus. */
  readonly #fullScreen = matchMedia(FULL_SCREEN);

  constructor() {
    super();
    this.#fullScreen.addEventListener('change', () => this.requestUpdate());
    this.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && this.mode === 'launcher' && this.opened) {
        event.stopPropagation();
        this.close();
      }
    });
  }

  get #labels(): ChatLabels {
    return { ...this.language.labels.chat, ...this.labels };
  }

  get #lang(): string {
    return this.language.tag;
  }

  get #store(): ChatStore | undefined {
    return this.#chat.store;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.#start();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#stop();
  }

  protected override firstUpdated(): void {
    // The chat is on screen: fetch the markdown renderer while the page is idle, before a message needs it.
    const preload = () => void loadMarkdownEngine().catch(() => {});
    if (typeof requestIdleCallback === 'function') requestIdleCallback(preload, { timeout: 2000 });
    else setTimeout(preload, 200);
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (this.#currentSetup().some((value, i) => value !== this.#setup?.[i])) this.#start();
    else if (changed.has('conversationId') && this.hasUpdated && this.conversationId) {
      void this.#store?.load(this.conversationId);
    }
    if (changed.has('agentId') || changed.has('agentIds')) {
      if (this.#store) this.#store.targetAgentIds = this.#targetAgentIds();
    }
    if (changed.has('tokens')) {
      for (const [name, value] of Object.entries(tokenStyle(this.tokens ?? {}))) this.style.setProperty(name, value);
    }
  }

  // ------------------------------------------------------------ public methods

  /** Sends a message as the visitor would. */
  async send(text: string): Promise<SendResult | undefined> {
    return this.#store?.send(text);
  }

  /** Stops the running reply. */
  async interrupt(): Promise<void> {
    await this.#store?.interrupt();
  }

  /** Opens the launcher's panel. */
  open(): void {
    if (this.opened) return;
    this.opened = true;
    this._unread = 0;
    this.#stick = true;
    this.emit('svc-open', {});
    this.#askReach();
    this.updateComplete.then(() => this.#input?.focus());
  }

  /** Closes the launcher's panel; focus returns to the launcher. */
  close(): void {
    if (!this.opened) return;
    this.opened = false;
    this.emit('svc-close', {});
    this.updateComplete.then(() => this.renderRoot.querySelector<HTMLElement>('[part~=launcher]')?.focus());
  }

  /** Starts a new conversation. */
  newConversation(): void {
    this.#store?.reset();
    this.#input?.focus();
  }

  // ------------------------------------------------------------ setup

  #targetAgentIds(): string[] | undefined {
    const ids = (this.agentIds ?? this.agentId ?? '').split(/[\s,]+/).filter(Boolean);
    return ids.length ? ids : undefined;
  }

  /**
   * What the client and the store were built from: when any of it changes (also a `tokenProvider` set just
   * after the element connected), the chat starts again with it.
   */
  #currentSetup(): unknown[] {
    return [
      this.baseUrl,
      this.token,
      this.tokenEndpoint,
      this.signIn,
      this.workspace,
      this.persist,
      this.tokenProvider,
      this.client,
    ];
  }

  #stop(): void {
    this._unreachable = undefined;
    for (const off of this.#unsubscribes) off();
    this.#unsubscribes = [];
    this.#chat.detach();
    this.#content.detach();
  }

  /** (Re)builds the client and the store from the current configuration. */
  #start(): void {
    this.#stop();
    this.#setup = this.#currentSetup();
    this._fatal = undefined;
    this._signedOut = false;
    const baseUrl = this.baseUrl || location.origin;
    this.#persisted =
      this.persist !== undefined && this.persist !== null
        ? persistedChat(`${this.persist || baseUrl}|${this.#targetAgentIds()?.join(',') ?? ''}`)
        : undefined;

    let chat = this.client?.chat;
    if (!chat) {
      try {
        chat = createChatClient({ baseUrl, ...this.#credentials() });
      } catch (err) {
        // A workspace key: the client refuses it in a browser, and says why.
        this._fatal = (err as Error).message;
        return;
      }
      if (!chat) {
        this._signedOut = this.signIn === 'sms';
        if (this._signedOut) this.#askReach();
        return;
      }
    }
    this._sessionEnded = false;

    const store = new ChatStore({ api: chat, targetAgentIds: this.#targetAgentIds() });
    this.#unsubscribes = [
      store.on('message-sent', ({ request, result }) => {
        // A message that went through (a retry too) makes the last failure old news: its notice goes, while
        // the failed message keeps its own.
        store.clearError();
        this.emit('svc-message-sent', { conversationId: result.conversationId, text: request.message, result });
      }),
      store.on('turn-complete', (detail) => {
        if (this.mode === 'launcher' && !this.opened) this._unread += 1;
        this.emit('svc-turn-complete', detail);
      }),
      store.on('error', ({ message, status }) => {
        if (status === 401 && this.signIn === 'sms') this.#signOut();
        this.emit('svc-error', { message, status });
      }),
      store.on('conversation-change', ({ conversationId }) => this.#persisted?.save(conversationId)),
    ];
    this.#chat.attach(store);
    this.#content.attach(chat, store);
    const resume = this.conversationId || this.#persisted?.load();
    if (resume) void store.load(resume);
    this.emit('svc-ready', { conversationId: resume ?? null });
    this.#askReach();
  }

  /**
   * Once the chat shows (inline, or the launcher's panel open), asks whether the service at `base-url`
   * answers, so a wrong address is said before the visitor types. A given `client` has no address to ask.
   */
  #askReach(): void {
    if (this._unreachable === undefined && !this.client && (this.mode !== 'launcher' || this.opened)) {
      void this.#checkReach();
    }
  }

  /**
   * Any HTTP answer proves the service is there. `OPTIONS` is what browsers send it before each call anyway
   * (the CORS preflight): no credential, no effect, and no error in the console, which a `GET` without a
   * token would log. The visitor reads a plain sentence; the site's developer reads the address in the
   * `svc-error` event and in the browser's own console line about the refused request.
   */
  async #checkReach(): Promise<void> {
    const setup = this.#setup;
    const url = this.baseUrl || location.origin;
    const answered = await fetch(`${url}/api/v2/`, { method: 'OPTIONS' }).then(
      () => true,
      () => false,
    );
    // The chat started again meanwhile, with another setup: this answer is about the old one.
    if (setup !== this.#setup) return;
    this._unreachable = !answered;
    if (!answered) this.emit('svc-error', { message: `no answer from ${url}` });
  }

  /** The credential, most preferred first: a provider, an endpoint, a token, then an SMS session. */
  /** Where images may come from besides this page: the service (which serves uploads), and `image-hosts`. */
  #imageHosts(): string[] {
    const service = safeUrl(this.client?.chat.http.baseUrl ?? (this.baseUrl || location.origin))?.host ?? '';
    return [service, ...hostList(this.imageHosts)];
  }

  #credentials(): Omit<ChatClientOptions, 'baseUrl'> {
    const { token, tokenProvider, tokenEndpoint } = this;
    if (tokenProvider || tokenEndpoint || token || this.signIn !== 'sms')
      return { token, tokenProvider, tokenEndpoint };
    const grant = this.#smsGrant ?? (this.persistSession ? readSession(this.#sessionKey) : undefined);
    if (!grant) return {};
    // An SMS session cannot be renewed silently: when it ends (or the service refuses it), the request core
    // reports this 401 and the visitor signs in again.
    let handed = false;
    return {
      tokenProvider: async () => {
        if (handed) throw new AuthenticationError(401, this.#labels.sessionExpired, undefined);
        handed = true;
        return grant;
      },
    };
  }

  get #sessionKey(): string {
    return `svc-chat-session:${this.baseUrl || location.origin}|${this.workspace ?? ''}`;
  }

  #signedIn(event: CustomEvent<SignedIn>): void {
    // The page hears who signed in, never the token itself.
    event.stopPropagation();
    const { token, user_id, expires_at } = event.detail;
    if (!token) return;
    this.#smsGrant = { token, expires_at };
    this.emit('svc-signed-in', { user_id, expires_at });
    if (this.persistSession) sessionStorage.setItem(this.#sessionKey, JSON.stringify(this.#smsGrant));
    this.#start();
  }

  #signOut(): void {
    this.#smsGrant = undefined;
    sessionStorage.removeItem(this.#sessionKey);
    this.#stop();
    this._signedOut = true;
    this._sessionEnded = true;
  }

  // ------------------------------------------------------------ scrolling and history

  get #list(): HTMLElement | null {
    return this.renderRoot.querySelector('[part~=messages]');
  }

  get #input(): HTMLTextAreaElement | null {
    return this.renderRoot.querySelector('[part~=input]');
  }

  #onScroll(): void {
    const list = this.#list;
    if (!list) return;
    this.#stick = list.scrollHeight - list.scrollTop - list.clientHeight < STICK_PX;
    if (this.#stick) this._awayFromEnd = false;
    this.#loadOlderNearTop(list);
  }

  /** Near the top of what is loaded, older messages are fetched and put above, keeping the view in place. */
  #loadOlderNearTop(list: HTMLElement): void {
    const store = this.#store;
    if (list.scrollTop > HISTORY_PX || !store?.hasMoreHistory || store.loadingHistory || this.#restoreFrom) return;
    this.#restoreFrom = { height: list.scrollHeight, top: list.scrollTop };
    void store.loadOlder();
  }

  #jumpToEnd(): void {
    const list = this.#list;
    this.#stick = true;
    this._awayFromEnd = false;
    list?.scrollTo({ top: list.scrollHeight });
  }

  protected override updated(): void {
    const list = this.#list;
    if (!list) return;
    if (this.#restoreFrom && !this.#store?.loadingHistory) {
      list.scrollTop = this.#restoreFrom.top + (list.scrollHeight - this.#restoreFrom.height);
      this.#restoreFrom = undefined;
    } else if (this.#stick) {
      list.scrollTop = list.scrollHeight;
    } else if (this.#store?.running) {
      this._awayFromEnd = true;
    }
    this.#grown.disconnect();
    for (const row of list.children) this.#grown.observe(row);
    // A page of history that does not fill the list cannot be scrolled up: fetch the next one.
    if (list.scrollHeight <= list.clientHeight) this.#loadOlderNearTop(list);
  }

  // ------------------------------------------------------------ composer

  #submit(event?: Event): void {
    event?.preventDefault();
    const input = this.#input;
    const text = (input?.value ?? '').trim();
    const store = this.#store;
    const attachments = this.#content.attachments;
    const parts = attachments.parts;
    if (!store || store.running) return;
    if (attachments.uploading) {
      attachments.notice = this.#labels.waitForUploads;
      this.requestUpdate();
      return;
    }
    if (!text && !parts.length) return;
    this.#draft = '';
    if (input) input.value = '';
    this.#stick = true;
    attachments.clear();
    void store.send(text, parts.length ? { parts } : {});
  }

  #onKeydown(event: KeyboardEvent): void {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) this.#submit(event);
  }

  // ------------------------------------------------------------ rendering

  protected override render(): TemplateResult {
    const labels = this.#labels;
    if (this.mode !== 'launcher') return this.#renderPanel(labels);
    return html`
      ${this.opened ? this.#renderPanel(labels) : nothing}
      <button
        part="launcher"
        type="button"
        dir=${this.language.dir}
        aria-label=${this.opened ? labels.close : this._unread > 0 ? labels.openUnread(this._unread) : labels.open}
        aria-expanded=${this.opened ? 'true' : 'false'}
        @click=${() => (this.opened ? this.close() : this.open())}
      >
        ${this.opened ? icons.close : icons.chat}
        ${this._unread > 0 && !this.opened ? html`<span part="badge" aria-hidden="true">${this._unread}</span>` : nothing}
      </button>
    `;
  }

  #renderPanel(labels: ChatLabels): TemplateResult {
    const launcher = this.mode === 'launcher';
    const title = this.heading || labels.title;
    return html`
      <section
        part="panel"
        dir=${this.language.dir}
        role=${launcher ? 'dialog' : 'region'}
        aria-modal=${launcher && this.#fullScreen.matches ? 'true' : nothing}
        aria-label=${title}
        @keydown=${launcher ? (e: KeyboardEvent) => this.#fullScreen.matches && trapTab(e, e.currentTarget as Element) : nothing}
        @dragover=${this.#store ? this.#content.attachments.onDragOver : nothing}
        @dragleave=${this.#store ? this.#content.attachments.onDragLeave : nothing}
        @drop=${this.#store ? this.#content.attachments.onDrop : nothing}
        @paste=${this.#store ? this.#content.attachments.onPaste : nothing}
      >
        <header part="header">
          <h2 part="title">${title}</h2>
          <slot name="header-actions"></slot>
          ${
            this.#store
              ? html`<button class="icon-button" part="new-button" type="button" title=${labels.newConversation}
                aria-label=${labels.newConversation} @click=${() => this.newConversation()}>${icons.plus}</button>`
              : nothing
          }
          ${
            launcher
              ? html`<button class="icon-button" part="close-button" type="button" title=${labels.close}
                aria-label=${labels.close} @click=${() => this.close()}>${icons.close}</button>`
              : nothing
          }
        </header>
        ${this.#renderBody(labels)}
      </section>
    `;
  }

  #renderBody(labels: ChatLabels): TemplateResult {
    if (this._fatal) return html`<div part="notice" class="error" role="alert">${this._fatal}</div>`;
    const unreachable = this._unreachable
      ? html`<div part="notice" class="error" role="alert">
          ${labels.networkError}
          <button part="retry-button" type="button" @click=${() => void this.#checkReach()}>${labels.retry}</button>
        </div>`
      : nothing;
    if (this._signedOut) {
      const ended = this._sessionEnded ? html`<div part="notice" role="alert">${labels.sessionExpired}</div>` : nothing;
      return html`${unreachable}${ended}
      <div part="sign-in">
        <svc-sms-sign-in
          base-url=${this.baseUrl || location.origin}
          workspace=${this.workspace ?? ''}
          lang=${this.#lang}
          dir=${this.language.dir}
          .labels=${this.labels}
          @svc-signed-in=${(e: CustomEvent<SignedIn>) => this.#signedIn(e)}
        ></svc-sms-sign-in>
      </div>`;
    }
    const store = this.#store;
    if (!store)
      return html`<div part="notice">${this.tokenEndpoint || this.tokenProvider ? labels.connecting : labels.signInRequired}</div>`;
    const messages = store.messages;
    const view: ViewContext = {
      labels,
      agents: this.agents,
      imageHosts: this.#imageHosts(),
      retry: (id) => void store.retry(id),
      lang: this.#lang,
      dir: this.language.dir,
      showThinking: this.showThinking,
      continued: continuedRuns(messages),
      ...this.#content.view,
      readAloudStop: this.#content.view.readAloud.tabStop(messages),
    };
    const status = this.#statusText(labels, store);
    // One button sends and, while a reply runs, stops it: the same element, so it keeps the focus.
    const running = store.running;
    return html`
      ${unreachable}
      ${store.connection === 'reconnecting' ? html`<div part="notice" role="status">${labels.reconnecting}</div>` : nothing}
      ${store.error ? html`<div part="notice" class="error" role="alert">${store.error}</div>` : nothing}
      <div
        part="messages"
        role="log"
        aria-live="off"
        aria-label=${labels.messageList}
        tabindex="0"
        @scroll=${() => this.#onScroll()}
      >
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
        this._awayFromEnd
          ? html`<button part="jump-button" type="button" aria-label=${labels.jumpToEnd} title=${labels.jumpToEnd}
            @click=${() => this.#jumpToEnd()}>↓</button>`
          : nothing
      }
      <div part="status" aria-live="polite">${status}</div>
      ${this.#announcer.render()}
      ${renderAttachments(this.#content.attachments, labels, this.#lang)}
      <form part="composer" @submit=${(e: Event) => this.#submit(e)}>
        ${renderAttachButton(this.#content.attachments, labels, this.accept)}
        <textarea
          part="input"
          rows="1"
          aria-label=${labels.placeholder}
          placeholder=${labels.placeholder}
          .value=${this.#draft}
          @input=${(e: Event) => {
            this.#draft = (e.target as HTMLTextAreaElement).value;
          }}
          @keydown=${(e: KeyboardEvent) => this.#onKeydown(e)}
        ></textarea>
        <button
          part=${running ? 'stop-button' : 'send-button'}
          type=${running ? 'button' : 'submit'}
          aria-label=${running ? labels.stop : labels.send}
          title=${running ? labels.stop : labels.send}
          @click=${() => store.running && void store.interrupt()}
        >
          ${running ? icons.stop : icons.send}
        </button>
      </form>
      ${renderDropZone(this.#content.attachments, labels)} ${this.#content.renderOverlays(labels)}
    `;
  }

  #statusText(labels: ChatLabels, store: ChatStore): string {
    for (const [agentId, status] of Object.entries(store.agentStatus)) {
      if (status === 'idle') continue;
      const name = this.agents?.[agentId]?.name ?? labels.agent;
      const what = status === 'thinking' ? labels.thinking : status === 'typing' ? labels.typing : labels.usingTool;
      return `${name} · ${what}`;
    }
    return '';
  }
}

/** Agent messages that directly follow a message of the same agent: one avatar and name per run. */
function continuedRuns(messages: readonly ChatMessage[]): Set<string> {
  const continued = new Set<string>();
  for (let i = 1; i < messages.length; i++) {
    const [previous, message] = [messages[i - 1]!, messages[i]!];
    if (message.role === 'agent' && previous.role === 'agent' && previous.agentId === message.agentId) {
      continued.add(message.key);
    }
  }
  return continued;
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

SvcChat.define('svc-chat');

declare global {
  interface HTMLElementTagNameMap {
    'svc-chat': SvcChat;
  }
  interface GlobalEventHandlersEventMap {
    'svc-ready': CustomEvent<{ conversationId: string | null }>;
    'svc-message-sent': CustomEvent<{ conversationId: string; text: string; result: SendResult }>;
    'svc-turn-complete': CustomEvent<{
      conversationId: string;
      turnId?: string;
      subtype: string;
      text: string;
      error?: string;
    }>;
    'svc-error': CustomEvent<{ message: string; status?: number }>;
    'svc-open': CustomEvent<Record<string, never>>;
    'svc-close': CustomEvent<Record<string, never>>;
  }
}
