import { html, nothing, type TemplateResult } from 'lit';
import type { ChatMessage } from '../../chat/chat-message.js';
import {
  copyIcon,
  markdownIcon,
  pauseIcon,
  regenerateIcon,
  speakerIcon,
  thumbDownIcon,
  thumbUpIcon,
} from '../../internal/content-icons.js';
import type { ViewContext } from './message-view.js';

/*
 * What a visitor can do with a message, drawn under it (`part="message-actions"`): a reply's copy, read
 * aloud, feedback and regenerate; the form that edits their last message. The panel's `ReplyActionsController`
 * and `ReadAloudController` do what the buttons ask.
 */

/** A reply that is complete and did not fail: what a visitor can act on (an interim or failed one is not). */
export const finished = (message: ChatMessage) => !message.streaming && !message.error && message.text.trim() !== '';

/**
 * The actions under a finished reply: copy (as text, as markdown), read aloud, 👍/👎 with a reason, and on the
 * last reply regenerate. With a pointer they show when the reply is hovered or one of them has the focus; on
 * touch they always show. All the replies' actions are one Tab stop (that of read aloud: the newest reply's, or
 * the one used last); Up and Down move along the replies.
 */
export function renderReplyActions(message: ChatMessage, view: ViewContext): TemplateResult {
  const { actions, labels } = view;
  const tabindex = view.readAloudStop === message.id ? 0 : -1;
  const keys = (e: KeyboardEvent) => view.readAloud.moveFocus(e);
  const focus = () => view.readAloud.focused(message.id);
  const copied = actions.copied?.id === message.id ? actions.copied : undefined;
  const rating = view.feedback?.[message.id]?.rating;
  const button = (part: string, label: string, icon: unknown, onClick: (e: Event) => void, pressed?: boolean) =>
    html`<button class="icon-button" part=${part} type="button" aria-label=${label} title=${label}
      tabindex=${tabindex} aria-pressed=${pressed === undefined ? nothing : String(pressed)}
      @click=${onClick} @focus=${focus} @keydown=${keys}>${icon}</button>`;
  const row = (e: Event) => (e.currentTarget as HTMLElement).closest('[part~=message]');
  return html`<div class="actions reply-actions ${view.regenerable === message.key ? 'last' : ''}" part="message-actions">
      ${button('copy-button', copied && !copied.markdown ? labels.replyCopied : labels.copyReply, copyIcon, (e) =>
        actions.copy(message, false, row(e)),
      )}
      ${button('copy-markdown-button', copied?.markdown ? labels.replyCopied : labels.copyMarkdown, markdownIcon, (e) =>
        actions.copy(message, true, row(e)),
      )}
      ${view.readAloud.canRead(message) ? renderReadAloud(message, view) : nothing}
      ${
        view.feedback
          ? html`${button('feedback-up-button', labels.goodReply, thumbUpIcon, () => actions.rate(message, 'up'), rating === 'up')}
            ${button('feedback-down-button', labels.badReply, thumbDownIcon, () => actions.rate(message, 'down'), rating === 'down')}`
          : nothing
      }
      ${view.regenerable === message.key ? button('regenerate-button', labels.regenerate, regenerateIcon, () => actions.regenerate()) : nothing}
      ${copied ? html`<span class="visually-hidden" role="status">${labels.replyCopied}</span>` : nothing}
    </div>
    ${rating && actions.reasonFor === message.id ? renderReasonForm(message, view) : nothing}
    ${actions.thanked.has(message.id) ? html`<span class="meta" part="feedback-thanks" role="status">${labels.feedbackThanks}</span>` : nothing}`;
}

/** The optional reason for a 👍/👎, under the reply. */
function renderReasonForm(message: ChatMessage, view: ViewContext): TemplateResult {
  const { labels, actions } = view;
  const submit = (e: Event) => {
    e.preventDefault();
    const field = (e.currentTarget as HTMLFormElement).querySelector('input');
    actions.sendReason(message, field?.value ?? '');
  };
  return html`<form part="feedback-form" class="inline-form" @submit=${submit}
    @keydown=${(e: KeyboardEvent) => e.key === 'Escape' && actions.closeReason()}>
    <input part="feedback-reason" class="text-field" type="text" maxlength="500" aria-label=${labels.feedbackReason}
      placeholder=${labels.feedbackReason} .value=${view.feedback?.[message.id]?.reason ?? ''} />
    <button part="feedback-send-button" type="submit">${labels.sendFeedback}</button>
  </form>`;
}

/** The visitor's last message, being edited: Enter (or Send) sends it again, Escape (or Cancel) leaves it. */
export function renderEditForm(message: ChatMessage, view: ViewContext): TemplateResult {
  const { labels, actions } = view;
  const field = (e: Event) => (e.currentTarget as HTMLElement).closest('form')!.querySelector('textarea')!;
  return html`<form part="edit-form" class="inline-form" @submit=${(e: Event) => {
    e.preventDefault();
    actions.saveEdit(field(e).value);
  }}>
    <textarea part="edit-input" class="text-field" rows="2" dir="auto" aria-label=${labels.editField} .value=${message.text}
      @keydown=${(e: KeyboardEvent) => {
        if (e.key === 'Escape') actions.cancelEdit();
        else if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
          e.preventDefault();
          actions.saveEdit((e.currentTarget as HTMLTextAreaElement).value);
        }
      }}></textarea>
    <div class="actions">
      <button part="edit-cancel-button" type="button" @click=${() => actions.cancelEdit()}>${labels.cancelEdit}</button>
      <button part="edit-send-button" type="submit">${labels.sendEdit}</button>
    </div>
  </form>`;
}

function renderReadAloud(message: ChatMessage, view: ViewContext): TemplateResult {
  const { readAloud, labels } = view;
  const state = readAloud.messageId === message.id ? readAloud.state : undefined;
  const label =
    state === 'playing'
      ? labels.pauseReading
      : state === 'paused'
        ? labels.resumeReading
        : state === 'loading'
          ? labels.preparingAudio
          : labels.readAloud;
  return html`<button class="icon-button" part="read-aloud-button" type="button" aria-label=${label} title=${label}
      aria-disabled=${state === 'loading' ? 'true' : nothing} tabindex=${view.readAloudStop === message.id ? 0 : -1}
      data-state=${state ?? 'idle'} @click=${() => void readAloud.toggle(message)}
      @focus=${() => readAloud.focused(message.id)} @keydown=${(e: KeyboardEvent) => readAloud.moveFocus(e)}>
      ${state === 'playing' ? pauseIcon : speakerIcon}
    </button>
    ${readAloud.failedId === message.id ? html`<span part="message-error" role="alert">${labels.audioFailed}</span>` : nothing}`;
}
