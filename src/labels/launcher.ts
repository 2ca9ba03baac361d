import type { ChatLabels } from './label-types.js';

/** What `<svc-chat>` shows before its panel has loaded: the launcher, and the panel's frame while it loads. */
export type LauncherLabels = Pick<
  ChatLabels,
  'title' | 'placeholder' | 'send' | 'open' | 'close' | 'openUnread' | 'connecting' | 'networkError'
>;

/**
 * The English of {@link LauncherLabels}: a few strings, so that what every page loads first does not carry every
 * label of the chat (`en.ts` takes them from here).
 */
export const EN_LAUNCHER_LABELS: LauncherLabels = {
  title: 'Chat',
  placeholder: 'Write a message…',
  send: 'Send',
  open: 'Open chat',
  close: 'Close chat',
  openUnread: (n) => `Open chat, ${n} unread`,
  connecting: 'Connecting…',
  networkError: 'Could not reach the service. Check your connection and try again.',
};
