import { fixture, html } from '@open-wc/testing';
import type { ChatClient } from '../../src/client/chat.js';
import type { FakeChatApi } from './fake-chat-api.js';
import '../../src/elements/svc-chat/svc-chat.js';
import type { SvcChat } from '../../src/elements/svc-chat/svc-chat.js';
import { chatReady } from './chat-ready.js';

/**
 * An inline `<svc-chat>` in a box `height` px tall, showing conversation `conversationId` of `api`: a client
 * with no network, whose stream delivers what the test hands it.
 */
export function fakeChat(api: FakeChatApi, conversationId: string, height: number): Promise<SvcChat> {
  return fixture<HTMLDivElement>(
    html`<div style=${`height: ${height}px`}><svc-chat conversation-id=${conversationId}
      .client=${{ chat: api as unknown as ChatClient }}></svc-chat></div>`,
  ).then((d) => chatReady(d.querySelector('svc-chat')!));
}
