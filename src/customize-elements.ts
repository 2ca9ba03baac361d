/**
 * What a page uses to customize the elements and build its own beside them: the labels and languages, the
 * design tokens and the page stylesheet of both themes, the base element and the cards' context. Exported by the
 * './elements' entry and, in the script-tag build, as part of `window.Svc` with the panel.
 */
export { CHAT_CSS } from './internal/chat-css.js';
export type { CardClient, CardHost } from './internal/context.js';
export { cardHostContext } from './internal/context.js';
export {
  DEFAULT_CONNECTOR_LABELS,
  DEFAULT_INFO_COLLECT_LABELS,
  DEFAULT_PAYMENT_LABELS,
  EN_LABELS,
} from './internal/labels/en.js';
export { isRightToLeft, LANGUAGE_FILES } from './internal/labels/languages.js';
export { loadLanguage } from './internal/labels/load-language.js';
export type {
  ChatLabels,
  ConnectorLabels,
  ContentLabels,
  InfoCollectLabels,
  Language,
  PaymentLabels,
} from './internal/labels/types.js';
export type { Direction } from './internal/language.js';
export { SvcElement } from './internal/svc-element.js';
export {
  PLATFORM_DARK_TOKENS,
  PLATFORM_TOKENS,
  type PlatformTokens,
  tokenStyle,
} from './internal/tokens.js';
