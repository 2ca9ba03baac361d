/**
 * What a page uses to customize the elements and build its own beside them: the labels and languages, the
 * design tokens and the page stylesheet of both themes, the base element and the cards' context. Exported by the
 * './elements' entry and, in the script-tag build, as part of `window.Svc` with the panel.
 */

export type { CardClient, CardHost } from './internal/context.js';
export { cardHostContext } from './internal/context.js';
export type { Direction } from './internal/language.js';
export { SvcElement } from './internal/svc-element.js';
export {
  DEFAULT_CONNECTOR_LABELS,
  DEFAULT_INFO_COLLECT_LABELS,
  DEFAULT_PAYMENT_LABELS,
  EN_LABELS,
} from './labels/en.js';
export type {
  ChatLabels,
  ConnectorLabels,
  ContentLabels,
  InfoCollectLabels,
  Language,
  PaymentLabels,
} from './labels/label-types.js';
export { isRightToLeft, LANGUAGE_FILES } from './labels/languages.js';
export { loadLanguage } from './labels/load-language.js';
export { CHAT_CSS } from './theme/chat-css.js';
export {
  PLATFORM_DARK_TOKENS,
  PLATFORM_TOKENS,
  type PlatformTokens,
  tokenStyle,
} from './theme/tokens.js';
