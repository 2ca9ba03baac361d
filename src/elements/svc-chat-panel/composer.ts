import { html, type ReactiveController, type ReactiveControllerHost, type TemplateResult } from 'lit';
import type { ChatStore } from '../../chat/chat-store.js';
import { stopIcon } from '../../internal/content-icons.js';
import { sendIcon } from '../../internal/icons.js';
import type { ChatLabels } from '../../labels/label-types.js';
import { type ChatSettings, persistedConversation } from '../svc-chat/chat-settings.js';
import { type AttachmentsController, renderAttachButton, renderAttachments } from './attachments.js';

/** What the composer needs of the chat's panel. */
export interface ComposerHost extends ReactiveControllerHost, ChatSettings {
  readonly renderRoot: ParentNode;
  readonly store: ChatStore | undefined;
  readonly chatLabels: ChatLabels;
  readonly languageTag: string;
  /** The text in the composer (the launcher hands over what the visitor typed while the panel loaded). */
  composerText: string;
  /** The visitor sent a message before the panel was there: it goes once the conversation is. */
  sendOnConnect: boolean;
}

/**
 * The composer of the chat's panel: the field the visitor writes in (kept for the tab with `persist`), the files
 * waiting to go with it, and sending, by Enter or by the send button, which stops a running reply instead.
 */
export class Composer implements ReactiveController {
  readonly #host: ComposerHost;
  readonly #attachments: AttachmentsController;
  /** A message goes: the chat follows its reply. */
  readonly #sending: () => void;

  constructor(host: ComposerHost, attachments: AttachmentsController, sending: () => void) {
    this.#host = host;
    this.#attachments = attachments;
    this.#sending = sending;
    host.addController(this);
  }

  hostConnected(): void {
    // What the visitor was writing before a reload (with `persist`).
    const host = this.#host;
    if (host.composerText) this.#draft()?.save(host.composerText);
    else host.composerText = this.#draft()?.load() ?? '';
  }

  hostUpdated(): void {
    const host = this.#host;
    if (!host.sendOnConnect || !host.store) return;
    host.sendOnConnect = false;
    // After this update: sending renders again.
    void host.updateComplete.then(() => this.#submit());
  }

  /** Where `persist` keeps the text being written, for this tab. */
  #draft() {
    return persistedConversation(this.#host, 'draft');
  }

  /** Puts the focus in the field, once it is rendered. */
  focus(): void {
    void this.#host.updateComplete.then(() => this.#input?.focus());
  }

  get #input(): HTMLTextAreaElement | null {
    return this.#host.renderRoot.querySelector('[part~=input]');
  }

  #submit(event?: Event): void {
    event?.preventDefault();
    const input = this.#input;
    const text = (input?.value ?? '').trim();
    const host = this.#host;
    const attachments = this.#attachments;
    const { store } = host;
    const { parts } = attachments;
    if (!store || store.running) return;
    if (attachments.uploading) {
      attachments.notice = host.chatLabels.waitForUploads;
      host.requestUpdate();
      return;
    }
    if (!text && !parts.length) return;
    host.composerText = '';
    this.#draft()?.save(null);
    if (input) input.value = '';
    this.#sending();
    attachments.clear();
    void store.send(text, parts.length ? { parts } : {});
  }

  /** The files waiting to go, and the form: the attach button, the field, the send or stop button. */
  render(store: ChatStore, labels: ChatLabels): TemplateResult {
    const host = this.#host;
    const attachments = this.#attachments;
    // One button sends and, while a reply runs, stops it: the same element, so it keeps the focus.
    const running = store.running;
    return html`${renderAttachments(attachments, labels, host.languageTag)}
      <form part="composer" @submit=${(e: Event) => this.#submit(e)}>
        ${renderAttachButton(attachments, labels, host.accept)}
        <textarea part="input" rows="1" aria-label=${labels.placeholder} placeholder=${labels.placeholder}
          .value=${host.composerText}
          @input=${(e: Event) => {
            host.composerText = (e.target as HTMLTextAreaElement).value;
            this.#draft()?.save(host.composerText);
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
      </form>`;
  }
}
