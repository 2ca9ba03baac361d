import { html, type ReactiveController, type ReactiveControllerHost, type TemplateResult } from 'lit';
import type { ChatLabels } from '../../labels/label-types.js';
import type { SvcMarkdown } from '../svc-markdown/svc-markdown.js';

/** What the announcer needs of the chat's panel: where its replies render, and its labels. */
type Host = ReactiveControllerHost & HTMLElement & { readonly renderRoot: ParentNode; readonly chatLabels: ChatLabels };

/**
 * What a screen reader hears of a reply. The conversation is a `log` that is not live: a streamed reply
 * grows by many small deltas, and a live log would be read out piece by piece. Instead, when a turn has
 * ended, each reply of it is put once and whole (its rendered text, or the names of its cards) into one
 * polite status region. A failed turn is not repeated here: its error is an alert of its own.
 */
export class AnnouncerController implements ReactiveController {
  /** A turn ended: its replies are announced after the next render, which shows the turn as it ended. */
  #turnEnded = false;

  constructor(private readonly host: Host) {
    host.addController(this);
    // The chat's own event, on the chat itself: the listener lives as long as the element.
    host.addEventListener('svc-turn-complete', (event) => {
      if (event.detail.subtype === 'success') this.#turnEnded = true;
    });
  }

  hostUpdated(): void {
    if (!this.#turnEnded) return;
    this.#turnEnded = false;
    void this.#announceReplies();
  }

  /** The rows after the visitor's last message, once rendered: "Aria: the reply", one after another. */
  async #announceReplies(): Promise<void> {
    const rows = [...this.host.renderRoot.querySelectorAll('[part~=message]')];
    const turn = rows.slice(rows.findLastIndex((row) => row.matches('[part~=message-user]')) + 1);
    const spoken: string[] = [];
    for (const row of turn) {
      if (!row.matches('[part~=message-agent]')) continue;
      const markdown = row.querySelector<SvcMarkdown>('svc-markdown');
      await markdown?.updateComplete;
      const cards = [...row.querySelectorAll('[part~=card]')].map((card) =>
        card.shadowRoot?.querySelector('[part~=base]')?.getAttribute('aria-label'),
      );
      const said = [markdown?.plainText, ...cards].filter(Boolean).join(' ');
      if (said)
        spoken.push(this.host.chatLabels.replyFinished(row.querySelector('[part~=name]')?.textContent ?? '', said));
    }
    // A new text node each time: the same words twice are announced twice.
    const region = this.host.renderRoot.querySelector('[part~=announcer]');
    if (region && spoken.length) region.textContent = spoken.join('\n');
  }

  render(): TemplateResult {
    return html`<div part="announcer" class="visually-hidden" role="status" aria-live="polite" aria-atomic="true"></div>`;
  }
}
