import { h, iconNode, setAttributes } from '../../internal/dom.js';
import { CHAT_PATH, CLOSE_PATH } from '../../internal/icon-paths.js';
import { LanguageController } from '../../internal/language.js';
import { type PlainProperty, SvcPlainElement } from '../../internal/svc-plain-element.js';
import { EN_LAUNCHER_LABELS, type LauncherLabels } from '../../labels/launcher.js';
import type { ClientToolAnswer, Feedback, SendResult } from '../../protocol/conversation-types.js';
import { type PlatformTokens, tokenStyle } from '../../theme/tokens.js';
import type { ToolCallDetail } from '../svc-chat-panel/page-tools-controller.js';
import type { SvcChatPanel } from '../svc-chat-panel/svc-chat-panel.js';
import { loadMarkdownEngine } from '../svc-markdown/engine.js';
import { ChatSettingsMixin, handOverSettings, persistedConversation } from './chat-settings.js';
import { fastConnection, loadPanel } from './load-panel.js';
import { LoadingState } from './loading-state.js';
import { FULL_SCREEN } from './panel-frame.styles.js';
import styles from './svc-chat.styles.js';

export type { ChatMode } from './chat-settings.js';
export type ChatTheme = SvcChat['theme'];

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
 * @slot sms-challenge - With `sign-in="sms"`: the site's CAPTCHA, shown while the service asks for it before
 * sending a code (answer it on `svc-sms-challenge`).
 *
 * @csspart launcher - The floating button of `mode="launcher"`.
 * @csspart badge - The unread count on the launcher.
 * @csspart panel - The chat window.
 * @csspart header - The top bar; `title` is its heading.
 * @csspart title - The heading.
 * @csspart new-button - Starts a new conversation.
 * @csspart previous-button - Goes back to the conversation before the new one (kept, with `persist` across reloads).
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
 * @csspart outbox-note - Above the composer while messages wait for the service: it sends them by itself.
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
 * @csspart message-actions - The actions under a finished reply, or beside the visitor's last message.
 * @csspart copy-button - Copies a reply as text; `copy-markdown-button` as the markdown the agent wrote.
 * @csspart copy-markdown-button - Copies a reply as markdown.
 * @csspart feedback-up-button - 👍 on a reply (`aria-pressed` when given); `feedback-down-button` is 👎.
 * @csspart feedback-down-button - 👎 on a reply.
 * @csspart feedback-form - The optional reason after 👍/👎: `feedback-reason`, `feedback-send-button`.
 * @csspart feedback-reason - The reason's field.
 * @csspart feedback-send-button - Sends the reason.
 * @csspart feedback-thanks - The thank-you once a reason was sent.
 * @csspart regenerate-button - Asks the last message again: a new reply in place of the last one.
 * @csspart edit-button - Edits the visitor's last message.
 * @csspart edit-form - The message being edited: `edit-input`, `edit-send-button`, `edit-cancel-button`.
 * @csspart edit-input - The edited message's field.
 * @csspart edit-send-button - Sends the edited message in place of the last one.
 * @csspart edit-cancel-button - Leaves the message as it was.
 * @csspart starter-prompts - The agent's starter prompts in the empty conversation; each a `starter-prompt`.
 * @csspart starter-prompt - A starter prompt: sent as the visitor's message when pressed.
 * @csspart suggestions - The replies the last finished reply suggests, under it; each a `suggestion`.
 * @csspart suggestion - A suggested reply: sent as the visitor's message when pressed.
 * @csspart delegation - An agent handing a task to another.
 * @csspart thinking - An agent's thoughts (with `show-thinking`).
 * @csspart card - A card; also `payment-card`, `info-card` or `connector-card`.
 * @csspart card-base - A card's box; its other parts are those of the card alone, with `card-` before the name.
 * @csspart card-title - A card's title.
 * @csspart card-description - A card's description.
 * @csspart card-amount - A payment card's amount.
 * @csspart card-status - A card's status line (paid, sent, skipped, connected…).
 * @csspart card-countdown - The time left to pay.
 * @csspart card-actions - A card's buttons.
 * @csspart card-button - A card's main button (Pay, Send, Connect).
 * @csspart card-secondary-button - A form card's Skip.
 * @csspart card-server - Which server asks for a connector's credentials.
 * @csspart card-field - A field of a card's form: `card-label`, `card-input`, `card-field-error`.
 * @csspart card-label - A field's label.
 * @csspart card-input - A field's input, select or text area.
 * @csspart card-toggle - Shows or hides a secret field's value.
 * @csspart card-field-error - Why a field's value is refused.
 * @csspart card-error - Why a card's form or payment failed.
 * @csspart card-summary - The values a form card sent.
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
 * @cssprop --svc-chat-header-icon-color - Colour of the header's buttons (default: the header's colour).
 *
 * @fires svc-ready - The chat can be used; `detail: { conversationId }`.
 * @fires svc-signed-in - A visitor signed in by SMS; `detail: { user_id, expires_at }` (never the token).
 * @fires svc-message-sent - The service stored a message; `detail: { conversationId, text, result }`.
 * @fires svc-turn-complete - A reply ended, and the chat shows it; `detail: { conversationId, text, subtype, error? }`.
 * @fires svc-feedback - The visitor rated a reply 👍/👎 (and maybe said why), and the service stored it; `detail: { conversationId, messageId, agentId, rating, reason, created_at, updated_at }`.
 * @fires svc-error - Something failed (also: the service at `base-url` does not answer); `detail: { message, status? }`.
 * @fires svc-tool-call - The agent called one of the page's `tools`; `detail: { name, input, toolUseId, respond }`. Cancel it (`preventDefault()`) to answer with `respond(value)` or `respond({ error })` instead of the tool's handler.
 * @fires svc-tool-result - A call of one of the page's `tools` was answered; `detail: { name, toolUseId, output }` or `{ name, toolUseId, error }`.
 * @fires svc-open - The launcher's panel opened.
 * @fires svc-close - The launcher's panel closed.
 */
export class SvcChat extends ChatSettingsMixin(SvcPlainElement) {
  static override styles = styles;
  static override properties: Record<string, PlainProperty> = {
    theme: { reflect: true },
    opened: { attribute: 'open', type: Boolean, reflect: true },
    tokens: { attribute: false },
    _unread: { state: true },
    _failed: { state: true },
  };

  /** `auto` follows the system. */
  theme: 'light' | 'dark' | 'auto' = 'light';
  /** The launcher's panel is open (use `open()` and `close()`). */
  opened = false;
  /** Design tokens for this chat, e.g. `{ colorPrimary: 'teal' }`. */
  declare tokens?: Partial<PlatformTokens>;

  /** Unread replies, shown on the launcher while its panel is closed. */
  _unread = 0;
  /** The panel's file did not load. */
  _failed = false;

  /** The launcher's labels; the panel has every label. */
  protected readonly language = new LanguageController<LauncherLabels>(this, EN_LAUNCHER_LABELS, (l) => l.chat);
  /** Everything but the launcher, once its module has arrived (`load-panel.ts`): `<svc-chat-panel>`. */
  #panel?: SvcChatPanel;
  #loading?: Promise<SvcChatPanel | undefined>;
  /** Stands in the panel's place until it has arrived; made when first shown, not for a closed launcher. */
  #loadingState?: LoadingState;
  #launcher?: HTMLButtonElement;
  /** What the launcher shows (its icon and badge), to draw them again only when it changes. */
  #launcherShows?: string;
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
    // A reply that ends while the launcher's panel is closed is unread (the panel's event, heard here).
    this.addEventListener('svc-turn-complete', () => {
      if (this.mode === 'launcher' && !this.opened) this._unread += 1;
    });
  }

  get #labels(): LauncherLabels {
    return { ...this.language.labels, ...this.labels };
  }

  override connectedCallback(): void {
    super.connectedCallback();
    // Inline, the chat shows at once; with a conversation to resume, its replies stream in while closed.
    if (this.mode !== 'launcher' || this.conversationId || persistedConversation(this)?.load()) void this.#load();
    // A closed launcher: on a fast connection the panel and then the markdown engine load once it has painted, so
    // that a click finds them there; on a slow one (or with data saving) at the visitor's first sign of
    // intent, the launcher's pointer-over, pointer-down, touch or focus, or when the page is idle (the
    // entries' rule, for cards alone on a page), whichever comes first (docs/performance.md, start-up).
    else if (fastConnection()) requestAnimationFrame(() => setTimeout(this.#warm));
    // Open before a reload: open again.
    if (this.mode === 'launcher' && persistedConversation(this, 'open')?.load()) this.open();
  }

  /**
   * Starts loading the panel, then the markdown engine: side by side they share a slow connection, and the
   * panel, which a click waits for, came ~150 ms later on the phone profile (docs/performance.md, start-up).
   */
  readonly #warm = (): void => {
    void this.#load().then(() => loadMarkdownEngine().catch(() => {}));
  };

  /** Loads the panel (once) and puts it in place; undefined if its module did not load. */
  #load(): Promise<SvcChatPanel | undefined> {
    this.#loading ??= loadPanel().then(
      () => {
        const panel = document.createElement('svc-chat-panel');
        // What the visitor wrote in the loading state, if it was shown, goes on in the panel.
        const loading = this.#loadingState;
        if (loading) Object.assign(panel, { composerText: loading.typed, sendOnConnect: loading.sent });
        // The page's slotted content goes on into the panel's slots.
        panel.append(
          h('slot', { name: 'header-actions', slot: 'header-actions' }),
          h('slot', { name: 'empty', slot: 'empty' }),
          h('slot', { name: 'sms-challenge', slot: 'sms-challenge' }),
        );
        panel.addEventListener('svc-panel-close', () => this.close());
        // The visitor may be writing in the loading state's field: the panel's takes the text and the focus.
        if (loading && this.renderRoot.activeElement === loading.input) panel.focusInput();
        this._failed = false;
        this.#panel = panel;
        this.requestUpdate();
        return panel;
      },
      () => {
        this.#loading = undefined;
        this._failed = true;
        return undefined;
      },
    );
    return this.#loading;
  }

  /** The labels of a language besides English load before the chat renders in it. */
  protected override scheduleUpdate(): Promise<unknown> | undefined {
    return this.language.loading() ? this.language.pending : undefined;
  }

  /** Once the panel is to be seen (inline, or open), the chat is complete when it shows it. */
  protected override async getUpdateComplete(): Promise<boolean> {
    let complete = await super.getUpdateComplete();
    if (!this.#panel && this.#loading && (this.mode !== 'launcher' || this.opened)) {
      await this.#loading;
      complete = await super.getUpdateComplete();
    }
    return (await this.#panel?.updateComplete) !== false && complete;
  }

  /** The next render, without waiting for the panel. */
  #rendered(): Promise<boolean> {
    return super.getUpdateComplete();
  }

  /** Sends a message as the visitor would. */
  async send(text: string): Promise<SendResult | undefined> {
    return (await this.#load())?.send(text);
  }

  /** Stops the running reply. */
  async interrupt(): Promise<void> {
    await this.#panel?.interrupt();
  }

  /** Asks the conversation's last message again: a new reply replaces the last one (as its Regenerate button). */
  async regenerate(): Promise<SendResult | undefined> {
    return (await this.#load())?.regenerate();
  }

  /** Replaces the visitor's last message with `text` and asks it again (as its Edit button). */
  async editLastMessage(text: string): Promise<SendResult | undefined> {
    return (await this.#load())?.editLastMessage(text);
  }

  /** Opens the launcher's panel: at once, with a loading state until the panel has arrived. */
  open(): void {
    if (this.opened) return;
    this.opened = true;
    persistedConversation(this, 'open')?.save('1');
    this._unread = 0;
    void this.#load();
    this.emit('svc-open', {});
    // The field of the panel, or of its loading state: the visitor can write at once.
    this.#rendered().then(() => (this.#panel ? this.#panel.focusInput() : this.#loadingState?.input.focus()));
  }

  /** Closes the launcher's panel; focus returns to the launcher. */
  close(): void {
    if (!this.opened) return;
    this.opened = false;
    persistedConversation(this, 'open')?.save(null);
    this.emit('svc-close', {});
    this.updateComplete.then(() => this.#launcher?.focus());
  }

  /** Starts a new conversation; the one shown is kept, with a button back to it. */
  newConversation(): void {
    this.#panel?.newConversation();
  }

  protected override update(changed: Map<string, unknown>): void {
    if (changed.has('tokens')) {
      for (const [name, value] of Object.entries(tokenStyle(this.tokens ?? {}))) this.style.setProperty(name, value);
    }
    if (changed.has('mode') && this.mode !== 'launcher') void this.#load();
    const labels = this.#labels;
    const launcher = this.mode === 'launcher';
    const shown = !launcher || this.opened;
    const modal = launcher && this.#fullScreen.matches;
    const panel = this.#panel;
    if (panel) {
      this.#loadingState?.section.remove();
      handOverSettings(this, panel);
      Object.assign(panel, { shown, modal });
      setAttributes(panel, { lang: this.language.tag, dir: this.language.dir });
      if (!panel.parentNode) this.renderRoot.prepend(panel);
    } else if (shown) {
      const title = this.heading || labels.title;
      this.#loadingState ??= new LoadingState(() => this.close());
      const loading = this.#loadingState;
      loading.draw(labels, { title, dir: this.language.dir, launcher, modal }, this._failed);
      if (!loading.section.parentNode) this.renderRoot.prepend(loading.section);
    } else this.#loadingState?.section.remove();
    if (launcher) this.#drawLauncher(labels);
    else this.#launcher?.remove();
  }

  /** The launcher's button, with the unread count while the panel is closed. */
  #drawLauncher(labels: LauncherLabels): void {
    const { opened, _unread: unread } = this;
    const warm = this.#warm;
    this.#launcher ??= h('button', {
      part: 'launcher',
      type: 'button',
      onclick: () => (this.opened ? this.close() : this.open()),
      onpointerenter: warm,
      onpointerdown: warm,
      ontouchstart: warm,
      onfocus: warm,
    });
    const button = this.#launcher;
    setAttributes(button, {
      dir: this.language.dir,
      'aria-label': opened ? labels.close : unread > 0 ? labels.openUnread(unread) : labels.open,
      'aria-expanded': String(opened),
    });
    const shows = `${opened} ${unread}`;
    if (shows !== this.#launcherShows) {
      this.#launcherShows = shows;
      const badge = unread > 0 && !opened ? [h('span', { part: 'badge', 'aria-hidden': 'true' }, String(unread))] : [];
      button.replaceChildren(iconNode(opened ? CLOSE_PATH : CHAT_PATH), ...badge);
    }
    if (!button.parentNode) this.renderRoot.append(button);
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
    'svc-feedback': CustomEvent<Feedback>;
    'svc-turn-complete': CustomEvent<{
      conversationId: string;
      turnId?: string;
      subtype: string;
      text: string;
      error?: string;
    }>;
    'svc-error': CustomEvent<{ message: string; status?: number }>;
    'svc-tool-call': CustomEvent<ToolCallDetail>;
    'svc-tool-result': CustomEvent<{ name: string; toolUseId: string } & ClientToolAnswer>;
    'svc-open': CustomEvent<Record<string, never>>;
    'svc-close': CustomEvent<Record<string, never>>;
  }
}
