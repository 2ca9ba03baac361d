import { html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import type { ChatStore } from '../../chat/chat-store.js';
import type { ChatClientOptions } from '../../chat/create-chat-client.js';
import type { ChatClient } from '../../client/chat.js';
import { trapTab } from '../../internal/focus-trap.js';
import { localize } from '../../internal/localize.js';
import { hostList, safeUrl } from '../../internal/safe-url.js';
import { lockPageScroll } from '../../internal/scroll-lock.js';
import { SvcLocalizedElement } from '../../internal/svc-localized-element.js';
import { type VirtualListOptions, virtualList } from '../../internal/virtual-list.js';
import { whenIdle } from '../../internal/when-idle.js';
import type { ChatLabels } from '../../labels/label-types.js';
import type { SendResult } from '../../protocol/conversation-types.js';
import { ConversationListController } from '../conversation-list/conversation-list.js';
import listStyles from '../conversation-list/conversation-list.styles.js';
import { agentStatusLine, continuedRuns, renderMessage, type ViewContext } from '../message-view/message-view.js';
import messageViewStyles from '../message-view/message-view.styles.js';
import { ChatSettingsMixin, targetAgentIds } from '../svc-chat/chat-settings.js';
import { loadMarkdownEngine } from '../svc-markdown/engine.js';
import { AnnouncerController } from './announcer.js';
import { renderDropZone } from './attachments.js';
import attachmentsStyles from './attachments.styles.js';
import { ChatConnection } from './chat-connection.js';
import { Composer } from './composer.js';
import { PANEL_EXPORTS } from './exported-parts.js';
import { PageToolsController } from './page-tools-controller.js';
import { renderHeader } from './panel-header.js';
import { PersonHandoffController, personHandoffStyles } from './person-handoff.js';
import { ReplyActionsController } from './reply-actions.js';
import { RichContent } from './rich-content.js';
import { ScrollFollowController } from './scroll-follow.js';
import { SmsSession } from './sms-session.js';
import { StarterPromptsController } from './starter-prompts.js';
import styles, { phoneStyles } from './svc-chat-panel.styles.js';
import tooltipStyles from './tooltips.styles.js';
import '../svc-sms-sign-in/svc-sms-sign-in.js';

/**
 * The panel of `<svc-chat>`: its header, the conversation and the composer, in a module loaded after the
 * launcher (`load-panel.ts`), which brings Lit. The launcher creates it once that module has arrived, hands it
 * the chat's settings (`ChatSettingsMixin`, which both declare) and hears its events. It connects to the
 * service (`ChatConnection`, which also provides the cards their context), signs visitors in by SMS, follows
 * the end of the conversation, and holds the composer, the rich content and what screen readers hear.
 * Internal: a page meets it only through `<svc-chat>`, which exports its parts.
 *
 * @fires svc-panel-close - The close button was pressed (not composed: only the launcher hears it).
 */
export class SvcChatPanel extends ChatSettingsMixin(SvcLocalizedElement) {
  static override styles = [
    ...styles,
    messageViewStyles,
    attachmentsStyles,
    listStyles,
    tooltipStyles,
    personHandoffStyles,
    phoneStyles,
  ];

  static override properties = {
    shown: { type: Boolean },
    modal: { type: Boolean },
  };

  /** The chat shows: inline, or the launcher's panel open. */
  shown = false;
  /** The launcher's panel covers the screen (a phone): a modal dialog that keeps the focus. */
  modal = false;
  /** The text in the composer (the launcher hands over what the visitor typed while this loaded). */
  composerText = '';
  /** The visitor sent a message before the panel was there: it goes once the conversation is. */
  sendOnConnect = false;

  protected readonly language = localize(this);
  /**
   * The page gave the `empty` slot content. The chat forwards its slot into this one, which then always has that
   * slot assigned, so this slot's own fallback would never show: the label shows beside an empty slot instead.
   */
  #pageEmpty = false;
  readonly #sms = new SmsSession(this);
  readonly #content = new RichContent(this);
  readonly #connection = new ChatConnection(this);
  readonly #scroll = new ScrollFollowController(this);
  readonly #announcer = new AnnouncerController(this);
  readonly #actions = new ReplyActionsController(this);
  readonly #prompts = new StarterPromptsController(this);
  readonly #pageTools = new PageToolsController(this);
  readonly #person = new PersonHandoffController(this);
  #chat?: ChatClient;
  readonly #list = new ConversationListController(this);
  readonly #composer = new Composer(this, this.#content.attachments, () => this.#scroll.follow());
  /** The conversation's rows render from its end while the chat follows it, and keep their place as they change. */
  readonly #rowsOptions: VirtualListOptions = {
    followsEnd: () => this.#scroll.following,
    rendered: this.#scroll.rowsChanged,
  };

  constructor() {
    super();
    // Files dragged over, dropped on or pasted into the panel are attached; Tab stays in a modal panel.
    const drop = () => (this.store ? this.#content.attachments : undefined);
    this.addEventListener('dragover', (e) => drop()?.onDragOver(e));
    this.addEventListener('dragleave', (e) => drop()?.onDragLeave(e));
    this.addEventListener('drop', (e) => drop()?.onDrop(e));
    this.addEventListener('paste', (e) => drop()?.onPaste(e));
    this.addEventListener('keydown', (e) => this.modal && trapTab(e, this));
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.setAttribute('exportparts', PANEL_EXPORTS);
    // The chat is on the page: fetch the markdown renderer while it is idle, before a message needs it.
    whenIdle(() => void loadMarkdownEngine().catch(() => {}), 2000);
  }

  /** Every label of the chat's language, with the page's overrides. */
  get chatLabels(): ChatLabels {
    return { ...this.language.labels.chat, ...this.labels };
  }

  get languageTag(): string {
    return this.language.tag;
  }

  /** The service's address: `base-url`, else the page's origin. */
  get serviceUrl(): string {
    return this.baseUrl || location.origin;
  }

  /** The conversation's store, while the chat is connected. */
  get store(): ChatStore | undefined {
    return this.#connection.store;
  }

  // What the connection asks of the panel (`ConnectionHost`).
  signedInVisitor(): Omit<ChatClientOptions, 'baseUrl'> {
    return this.#sms.credentials();
  }

  connectionChanged(connection: { chat: ChatClient; store: ChatStore } | undefined): void {
    this.#chat = connection?.chat;
    if (connection) this.#content.attach(connection.chat, connection.store);
    else this.#content.detach();
    this.#list.attach(connection?.chat);
  }

  unauthorized(): void {
    if (this.signIn !== 'sms') return;
    this.#connection.stop();
    this.#sms.signOut();
  }

  /** Sends a message as the visitor would, and shows it as the composer does. */
  send(text: string): Promise<SendResult | undefined> {
    this.#scroll.follow();
    return this.store?.send(text) ?? Promise.resolve(undefined);
  }

  async interrupt(): Promise<void> {
    await this.store?.interrupt();
  }

  /** Asks the last message again: a new reply in place of the last one. */
  regenerate(): Promise<SendResult | undefined> {
    this.#scroll.follow();
    return this.store?.regenerate() ?? Promise.resolve(undefined);
  }

  /** Replaces the visitor's last message with `text` and asks it again. */
  editLastMessage(text: string): Promise<SendResult | undefined> {
    this.#scroll.follow();
    return this.store?.editLast(text) ?? Promise.resolve(undefined);
  }

  /** Starts a new conversation with the next message, keeping the way back to the one shown. */
  newConversation(): void {
    this.#list.toggle(false);
    this.#connection.newConversation();
    this.focusInput();
  }

  // What the conversation list asks of the panel (`ListHost`).
  openConversation(conversationId: string): void {
    this.#list.toggle(false);
    this.#scroll.follow();
    this.#connection.open(conversationId);
    this.focusInput();
  }

  conversationDeleted(conversationId: string): void {
    this.#connection.forget(conversationId);
  }

  /** Puts the focus in the composer's field, once it is rendered. */
  focusInput(): void {
    this.#composer.focus();
  }

  readonly #emptySlotChanged = (event: Event): void => {
    const filled = (event.target as HTMLSlotElement).assignedNodes({ flatten: true }).length > 0;
    if (filled === this.#pageEmpty) return;
    this.#pageEmpty = filled;
    this.requestUpdate();
  };

  /** The hosts images may load from, and what they were made from: the panel renders at every streamed delta. */
  #hosts = { from: '', list: [] as string[] };

  /** Where images may come from besides this page: the service (which serves uploads), and `image-hosts`. */
  #imageHosts(): string[] {
    const base = this.client?.chat.http.baseUrl ?? this.serviceUrl;
    const from = `${base} ${this.imageHosts ?? ''}`;
    if (from !== this.#hosts.from) {
      this.#hosts = { from, list: [safeUrl(base)?.host ?? '', ...hostList(this.imageHosts)] };
    }
    return this.#hosts.list;
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    lockPageScroll(this.ownerDocument, false);
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    // The first agent's starter prompts, for the empty conversation.
    this.#prompts.follow(this.#chat, targetAgentIds(this)?.[0]);
    // A panel that covers the screen (a phone) keeps the page behind it still, and where it was.
    if (changed.has('shown') || changed.has('modal')) lockPageScroll(this.ownerDocument, this.shown && this.modal);
    // Shown again: it shows the end of the conversation, and says at once if the service cannot be reached.
    if (changed.has('shown') && this.shown) {
      this.#scroll.follow();
      this.#connection.reachability.checkOnce();
    }
  }

  /**
   * The store's last error as the visitor reads it: one plain sentence in their language (the detail went to
   * `svc-error` and the console), with a Retry unless a message carries its own: a message not sent, a reply
   * that failed (which says so itself). Said once: not again beside the notice that the service is unreachable.
   */
  #errorNotice(store: ChatStore, labels: ChatLabels): TemplateResult | typeof nothing {
    const connection = this.#connection;
    const status = connection.failure?.status;
    if (!store.error || connection.failure?.reply || (status === undefined && connection.reachability.unreachable))
      return nothing;
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

  /** Sends a starter prompt or a suggested reply, as the visitor's message; the chat follows the reply. */
  readonly #sendPrompt = (prompt: string): void => {
    this.#scroll.follow();
    void this.store?.send(prompt);
  };

  /** The header, with the buttons of a conversation while there is one, and the launcher's close button. */
  #renderHeader(labels: ChatLabels): TemplateResult {
    const connection = this.#connection;
    const list = this.#list;
    const back = (): void => {
      this.#scroll.follow();
      connection.backToPrevious();
      this.requestUpdate();
    };
    return renderHeader(
      {
        title: this.heading || labels.title,
        badge: this.#person.badge(labels),
        conversation: !!this.store,
        previous: connection.previous ? back : undefined,
        listShown: list.shown,
        toggleList: () => {
          list.toggle();
          if (!list.shown) this.focusInput();
        },
        newConversation: () => this.newConversation(),
        close: this.mode === 'launcher' ? () => this.emit('svc-panel-close', {}, { composed: false }) : undefined,
      },
      labels,
    );
  }

  /**
   * What the message view needs of the chat: its labels and language, the controllers of rich content and of
   * the replies' actions, and which messages can be retried, regenerated, edited or carry suggestions.
   */
  #view(store: ChatStore, labels: ChatLabels): ViewContext {
    const { messages } = store;
    const newest = messages.at(-1);
    const content = this.#content;
    // Regenerate and edit act on the last turn, once nothing runs: its reply, and the visitor's message.
    const acting = store.canActOnReplies && !store.running;
    const lastUser = messages.findLast((m) => m.role === 'user');
    const lastReply = newest?.role === 'agent' && lastUser ? newest : undefined;
    return {
      labels,
      agents: this.agents,
      imageHosts: this.#imageHosts(),
      // A message in the outbox goes with those before it, in order.
      retry: (id) => void (store.outbox.ids.includes(id) ? store.outbox.send() : store.retry(id)),
      waiting: store.outbox.ids,
      // A failed reply's Retry runs its turn again in place, as regenerate does (its question is not sent twice).
      failedReply: store.canActOnReplies && newest && newest.role !== 'user' && newest.error ? newest.key : undefined,
      retryReply: () => void this.regenerate(),
      lang: this.language.tag,
      dir: this.language.dir,
      showThinking: this.showThinking,
      continued: continuedRuns(messages),
      ...content.view,
      readAloudStop: content.view.readAloud.tabStop(messages),
      actions: this.#actions,
      feedback: store.canActOnReplies ? store.feedback : undefined,
      regenerable: acting && lastReply && !lastReply.error ? lastReply.key : undefined,
      editable:
        acting && lastUser?.status === 'sent' && !lastUser.parts.length && lastUser.text ? lastUser.key : undefined,
      suggesting: store.suggestions.length ? newest?.key : undefined,
      suggest: this.#sendPrompt,
      pageToolCall: (block) => this.#pageTools.row(block),
    };
  }

  #renderConversation(labels: ChatLabels): TemplateResult {
    const connection = this.#connection;
    if (connection.fatal) return html`<div part="notice" class="error" role="alert">${connection.fatal}</div>`;
    const { unreachable: notReached } = connection.reachability;
    const unreachable = notReached ? notReachedNotice(labels, () => void connection.reachability.check()) : nothing;
    const store = this.store;
    if (!store && this.signIn === 'sms') {
      return html`${unreachable}${this.#sms.render(labels, this.language, () => this.#connection.start())}`;
    }
    if (!store) {
      return html`<div part="notice">${this.tokenEndpoint || this.tokenProvider ? labels.connecting : labels.signInRequired}</div>`;
    }
    if (this.#list.shown) {
      return html`${unreachable}${this.#list.render(labels, this.language.tag, store.conversationId, store.running)}`;
    }
    const { messages } = store;
    const view = this.#view(store, labels);
    const content = this.#content;
    // A stream that reconnects for long is said as a service not reached at start is (once), and Retry reads again.
    const reconnecting =
      store.connection !== 'reconnecting'
        ? nothing
        : connection.stream.stalled && !notReached
          ? notReachedNotice(labels, () => store.conversationId && void store.load(store.conversationId))
          : html`<div part="notice" role="status">${labels.reconnecting}</div>`;
    return html`
      ${unreachable} ${reconnecting}
      ${this.#errorNotice(store, labels)}
      <div part="messages" role="log" aria-live="off" aria-label=${labels.messageList} tabindex="0"
        aria-busy=${store.running ? 'true' : 'false'}
        @scroll=${this.#scroll.onScroll}>
        ${store.loadingHistory ? html`<div class="history-note" role="status">${labels.loadingOlder}</div>` : nothing}
        ${
          messages.length === 0 && !store.loadingHistory
            ? html`<div part="empty"><slot name="empty" @slotchange=${this.#emptySlotChanged}></slot>${
                this.#pageEmpty ? nothing : labels.empty
              }${this.#prompts.render(this.#sendPrompt, labels.starterPrompts)}</div>`
            : virtualList(
                messages,
                (m) => m.key,
                (m) => renderMessage(m, view),
                this.#rowsOptions,
              )
        }
      </div>
      ${
        this.#scroll.awayFromEnd
          ? html`<button part="jump-button" type="button" aria-label=${labels.jumpToEnd}
            @click=${this.#scroll.jumpToEnd}>↓</button>`
          : nothing
      }
      <div part="status" aria-live="polite">${agentStatusLine(store.agentStatus, store.agentNames, view)}</div>
      ${this.#person.render(store, labels)}
      ${this.#announcer.render()}
      ${this.#composer.render(store, labels)}
      ${renderDropZone(content.attachments, labels)} ${content.renderOverlays(labels)}
    `;
  }

  /** The panel while the chat shows (the launcher's, closed, keeps its connection but draws nothing). */
  protected override render(): TemplateResult | typeof nothing {
    if (!this.shown) return nothing;
    const labels = this.chatLabels;
    const launcher = this.mode === 'launcher';
    return html`<section part="panel" dir=${this.language.dir} role=${launcher ? 'dialog' : 'region'}
      aria-modal=${this.modal ? 'true' : nothing} aria-label=${this.heading || labels.title}>
      ${this.#renderHeader(labels)} ${this.#renderConversation(labels)}
    </section>`;
  }
}

/** The sentence that the service is not reached, with a Retry that does `retry`. */
function notReachedNotice(labels: ChatLabels, retry: () => void): TemplateResult {
  return html`<div part="notice" class="error" role="alert">
    ${labels.networkError} <button part="retry-button" type="button" @click=${retry}>${labels.retry}</button>
  </div>`;
}

SvcChatPanel.define('svc-chat-panel');

declare global {
  interface HTMLElementTagNameMap {
    'svc-chat-panel': SvcChatPanel;
  }
  interface GlobalEventHandlersEventMap {
    'svc-panel-close': CustomEvent<Record<string, never>>;
  }
}
