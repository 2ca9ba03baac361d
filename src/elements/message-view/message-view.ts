import { html, nothing, type TemplateResult } from 'lit';
import type { ChatMessage } from '../../chat/chat-message.js';
import { TURN_FAILED } from '../../chat/message-log.js';
import type { ReplyFeedback } from '../../chat/reply-feedback.js';
import { downloadIcon, editIcon, fileIcon } from '../../internal/content-icons.js';
import type { Direction } from '../../internal/language.js';
import type { ChatLabels } from '../../labels/label-types.js';
import type { MessagePart } from '../../protocol/conversation-types.js';
import type { AgentStatus, ContentBlock, Delegation, ImageBlock, ToolUseBlock } from '../../protocol/record-types.js';
import { formatBytes } from '../svc-chat-panel/attachments.js';
import { CARD_EXPORTS } from '../svc-chat-panel/exported-parts.js';
import type { FileDownloadController } from '../svc-chat-panel/file-download.js';
import type { ImageViewerController } from '../svc-chat-panel/image-viewer.js';
import type { ReadAloudController } from '../svc-chat-panel/read-aloud.js';
import type { ReplyActionsController } from '../svc-chat-panel/reply-actions.js';
import { REPLY_RENDER_INTERVAL_MS } from '../svc-chat-panel/reply-render-interval.js';
import { renderPrompts } from '../svc-chat-panel/starter-prompts.js';
import { markdownText } from '../svc-markdown/markdown-text.js';
import '../svc-markdown/svc-markdown.js';
import { imageAllowed, safeUrl } from '../../internal/safe-url.js';
import { finished, renderEditForm, renderReplyActions } from './message-actions.js';

/** What rendering a message needs from the chat around it. */
export interface ViewContext {
  labels: ChatLabels;
  /** Language of dates, sizes, amounts and the cards' labels. */
  lang: string;
  /** The chat's direction, which the cards take (their own language may say otherwise). */
  dir: Direction;
  agents?: Record<string, { name: string; avatar?: string }>;
  /** Hosts images may load from besides the page's: the service's, and what `image-hosts` adds. */
  imageHosts: string[];
  /** Show the agents' thinking blocks. */
  showThinking: boolean;
  /** Keys of agent messages that follow one of the same agent: shown without repeating avatar and name. */
  continued: ReadonlySet<string>;
  retry(messageId: string): void;
  /** The key of the newest message when it is a reply that failed: it offers a Retry. */
  failedReply?: string;
  /** Asks again what the visitor asked before the newest reply failed. */
  retryReply(): void;
  /** Messages in the outbox (the service was not reached): they go by themselves once it answers. */
  waiting?: readonly string[];
  readAloud: ReadAloudController;
  /** The reply whose read-aloud button is the one Tab stop among them. */
  readAloudStop?: string;
  downloads: FileDownloadController;
  images: ImageViewerController;
  /** Copy, feedback, regenerate and edit (docs/elements.md "Acting on messages"). */
  actions: ReplyActionsController;
  /** The visitor's feedback on the replies, by message id; undefined: the chat's client offers no feedback. */
  feedback?: Readonly<Record<string, ReplyFeedback>>;
  /** The key of the last reply, when it can be asked again (no reply runs). */
  regenerable?: string;
  /** The key of the visitor's last message, when it can be edited and sent again. */
  editable?: string;
  /** The key of the last reply when it suggests replies the visitor may send (`ChatStore.suggestions`). */
  suggesting?: string;
  /** Sends a suggested reply as the visitor's message. */
  suggest(text: string): void;
  /** The row of a call of one of the page's tools (`client: true`): what became of it. */
  pageToolCall(block: ToolUseBlock): TemplateResult;
}

/**
 * One row of the conversation. Everything textual goes through Lit bindings or the sanitizing markdown. The
 * cards it renders are registered by the panel's entry module (`src/panel.ts`), as every element is.
 */
export function renderMessage(message: ChatMessage, view: ViewContext): TemplateResult {
  if (message.role === 'user') return renderUser(message, view);
  if (message.role === 'system') {
    return html`<div part="message message-system" class="message">
      ${message.error ? renderReplyFailed(message, view) : nothing}
      ${message.interrupted ? html`<span class="meta">${view.labels.interrupted}</span>` : nothing}
    </div>`;
  }
  return renderAgent(message, view);
}

function renderUser(message: ChatMessage, view: ViewContext): TemplateResult {
  // Why it failed is said once, in the chat's notice; the message says only that it was not sent.
  const failed = message.status === 'failed';
  return html`<div part="message message-user" class="message ${message.status ?? ''}">
    <div class="body">
      ${message.senderName ? html`<span part="name">${message.senderName}</span>` : nothing}
      ${message.parts.length ? html`<div class="parts">${message.parts.map((p) => renderPart(p, view))}</div>` : nothing}
      ${
        view.actions.editing === message.id
          ? renderEditForm(message, view)
          : html`${message.text ? html`<div part="bubble" dir="auto">${message.text}</div>` : nothing}
            ${
              view.editable === message.key
                ? html`<div class="actions" part="message-actions">
                  <button class="icon-button" part="edit-button" type="button" aria-label=${view.labels.editMessage}
                    @click=${() => view.actions.startEdit(message)}>${editIcon}</button>
                </div>`
                : nothing
            }`
      }
      ${
        failed
          ? html`<div class="meta" role="alert">
            <span>${view.waiting?.includes(message.id) ? view.labels.waitingToSend : view.labels.sendFailed}</span>
            <button part="retry-button" type="button" @click=${() => view.retry(message.id)}>${view.labels.retry}</button>
          </div>`
          : nothing
      }
    </div>
  </div>`;
}

function agentName(
  agentId: string | undefined,
  view: Pick<ViewContext, 'labels' | 'agents'>,
  fallback?: string,
): string {
  return (agentId ? view.agents?.[agentId]?.name : undefined) ?? fallback ?? view.labels.agent;
}

function renderAgent(message: ChatMessage, view: ViewContext): TemplateResult {
  const agent = message.agentId ? view.agents?.[message.agentId] : undefined;
  const name = agentName(message.agentId, view, message.senderName);
  const avatar = agent?.avatar ?? message.senderAvatar;
  const continued = view.continued.has(message.key);
  return html`<div part="message message-agent" class="message ${continued ? 'continued' : ''}" data-agent=${message.agentId ?? ''}>
    ${
      continued
        ? html`<span class="avatar-space"></span>`
        : avatar
          ? html`<img part="avatar" src=${avatar} alt="" referrerpolicy="no-referrer" />`
          : html`<span part="avatar" aria-hidden="true">${name.slice(0, 1).toUpperCase()}</span>`
    }
    <div class="body">
      <span part="name" class=${continued ? 'visually-hidden' : ''}>${name}</span>
      ${message.blocks.slice(0, message.blocksBeforeText).map((b) => renderBlock(b, view))}
      ${
        message.text || message.streaming
          ? html`<div part="bubble" class=${message.streaming ? 'cursor' : ''}>
            <svc-markdown
              throttle=${REPLY_RENDER_INTERVAL_MS}
              .imageHosts=${view.imageHosts}
              copy-label=${view.labels.copy}
              copied-label=${view.labels.copied}
              ${markdownText(message.text, message.streaming)}
            ></svc-markdown>
          </div>`
          : nothing
      }
      ${message.blocks.slice(message.blocksBeforeText).map((b) => renderBlock(b, view))}
      ${message.delegations.map((d) => renderDelegation(d, name, view))}
      ${message.attachment ? renderAttachment(message, view) : nothing}
      ${renderCards(message, view)}
      ${message.interrupted ? html`<span class="meta">${view.labels.interrupted}</span>` : nothing}
      ${message.error ? renderReplyFailed(message, view) : nothing}
      ${finished(message) ? renderReplyActions(message, view) : nothing}
      ${
        view.suggesting === message.key
          ? renderPrompts(message.suggestions, view.suggest, view.labels.suggestions, 'suggestions', 'suggestion')
          : nothing
      }
    </div>
  </div>`;
}

/** The cards a reply holds: a payment, information to collect, a connector to set up. */
function renderCards(message: ChatMessage, view: ViewContext): TemplateResult {
  return html`${
    message.payment
      ? html`<svc-payment-gate part="card payment-card" exportparts=${CARD_EXPORTS} lang=${view.lang} dir=${view.dir} .payment=${message.payment.gate}
          status=${message.payment.status}></svc-payment-gate>`
      : nothing
  }
    ${message.infoCollect.map(
      (
        card,
      ) => html`<svc-info-collect part="card info-card" exportparts=${CARD_EXPORTS} lang=${view.lang} dir=${view.dir} .request=${card.request}
        ?answered=${card.answered} .answer=${card.answer}></svc-info-collect>`,
    )}
    ${message.connectorSetup.map(
      (
        card,
      ) => html`<svc-connector-setup part="card connector-card" exportparts=${CARD_EXPORTS} lang=${view.lang} dir=${view.dir} .request=${card.request}
        ?answered=${card.answered}></svc-connector-setup>`,
    )}`;
}

/** A reply that failed, said plainly (the detail went to `svc-error` and the console), the newest with a Retry. */
function renderReplyFailed(message: ChatMessage, view: ViewContext): TemplateResult {
  // The service's sentence (every runtime words its failures for a visitor), by the agent that failed.
  const name = agentName(message.agentId, view, message.senderName);
  // No sentence from the service (the log's stand-in, in English): the chat's own, in its language.
  const reason = message.error && message.error !== TURN_FAILED ? asSentence(message.error) : view.labels.replyFailed;
  return html`<span part="message-error" role="alert">${view.labels.replyFailedBy(name, reason)}
    ${
      view.failedReply === message.key
        ? html`<button part="retry-button" type="button" @click=${() => view.retryReply()}>${view.labels.retry}</button>`
        : nothing
    }
  </span>`;
}

/**
 * A reason shown as a sentence: the service words some of its own in lowercase without a final period
 * (`the service stopped during this reply`). The first letter is capitalised, and a period added after a final
 * Latin letter or digit (a reason in Chinese or Arabic keeps its own punctuation).
 */
function asSentence(reason: string): string {
  return reason.replace(/^./, (first) => first.toUpperCase()) + (/[a-z\d]$/i.test(reason) ? '.' : '');
}

/** A block of a reply other than its text: thinking (when shown), a tool call or an image. */
function renderBlock(block: ContentBlock, view: ViewContext): TemplateResult | typeof nothing {
  if (block.type === 'thinking' && view.showThinking) {
    return html`<details part="thinking">
      <summary>${view.labels.thoughts}</summary>
      <div class="thinking-text">${block.thinking}</div>
    </details>`;
  }
  if (block.type === 'tool_use' && block.client) return view.pageToolCall(block);
  if (block.type === 'tool_use') {
    return html`<details part="tool-call">
      <summary>${view.labels.toolInput(block.name)}</summary>
      <pre>${JSON.stringify(block.input, null, 2)}</pre>
    </details>`;
  }
  return block.type === 'image' ? renderImage(block, view) : nothing;
}

/** "Aria → Scout: task", read as a sentence. */
function renderDelegation(delegation: Delegation, from: string, view: ViewContext): TemplateResult {
  const fromName = agentName(delegation.fromAgentId, view, from);
  const to = agentName(delegation.agentId, view, delegation.agentName ?? delegation.agentId);
  return html`<p part="delegation" role="note" aria-label=${view.labels.handover(fromName, to, delegation.task)}>
    <span aria-hidden="true"><strong>${fromName}</strong> → <strong>${to}</strong>${delegation.task ? `: ${delegation.task}` : ''}</span>
  </p>`;
}

/**
 * Images (an agent's, a visitor's image parts) load only from the allowed hosts, as markdown images do
 * (`imageAllowed`); others become links.
 */
function renderImage(block: ImageBlock, view: ViewContext): TemplateResult | typeof nothing {
  const url = safeUrl(block.source.url);
  if (!url) return nothing;
  return imageAllowed(url.href, view.imageHosts)
    ? renderZoomable(url.href, view)
    : html`<a href=${url.href} target="_blank" rel="noopener noreferrer">${url.href}</a>`;
}

/** An image that opens larger on click (or Enter / Space: it is a button). */
function renderZoomable(url: string, view: ViewContext): TemplateResult {
  return html`<button part="image-button" type="button" aria-label=${view.labels.openImage}
    @click=${(e: Event) => void view.images.show(url, view.labels.image, e.currentTarget as HTMLElement)}>
    <img part="image" src=${url} alt="" loading="lazy" referrerpolicy="no-referrer" />
  </button>`;
}

function renderAttachment(message: ChatMessage, view: ViewContext): TemplateResult {
  const file = message.attachment!;
  const busy = view.downloads.busy.has(message.id);
  const size = typeof file.size === 'number' ? formatBytes(file.size, view.lang) : '';
  return html`<div part="file">
    <span part="file-icon" aria-hidden="true">${fileIcon}</span>
    <span class="file-text">
      <span part="file-name">${file.name}</span>
      ${size ? html`<span class="meta">${size}</span>` : nothing}
    </span>
    <button class="icon-button" part="download-button" type="button" ?disabled=${busy} aria-label=${view.labels.download(file.name)}
      @click=${() => void view.downloads.download(message.id, file)}>
      ${busy ? view.labels.downloading : downloadIcon}
    </button>
    ${
      view.downloads.failed.has(message.id)
        ? html`<span part="message-error" role="alert">${view.labels.downloadFailed(file.name)}</span>`
        : nothing
    }
  </div>`;
}

function renderPart(part: MessagePart, view: ViewContext): TemplateResult | typeof nothing {
  // A visitor's image part follows the same allowlist as an agent's image: another host becomes a link.
  if (part.type === 'image_url')
    return renderImage({ type: 'image', source: { type: 'url', url: part.image_url.url } }, view);
  if (part.type === 'file') {
    const url = safeUrl(part.file.file_url);
    return html`<a part="file-chip" href=${url?.href ?? nothing} target="_blank" rel="noopener noreferrer"
      download=${part.file.filename}>${fileIcon}<span>${part.file.filename}</span></a>`;
  }
  return nothing;
}

/** Agent messages that directly follow a message of the same agent: one avatar and name per run. */
export function continuedRuns(messages: readonly ChatMessage[]): Set<string> {
  const continued = new Set<string>();
  for (let i = 1; i < messages.length; i++) {
    const [previous, message] = [messages[i - 1]!, messages[i]!];
    if (message.role === 'agent' && previous.role === 'agent' && previous.agentId === message.agentId) {
      continued.add(message.key);
    }
  }
  return continued;
}

/**
 * "Aria · Typing…": what the first agent that is not idle is doing, or nothing. The agent is named as its
 * messages are: by the chat's `agents`, else by the name its records carry (`names`).
 */
export function agentStatusLine(
  statuses: Readonly<Record<string, AgentStatus>>,
  names: Readonly<Record<string, string>>,
  view: Pick<ViewContext, 'labels' | 'agents'>,
): string {
  const { labels } = view;
  for (const [agentId, status] of Object.entries(statuses)) {
    if (status === 'idle') continue;
    const what = status === 'thinking' ? labels.thinking : status === 'typing' ? labels.typing : labels.usingTool;
    return `${agentName(agentId, view, names[agentId])} · ${what}`;
  }
  return '';
}
