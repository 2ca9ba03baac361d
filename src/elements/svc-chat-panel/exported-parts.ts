// Made from the templates by scripts/exported-parts.mjs (`npm run manifest`): do not edit.

/** The parts the panel's templates declare (those of `<svc-chat-panel>` and of the modules it renders with). */
const PANEL_PARTS =
  'retry-button notice messages status empty jump-button panel more-button conversations conversations-heading conversation-list conversation conversation-open conversation-title conversation-meta conversation-preview confirm confirm-delete cancel-button rename-button delete-button rename-form rename-input save-button message message-system message-user name bubble message-actions edit-button message-agent avatar card payment-card info-card connector-card message-error thinking tool-call delegation image-button image file file-icon file-name download-button file-chip announcer attach-button attachments attachment-list attachment-error attachment attachment-name remove-attachment attachment-preview attachment-icon upload-progress drop-zone composer input stop-button send-button outbox-note tool-call-actions tool-call-button tool-call-allow tool-call-row previous-button list-button new-button close-button header title person-badge handoff handoff-button sign-in starter-prompts suggestions starter-prompt suggestion copy-button copy-markdown-button feedback-up-button feedback-down-button regenerate-button feedback-thanks feedback-form feedback-reason feedback-send-button edit-form edit-input edit-cancel-button edit-send-button read-aloud-button lightbox lightbox-close lightbox-image audio';

/** The parts the cards' templates declare (`<svc-payment-gate>`, `<svc-info-collect>`, `<svc-connector-setup>`). */
const CARD_PARTS =
  'base title amount status description countdown actions button secondary-button error input field label field-error summary server toggle';
const cards = CARD_PARTS.split(' ');

/**
 * A card's `exportparts` inside the chat: each of its parts under its `card-` name, so that a page styles a card
 * inside the chat as it styles one alone (`svc-chat::part(card-button)`).
 */
export const CARD_EXPORTS = cards.map((name) => `${name}:card-${name}`).join(',');

/** The panel's `exportparts`: its parts and the cards', so that a page styles each as `svc-chat::part(…)`. */
export const PANEL_EXPORTS = [...PANEL_PARTS.split(' '), ...cards.map((name) => `card-${name}`)].join(',');
