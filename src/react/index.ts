/**
 * `@svc/agent-sdk/react`: the elements as React components (thin `@lit/react` wrappers: properties are set
 * as properties, `svc-*` events arrive as `on…` callbacks), and `useSvcChat` for a chat rendered by React.
 * React is an optional peer dependency of the package; only this entry imports it.
 */

import './jsx.js';

export type { ChatMessage } from '../chat/chat-message.js';
export type { SvcElementProps } from '../element-props.js';
export { DEFAULT_INFO_COLLECT_LABELS, DEFAULT_PAYMENT_LABELS } from '../labels/en.js';
export type { InfoCollectLabels, PaymentLabels } from '../labels/label-types.js';
export { CHAT_CSS } from '../theme/chat-css.js';
export { PLATFORM_TOKENS, type PlatformTokens, tokenStyle } from '../theme/tokens.js';
export { InfoCollectCard, type InfoCollectCardProps, PaymentGateCard, type PaymentGateCardProps } from './cards.js';
export { ChatBox, type ChatProps, ChatWidget, Markdown } from './components.js';
export { useInjectStyles } from './use-inject-styles.js';
export { type SvcChatState, type SvcChatStatus, type UseSvcChatOptions, useSvcChat } from './use-svc-chat.js';
