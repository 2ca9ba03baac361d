import { css, html, nothing, type ReactiveController, type ReactiveControllerHost, type TemplateResult } from 'lit';
import type { ChatStore } from '../../chat/chat-store.js';
import type { ChatLabels } from '../../labels/label-types.js';
import { token } from '../../theme/theme.js';

/** What the handoff's view needs of the chat's panel. */
type Host = ReactiveControllerHost &
  HTMLElement & {
    readonly renderRoot: ParentNode;
    readonly chatLabels: ChatLabels;
    readonly store: ChatStore | undefined;
    /** The chat's `handoff` setting: offer "Talk to a person". */
    readonly handoff: boolean;
  };

/**
 * A person of the site's staff in the conversation, as the visitor sees and hears it (docs/elements.md, a person
 * in the conversation): one polite status line says who answers (waiting for a person, who joined, the assistant
 * again, nobody there), the header names the person while they hold it, "Talk to a person" asks for one where the
 * chat offers it (and again after nobody came), and each message a person writes is read out as it arrives.
 */
export class PersonHandoffController implements ReactiveController {
  /** The newest person's message already shown: only later ones are read out (not those a history page brings). */
  #heard?: string;
  #conversation?: string | null;

  constructor(private readonly host: Host) {
    host.addController(this);
  }

  hostUpdated(): void {
    const store = this.host.store;
    if (!store) return;
    const said = store.messages.findLast((m) => m.operator);
    // Heard live: what history brings (before the stream is live) is only marked heard.
    const fresh = this.#conversation === store.conversationId && store.connection === 'open';
    this.#conversation = store.conversationId;
    if (!said || said.id === this.#heard) return;
    this.#heard = said.id;
    const region = this.host.renderRoot.querySelector('[part~=announcer]');
    if (fresh && region)
      region.textContent = this.host.chatLabels.replyFinished(
        this.host.chatLabels.personBadge(said.operator!.name),
        said.text,
      );
  }

  /** The header's badge while a person holds the conversation (only then is one named: `HandoffStatus`). */
  badge(labels: ChatLabels): TemplateResult | typeof nothing {
    const operator = this.host.store?.handoff.operator;
    return operator ? html`<span part="person-badge">${labels.personBadge(operator.name)}</span>` : nothing;
  }

  /** The status line (always there, so its changes are announced) and the button that asks for a person. */
  render(store: ChatStore, labels: ChatLabels): TemplateResult {
    const { state, operator, ended } = store.handoff;
    const line =
      state === 'waiting'
        ? labels.handoffWaiting
        : state === 'human'
          ? labels.personJoined(operator?.name ?? '')
          : ended === 'unanswered'
            ? labels.nobodyThere
            : ended
              ? labels.backToAgent
              : '';
    const ask = state === 'agent' && (this.host.handoff || ended === 'unanswered') && store.conversationId;
    return html`<div part="handoff" class=${line || ask ? '' : 'visually-hidden'}>
      <span role="status" aria-live="polite">${line}</span>${
        ask
          ? html`<button part="handoff-button" type="button" @click=${() => void store.requestHandoff()}>${labels.talkToPerson}</button>`
          : nothing
      }
    </div>`;
  }
}

export const personHandoffStyles = css`
  [part~='handoff'] {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: 8px;
    padding: 0 16px;
    font-size: 0.85em;
    color: ${token('colorMuted')};
  }
  [part~='person-badge'] {
    padding: 2px 8px;
    border-radius: 999px;
    background: ${token('colorSurface')};
    font-size: 0.85em;
    white-space: nowrap;
  }
  [part~='handoff-button'] {
    padding: 4px 12px;
    border: 1px solid ${token('colorBorder')};
    border-radius: 999px;
    background: ${token('colorBg')};
    color: ${token('colorText')};
    font: inherit;
    cursor: pointer;
  }
`;
