/**
 * `@svc/agent-sdk/elements`: importing this registers every element (once, however often it is loaded). It
 * gathers the elements (`elements/`), the cards (`cards/`) and what they share (`internal/`), which import
 * neither each other nor this file.
 */
export * from './cards/index.js';
export { type ChatMode, type ChatTheme, SvcChat } from './elements/svc-chat.js';
export { SvcMarkdown } from './elements/svc-markdown.js';
export { type SignedIn, SvcSmsSignIn } from './elements/svc-sms-sign-in.js';
export { EN_LABELS } from './internal/labels/en.js';
export { isRightToLeft, LANGUAGE_FILES } from './internal/labels/languages.js';
export { loadLanguage } from './internal/labels/load-language.js';
export type { ChatLabels, ContentLabels, Language } from './internal/labels/types.js';
export type { Direction } from './internal/language.js';
export { SvcElement } from './internal/svc-element.js';
export {
  CHAT_CSS,
  PLATFORM_DARK_TOKENS,
  PLATFORM_TOKENS,
  type PlatformTokens,
  tokenStyle,
} from './internal/tokens.js';
