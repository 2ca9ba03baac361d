import { createComponent, type EventName } from '@lit/react';
import * as React from 'react';
import { SvcChat } from '../elements/svc-chat.js';
import { SvcMarkdown } from '../elements/svc-markdown.js';

/** `detail` of a declared `svc-*` event, as the callback prop receives it. */
type Event<K extends keyof GlobalEventHandlersEventMap> = EventName<GlobalEventHandlersEventMap[K]>;

const CHAT_EVENTS = {
  onReady: 'svc-ready' as Event<'svc-ready'>,
  onSignedIn: 'svc-signed-in' as Event<'svc-signed-in'>,
  onMessageSent: 'svc-message-sent' as Event<'svc-message-sent'>,
  onTurnComplete: 'svc-turn-complete' as Event<'svc-turn-complete'>,
  onFeedback: 'svc-feedback' as Event<'svc-feedback'>,
  onError: 'svc-error' as Event<'svc-error'>,
  onOpen: 'svc-open' as Event<'svc-open'>,
  onClose: 'svc-close' as Event<'svc-close'>,
};

const Chat = createComponent({ react: React, tagName: 'svc-chat', elementClass: SvcChat, events: CHAT_EVENTS });

/** Props of `ChatBox` and `ChatWidget`: the properties of `<svc-chat>`, its events as `on…` callbacks. */
export type ChatProps = Omit<React.ComponentProps<typeof Chat>, 'mode'>;

/** `<svc-chat>` in the page's flow (`mode="inline"`): give it a height. */
export const ChatBox = React.forwardRef<SvcChat, ChatProps>(function ChatBox(props, ref) {
  return React.createElement(Chat, { ...props, mode: 'inline', ref });
});

/** `<svc-chat mode="launcher">`: a floating button in the window's corner that opens the chat. */
export const ChatWidget = React.forwardRef<SvcChat, ChatProps>(function ChatWidget(props, ref) {
  return React.createElement(Chat, { ...props, mode: 'launcher', ref });
});

/** `<svc-markdown>`: renders markdown sanitized (`text` prop). */
export const Markdown = createComponent({
  react: React,
  tagName: 'svc-markdown',
  elementClass: SvcMarkdown,
  events: { onCopy: 'svc-copy' as Event<'svc-copy'> },
  displayName: 'Markdown',
});
