/**
 * `@svc/agent-sdk/elements`: importing this registers every element (once, however often it is loaded).
 */
export * from '../cards/index.js';
export { type ContentLabels, EN_CONTENT_LABELS, ZH_CONTENT_LABELS } from './content-labels.js';
export { type ChatLabels, EN_LABELS, labelsFor, ZH_LABELS } from './labels.js';
export { type ChatMode, type ChatTheme, SvcChat } from './svc-chat.js';
export { SvcElement } from './svc-element.js';
export { SvcMarkdown } from './svc-markdown.js';
export { type SignedIn, SvcSmsSignIn } from './svc-sms-sign-in.js';
export { CHAT_CSS, PLATFORM_DARK_TOKENS, PLATFORM_TOKENS, type PlatformTokens, tokenStyle } from './tokens.js';
