import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { ChatMessage } from '../../chat/chat-message.js';
import type { ChatStore } from '../../chat/chat-store.js';
import type { SvcEmitter } from '../../internal/emit.js';
import type { FeedbackRating } from '../../protocol/types.js';

/** What the actions need of the panel: its store, and its rows to read a reply's rendered text from. */
export interface ReplyActionsHost extends ReactiveControllerHost, SvcEmitter {
  readonly store?: ChatStore;
  readonly renderRoot: ParentNode;
}

/** Elements that start a line of their own when a rendered reply is copied as text. */
const BLOCKS = new Set(['P', 'LI', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'PRE', 'TR', 'BLOCKQUOTE', 'DIV', 'BR']);

/**
 * The rendered text of a reply, as a reader sees it: the words without markdown's marks, a line per block and
 * cells apart by a tab, without the labels of the code blocks' copy buttons.
 */
export function readableText(root: Node): string {
  let text = '';
  const walk = (node: Node) => {
    if (node instanceof HTMLElement && node.matches('[part~=copy]')) return;
    if (node.nodeType === Node.TEXT_NODE) text += (node as Text).data;
    const block = node instanceof HTMLElement && BLOCKS.has(node.tagName);
    if (block && text && !text.endsWith('\n')) text += '\n';
    for (const child of node.childNodes) walk(child);
    if (node instanceof HTMLElement && (node.tagName === 'TD' || node.tagName === 'TH') && node.nextElementSibling) {
      text += '\t';
    }
    if (block && !text.endsWith('\n')) text += '\n';
  };
  walk(root);
  return text
    .replace(/[ \t]*\n[ \t]*\n+/g, '\n\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * What a visitor does with a message: copy an agent's finished reply (as text or as markdown), rate it 👍/👎 with
 * an optional reason, ask the last question again; edit their own last message and send it again. The buttons
 * are drawn by `message-view.ts`; the store (`ChatStore.setFeedback`, `regenerate`, `editLast`) does the rest.
 */
export class ReplyActionsController implements ReactiveController {
  /** The reply just copied, and how: its button says "Copied" for a moment. */
  copied?: { id: string; markdown: boolean };
  /** The reply whose reason field is open (after 👍 or 👎). */
  reasonFor?: string;
  /** Replies whose reason was sent: a thank-you shows instead of the field. */
  readonly thanked = new Set<string>();
  /** The visitor's message being edited. */
  editing?: string;
  #copiedTimer?: ReturnType<typeof setTimeout>;

  constructor(private readonly host: ReplyActionsHost) {
    host.addController(this);
  }

  hostDisconnected(): void {
    clearTimeout(this.#copiedTimer);
  }

  /** Copies a reply: the words as rendered, or the markdown the agent wrote. */
  async copy(message: ChatMessage, markdown: boolean, row: Element | null): Promise<void> {
    let text = message.text;
    if (!markdown) {
      const rendered = row?.querySelector('svc-markdown');
      await (rendered as { updateComplete?: Promise<unknown> } | null)?.updateComplete;
      const base = rendered?.shadowRoot?.querySelector('[part~=base]');
      if (base) text = readableText(base);
    }
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      return;
    }
    this.copied = { id: message.id, markdown };
    this.host.emit('svc-copy', { text });
    this.host.requestUpdate();
    clearTimeout(this.#copiedTimer);
    this.#copiedTimer = setTimeout(() => {
      this.copied = undefined;
      this.host.requestUpdate();
    }, 2000);
  }

  /** 👍 or 👎 on a reply: stored at once; the field for a reason opens under it. */
  rate(message: ChatMessage, rating: FeedbackRating): void {
    const store = this.host.store;
    if (!store) return;
    void store.setFeedback(message.id, rating, store.feedback[message.id]?.reason ?? undefined);
    this.reasonFor = message.id;
    this.thanked.delete(message.id);
    this.host.requestUpdate();
  }

  /** Sends the reason given for the rating shown. */
  sendReason(message: ChatMessage, reason: string): void {
    const store = this.host.store;
    const rating = store?.feedback[message.id]?.rating;
    if (!store || !rating) return;
    void store.setFeedback(message.id, rating, reason);
    this.reasonFor = undefined;
    this.thanked.add(message.id);
    this.host.requestUpdate();
  }

  closeReason(): void {
    this.reasonFor = undefined;
    this.host.requestUpdate();
  }

  regenerate(): void {
    void this.host.store?.regenerate();
  }

  /** Opens the visitor's message for editing, with the focus in its field. */
  startEdit(message: ChatMessage): void {
    this.editing = message.id;
    this.host.requestUpdate();
    void this.host.updateComplete.then(() => {
      const field = this.host.renderRoot.querySelector<HTMLTextAreaElement>('[part~=edit-input]');
      field?.focus();
      field?.select();
    });
  }

  /** Sends the edited message in place of the last one. */
  saveEdit(text: string): void {
    if (!text.trim()) return;
    this.editing = undefined;
    this.host.requestUpdate();
    void this.host.store?.editLast(text.trim());
  }

  /** Leaves the message as it was; the focus goes back to its Edit button. */
  cancelEdit(): void {
    this.editing = undefined;
    this.host.requestUpdate();
    void this.host.updateComplete.then(() =>
      this.host.renderRoot.querySelector<HTMLElement>('[part~=edit-button]')?.focus(),
    );
  }
}
