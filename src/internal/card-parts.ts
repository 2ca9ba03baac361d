/**
 * The parts of the cards (`<svc-payment-gate>`, `<svc-info-collect>`, `<svc-connector-setup>`) that `<svc-chat>`
 * exports as `card-…` (`card-title`, `card-button`, …), so that a page styles a card inside the chat as it
 * styles one alone: a part added to a card's template is added here too.
 */
export const CARD_PARTS: readonly string[] = [
  'base',
  'title',
  'description',
  'amount',
  'status',
  'countdown',
  'actions',
  'button',
  'secondary-button',
  'server',
  'field',
  'label',
  'input',
  'toggle',
  'field-error',
  'error',
  'summary',
];

/** A card's `exportparts` inside the chat: each of its parts under its `card-` name. */
export const CARD_EXPORTS = CARD_PARTS.map((name) => `${name}:card-${name}`).join(',');
