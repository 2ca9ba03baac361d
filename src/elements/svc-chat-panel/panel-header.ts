import { html, nothing, type TemplateResult } from 'lit';
import { listIcon, plusIcon, previousIcon } from '../../internal/content-icons.js';
import { closeIcon } from '../../internal/icons.js';
import type { ChatLabels } from '../../labels/label-types.js';

/** What the header shows, and what its buttons do. */
export interface PanelHeader {
  title: string;
  /** Beside the title: the person of the site's staff who holds the conversation. */
  badge: unknown;
  /** The buttons of a conversation (there is one: the chat is connected). */
  conversation: boolean;
  /** Back to the conversation before the new one, while there is one. */
  previous?: () => void;
  /** The visitor's conversations show in place of the one shown. */
  listShown: boolean;
  toggleList: () => void;
  newConversation: () => void;
  /** The launcher's close button. */
  close?: () => void;
}

/**
 * The panel's header: the title, the page's buttons (`header-actions`), and those of a conversation: back to the
 * one before (after the visitor started a new one: it is kept, not thrown away), the list of conversations and a
 * new one; the launcher's close button. A header button is a change to this file.
 */
export function renderHeader(header: PanelHeader, labels: ChatLabels): TemplateResult {
  const button = (part: string, label: string, icon: unknown, onClick: () => void, pressed?: boolean) =>
    html`<button class="icon-button" part=${part} type="button" aria-label=${label}
      aria-pressed=${pressed === undefined ? nothing : String(pressed)} @click=${onClick}>${icon}</button>`;
  const { previous, close, listShown } = header;
  const list = listShown ? labels.backToChat : labels.conversations;
  const conversation = header.conversation
    ? html`${previous ? button('previous-button', labels.previousConversation, previousIcon, previous) : nothing}${button(
        'list-button',
        list,
        listIcon,
        header.toggleList,
        listShown,
      )}${button('new-button', labels.newConversation, plusIcon, header.newConversation)}`
    : nothing;
  return html`<header part="header">
    <h2 part="title">${header.title}</h2>${header.badge}
    <slot name="header-actions"></slot>${conversation}${close ? button('close-button', labels.close, closeIcon, close) : nothing}
  </header>`;
}
