import { html, nothing, type ReactiveController, type ReactiveControllerHost, type TemplateResult } from 'lit';
import { ConversationListState } from '../../chat/conversation-list-state.js';
import type { ChatClient } from '../../client/chat.js';
import { virtualList } from '../../internal/virtual-list.js';
import type { ChatLabels } from '../../labels/label-types.js';
import type { ConversationSummary } from '../../protocol/types.js';

/** What the list asks of the panel: where it is, and what opening or starting a conversation does. */
export interface ListHost extends ReactiveControllerHost, HTMLElement {
  readonly renderRoot: HTMLElement | DocumentFragment;
  /** Shows a conversation of the list (its history pages in as in any conversation). */
  openConversation(conversationId: string): void;
  /** The conversation shown was deleted: the chat starts a new one. */
  conversationDeleted(conversationId: string): void;
}

/**
 * The panel's list of the visitor's conversations (`part="conversations"`): newest first, each with its title,
 * time and the start of its last message; open one, start a new one, rename one in place, delete one after a
 * confirmation. A `list` of rows, each a button that opens (named by its title, with the time and preview as its
 * description) and the buttons that rename and delete it; rows are virtualized past 100 (`virtualList`), more
 * pages load from a button at the end. State in `ConversationListState` (src/chat).
 */
export class ConversationListController implements ReactiveController {
  /** The list shows instead of the conversation. */
  shown = false;
  #state?: ConversationListState;
  #unsubscribe?: () => void;
  /** The row whose title is being edited, and the one asking to confirm its deletion. */
  #renaming?: string;
  #confirming?: string;
  /** Focus this row's open button (or the list's first) after the next render. */
  #focus?: string;

  constructor(private readonly host: ListHost) {
    host.addController(this);
  }

  hostDisconnected(): void {
    this.attach(undefined);
  }

  /** The client the list reads with (a new one when the chat starts again). */
  attach(chat: ChatClient | undefined): void {
    this.#unsubscribe?.();
    this.#state?.dispose();
    this.#state = chat ? new ConversationListState(chat) : undefined;
    this.#unsubscribe = this.#state?.subscribe(() => this.host.requestUpdate());
    if (this.shown) void this.#state?.refresh();
  }

  get state(): ConversationListState | undefined {
    return this.#state;
  }

  /** Shows the list (read again from the service) or hides it. */
  toggle(show = !this.shown): void {
    this.shown = show;
    this.#renaming = this.#confirming = undefined;
    if (show) {
      this.#focus = '';
      void this.#state?.refresh();
    }
    this.host.requestUpdate();
  }

  hostUpdated(): void {
    // Once the rows are there: the first row (or the one asked for), else the heading of an empty list.
    if (this.#focus === undefined || !this.shown || this.#state?.loading) return;
    const root = this.host.renderRoot;
    const target =
      (this.#focus && root.querySelector<HTMLElement>(`[data-conversation="${CSS.escape(this.#focus)}"]`)) ||
      root.querySelector<HTMLElement>('[part~=conversation-open]') ||
      root.querySelector<HTMLElement>('[part~=conversations-heading]');
    if (target) {
      this.#focus = undefined;
      target.focus();
    }
  }

  render(labels: ChatLabels, lang: string, current: string | null, running: boolean): TemplateResult {
    const state = this.#state;
    const items = state?.items ?? [];
    // A failed delete leaves its confirmation open, whose Delete tries again; anything else reads the list again.
    const failed =
      state?.failed === 'delete'
        ? html`<div part="notice" class="error" role="alert">${labels.deleteFailed}</div>`
        : state?.error
          ? html`<div part="notice" class="error" role="alert">${labels.conversationsFailed}
          <button part="retry-button" type="button" @click=${() => void state.refresh()}>${labels.retry}</button></div>`
          : nothing;
    const empty = state?.loaded && !items.length ? html`<p part="empty">${labels.noConversations}</p>` : nothing;
    const more = state?.hasMore
      ? html`<button part="more-button" type="button" ?disabled=${state.loading} @click=${() => void state.loadMore()}>
          ${labels.moreConversations}</button>`
      : nothing;
    return html`<div part="conversations" aria-busy=${state?.loading ? 'true' : 'false'}>
      <h3 part="conversations-heading" tabindex="-1">${labels.conversations}</h3>
      ${failed}
      ${state?.loading && !state.loaded ? html`<p part="empty" role="status">${labels.loadingConversations}</p>` : empty}
      <div part="conversation-list" role="list" aria-label=${labels.conversations}>
        ${virtualList(
          items,
          (c) => c.id,
          (c) => this.#row(c, labels, lang, c.id === current, running && c.id === current),
        )}
      </div>
      ${more}
    </div>`;
  }

  #row(c: ConversationSummary, labels: ChatLabels, lang: string, current: boolean, running: boolean): TemplateResult {
    const title = c.title || labels.untitled;
    const preview = c.lastMessage
      ? `${c.lastMessage.role === 'user' ? labels.you : c.lastMessage.agentName || labels.agent}: ${c.lastMessage.text}`
      : '';
    const time = formatTime(c.updatedAt, lang);
    if (this.#renaming === c.id) return this.#renameRow(c, labels, title);
    const confirming = this.#confirming === c.id;
    return html`<div part="conversation" role="listitem" class=${current ? 'current' : ''}>
      <button part="conversation-open" type="button" data-conversation=${c.id} aria-current=${current ? 'true' : 'false'}
        aria-describedby=${`d-${c.id}`} @click=${() => this.host.openConversation(c.id)}>
        <span part="conversation-title">${title}</span>
        <span id=${`d-${c.id}`} part="conversation-meta">
          <time datetime=${c.updatedAt}>${time}</time>${preview ? html` · <span part="conversation-preview">${preview}</span>` : nothing}
        </span>
      </button>
      ${
        confirming
          ? html`<div part="confirm" role="group" aria-label=${labels.confirmDelete(title)}>
              <span>${labels.confirmDelete(title)}</span>
              <button part="confirm-delete" type="button" @click=${() => void this.#delete(c.id)}>${labels.delete}</button>
              <button part="cancel-button" type="button" @click=${() => this.#settle(c.id)}>${labels.cancel}</button>
            </div>`
          : html`<button part="rename-button" class="text-button" type="button" aria-label=${labels.renameConversation(title)}
              @click=${() => this.#edit(c.id, 'rename')}>${labels.rename}</button>
            <button part="delete-button" class="text-button" type="button" aria-label=${labels.deleteConversation(title)}
              ?disabled=${running} title=${running ? labels.deleteWhileRunning : nothing}
              @click=${() => this.#edit(c.id, 'delete')}>${labels.delete}</button>`
      }
    </div>`;
  }

  #renameRow(c: ConversationSummary, labels: ChatLabels, title: string): TemplateResult {
    const save = async (event: Event) => {
      event.preventDefault();
      const field = (event.currentTarget as HTMLFormElement).elements.namedItem('title') as HTMLInputElement;
      const value = field.value.trim();
      if (value && value !== c.title && !(await this.#state?.rename(c.id, value))) return;
      this.#settle(c.id);
    };
    return html`<div part="conversation" role="listitem">
      <form part="rename-form" @submit=${save} @keydown=${(e: KeyboardEvent) => {
        if (e.key !== 'Escape') return;
        e.stopPropagation();
        this.#settle(c.id);
      }}>
        <label><span class="visually-hidden">${labels.renameConversation(title)}</span>
          <input part="rename-input" class="text-field" name="title" maxlength="200" required .value=${c.title ?? ''} /></label>
        <button part="save-button" type="submit">${labels.saveTitle}</button>
        <button part="cancel-button" type="button" @click=${() => this.#settle(c.id)}>${labels.cancel}</button>
      </form>
    </div>`;
  }

  #edit(id: string, what: 'rename' | 'delete'): void {
    this.#renaming = what === 'rename' ? id : undefined;
    this.#confirming = what === 'delete' ? id : undefined;
    this.host.requestUpdate();
    void this.host.updateComplete.then(() => {
      const root = this.host.renderRoot;
      root.querySelector<HTMLElement>(what === 'rename' ? '[part~=rename-input]' : '[part~=cancel-button]')?.focus();
    });
  }

  /** Leaves renaming or confirming; the focus goes back to the row. */
  #settle(id: string): void {
    this.#renaming = this.#confirming = undefined;
    this.#focus = id;
    this.host.requestUpdate();
  }

  async #delete(id: string): Promise<void> {
    const state = this.#state;
    if (!state) return;
    const index = state.items.findIndex((c) => c.id === id);
    if (!(await state.delete(id))) return;
    this.#confirming = undefined;
    // The focus goes to the row that took its place, else the one before, else the heading.
    this.#focus = (state.items[index] ?? state.items[index - 1])?.id ?? '';
    this.host.conversationDeleted(id);
    this.host.requestUpdate();
  }
}

/** Today's time, or the date of an older day, as the visitor's language writes them. */
function formatTime(iso: string, lang: string): string {
  const when = new Date(iso);
  const today = new Date().toDateString() === when.toDateString();
  try {
    return new Intl.DateTimeFormat(lang, today ? { timeStyle: 'short' } : { dateStyle: 'medium' }).format(when);
  } catch {
    return when.toLocaleString();
  }
}
