import { html, nothing, type TemplateResult } from 'lit';
import type { ChatMessage } from '../chat/chat-message.js';
import type { ContentBlock, MessagePart } from '../client/types.js';
import type { ChatLabels } from './labels.js';
import { markdownText } from './markdown-stream.js';

/** What rendering a message needs from the chat around it. */
export interface ViewContext {
  labels: ChatLabels;
  agents?: Record<string, { name: string; avatar?: string }>;
  imageHosts?: string;
  retry(messageId: string): void;
}

/** One row of the conversation. Everything textual goes through Lit bindings or the sanitizing markdown. */
export function renderMessage(message: ChatMessage, view: ViewContext): TemplateResult {
  if (message.role === 'user') return renderUser(message, view);
  if (message.role === 'system') {
    return html`<div part="message message-system" class="message">
      ${message.error ? html`<span part="message-error">${view.labels.replyFailed} ${message.error}</span>` : nothing}
      ${message.interrupted ? html`<span class="meta">${view.labels.interrupted}</span>` : nothing}
    </div>`;
  }
  return renderAgent(message, view);
}

function renderUser(message: ChatMessage, view: ViewContext): TemplateResult {
  const failed = message.status === 'failed';
  return html`<div part="message message-user" class="message ${message.status ?? ''}">
    <div class="body">
      ${message.senderName ? html`<span part="name">${message.senderName}</span>` : nothing}
      ${message.parts.length ? html`<div class="parts">${message.parts.map(renderPart)}</div>` : nothing}
      ${message.text ? html`<div part="bubble">${message.text}</div>` : nothing}
      ${
        failed
          ? html`<div class="meta" role="alert">
            <span>${view.labels.sendFailed}${message.error ? ` ${message.error}` : ''}</span>
            <button part="retry-button" type="button" @click=${() => view.retry(message.id)}>${view.labels.retry}</button>
          </div>`
          : nothing
      }
    </div>
  </div>`;
}

function renderAgent(message: ChatMessage, view: ViewContext): TemplateResult {
  const agent = message.agentId ? view.agents?.[message.agentId] : undefined;
  const name = agent?.name ?? message.senderName ?? view.labels.agent;
  const avatar = agent?.avatar ?? message.senderAvatar;
  const tools = message.blocks.filter((b) => b.type === 'tool_use');
  const images = message.blocks.filter((b) => b.type === 'image');
  return html`<div part="message message-agent" class="message" data-agent=${message.agentId ?? ''}>
    ${
      avatar
        ? html`<img part="avatar" src=${avatar} alt="" referrerpolicy="no-referrer" />`
        : html`<span part="avatar" aria-hidden="true">${name.slice(0, 1).toUpperCase()}</span>`
    }
    <div class="body">
      <span part="name">${name}</span>
      ${tools.map(renderToolCall)}
      ${
        message.text || message.streaming
          ? html`<div part="bubble" class=${message.streaming ? 'cursor' : ''}>
            <svc-markdown
              image-hosts=${view.imageHosts ?? nothing}
              copy-label=${view.labels.copy}
              copied-label=${view.labels.copied}
              ${markdownText(message.text, message.streaming)}
            ></svc-markdown>
          </div>`
          : nothing
      }
      ${images.map((b) => renderImage(b, view))}
      ${message.interrupted ? html`<span class="meta">${view.labels.interrupted}</span>` : nothing}
      ${message.error ? html`<span part="message-error" role="alert">${view.labels.replyFailed} ${message.error}</span>` : nothing}
    </div>
  </div>`;
}

function renderToolCall(block: ContentBlock): TemplateResult | typeof nothing {
  if (block.type !== 'tool_use') return nothing;
  return html`<details part="tool-call">
    <summary>${block.name}</summary>
    <pre>${JSON.stringify(block.input, null, 2)}</pre>
  </details>`;
}

/** Agent images load only from allowed hosts when `image-hosts` is set; others become links. */
function renderImage(block: ContentBlock, view: ViewContext): TemplateResult | typeof nothing {
  if (block.type !== 'image') return nothing;
  const url = safeUrl(block.source.url);
  if (!url) return nothing;
  const allowed = !view.imageHosts || view.imageHosts.split(/[\s,]+/).includes(url.host);
  return allowed
    ? html`<img part="image" src=${url.href} alt="" loading="lazy" referrerpolicy="no-referrer" />`
    : html`<a href=${url.href} target="_blank" rel="noopener noreferrer">${url.href}</a>`;
}

function renderPart(part: MessagePart): TemplateResult | typeof nothing {
  if (part.type === 'image_url') {
    const url = safeUrl(part.image_url.url);
    return url ? html`<img part="image" src=${url.href} alt="" loading="lazy" />` : nothing;
  }
  if (part.type === 'file') return html`<span part="bubble" class="file">${part.file.filename}</span>`;
  return nothing;
}

/** Only http(s) URLs reach `src`/`href` attributes. */
export function safeUrl(value: string): URL | undefined {
  try {
    const url = new URL(value, location.href);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : undefined;
  } catch {
    return undefined;
  }
}
