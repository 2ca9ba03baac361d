/**
 * `@svc/agent-sdk/elements`: importing this registers every element (once, however often it is loaded).
 */
export * from '../cards/index.js';
export { EN_LABELS } from './labels/en.js';
export { isRightToLeft, LANGUAGE_FILES } from './labels/languages.js';
export { loadLanguage } from './labels/load-language.js';
export type { ChatLabels, ContentLabels, Language } from './labels/types.js';
export type { Direction } from './language.js';
export { type ChatMode, type ChatTheme, SvcChat } from './svc-chat.js';
export { SvcElement } from './svc-element.js';
export { SvcMarkdown } from './svc-markdown.js';
export { type SignedIn, SvcSmsSignIn } from './svc-sms-sign-in.js';
export { CHAT_CSS, PLATFORM_DARK_TOKENS, PLATFORM_TOKENS, type PlatformTokens, tokenStyle } from './tokens.js';
