export type { ChatApi } from './chat-api.js';
export type {
  ChatMessage,
  ChatRole,
  ConnectorSetupCard,
  InfoCollectAnswer,
  InfoCollectCard,
  MessageStatus,
  PaymentCard,
} from './chat-message.js';
export {
  ChatStore,
  type ChatStoreEvents,
  type ChatStoreOptions,
  type ConnectionState,
  type SendOptions,
} from './chat-store.js';
export { compareRecordIds, MessageLog } from './messages.js';
