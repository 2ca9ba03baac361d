'use client';

import { createComponent, type EventName } from '@lit/react';
import * as React from 'react';
import { SvcChat } from '../elements/svc-chat/svc-chat.js';
import { SvcMarkdown } from '../elements/svc-markdown/svc-markdown.js';
import { declaredProperties } from '../internal/svc-plain-element.js';

/** `detail` of a declared `svc-*` event, as the callback prop receives it. */
type Event<K extends keyof GlobalEventHandlersEventMap> = EventName<GlobalEventHandlersEventMap[K]>;

const CHAT_EVENTS = {
  onReady: 'svc-ready' as Event<'svc-ready'>,
  onSignedIn: 'svc-signed-in' as Event<'svc-signed-in'>,
  onMessageSent: 'svc-message-sent' as Event<'svc-message-sent'>,
  onTurnComplete: 'svc-turn-complete' as Event<'svc-turn-complete'>,
  onFeedback: 'svc-feedback' as Event<'svc-feedback'>,
  onError: 'svc-error' as Event<'svc-error'>,
  onToolCall: 'svc-tool-call' as Event<'svc-tool-call'>,
  onToolResult: 'svc-tool-result' as Event<'svc-tool-result'>,
  onOpen: 'svc-open' as Event<'svc-open'>,
  onClose: 'svc-close' as Event<'svc-close'>,
};

const Chat = createComponent({ react: React, tagName: 'svc-chat', elementClass: SvcChat, events: CHAT_EVENTS });

/** Props of `ChatBox` and `ChatWidget`: the properties of `<svc-chat>`, its events as `on…` callbacks. */
export type ChatProps = Omit<React.ComponentProps<typeof Chat>, 'mode'>;

/**
 * The chat as a server renders it (Next.js). `@lit/react` leaves the element's properties to the browser, so
 * the HTML would hold a bare `<svc-chat>`, which upgrades before hydration and starts once with no service,
 * agent or mode. Here the properties given as text or switched on are its attributes; hydration keeps them.
 */
function serverChat(props: Record<string, unknown>) {
  const html: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(props)) {
    const property = declaredProperties(SvcChat)[name];
    if (!property) {
      if (!(name in CHAT_EVENTS)) html[name] = value;
    } else if (property.attribute !== false && !property.state && (typeof value === 'string' || value === true)) {
      // The element's own rule (svc-plain-element.ts, `register`): the declared attribute, else the name.
      html[property.attribute || name] = value;
    }
  }
  return React.createElement('svc-chat', html);
}

function chatIn(mode: 'inline' | 'launcher', props: ChatProps, ref: React.ForwardedRef<SvcChat>) {
  return typeof document === 'undefined'
    ? serverChat({ ...props, mode })
    : React.createElement(Chat, { ...props, mode, ref });
}

/** `<svc-chat>` in the page's flow (`mode="inline"`): give it a height. */
export const ChatBox = React.forwardRef<SvcChat, ChatProps>(function ChatBox(props, ref) {
  return chatIn('inline', props, ref);
});

/** `<svc-chat mode="launcher">`: a floating button in the window's corner that opens the chat. */
export const ChatWidget = React.forwardRef<SvcChat, ChatProps>(function ChatWidget(props, ref) {
  return chatIn('launcher', props, ref);
});

/** `<svc-markdown>`: renders markdown sanitized (`text` prop). */
export const Markdown = createComponent({
  react: React,
  tagName: 'svc-markdown',
  elementClass: SvcMarkdown,
  events: { onCopy: 'svc-copy' as Event<'svc-copy'> },
  displayName: 'Markdown',
});
