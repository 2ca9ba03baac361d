import { html, type TemplateResult } from 'lit';
import { sendIcon } from '../internal/icons.js';
import type { LauncherLabels } from '../internal/labels/launcher.js';
import type { EarlyInput } from './chat-panel.js';

/**
 * The panel of `<svc-chat>` while its file loads: it says so (or that the service cannot be reached, when the
 * file did not load), and the visitor can already write, and send: `early` keeps what they typed and whether
 * they sent it, and the panel takes both over when it arrives (with the focus).
 */
export function renderLoading(early: EarlyInput, labels: LauncherLabels, failed: boolean): TemplateResult {
  const send = (event: Event) => {
    event.preventDefault();
    early.send = !!early.draft.trim();
  };
  return html`
    <div part="notice" role="status">${failed ? labels.networkError : labels.connecting}</div>
    <div class="loading"></div>
    <form part="composer" @submit=${send}>
      <textarea part="input" rows="1" aria-label=${labels.placeholder} placeholder=${labels.placeholder}
        .value=${early.draft}
        @input=${(e: Event) => {
          early.draft = (e.target as HTMLTextAreaElement).value;
        }}
        @keydown=${(e: KeyboardEvent) => e.key === 'Enter' && !e.shiftKey && !e.isComposing && send(e)}
      ></textarea>
      <button part="send-button" type="submit" aria-label=${labels.send} title=${labels.send}>${sendIcon}</button>
    </form>
  `;
}
