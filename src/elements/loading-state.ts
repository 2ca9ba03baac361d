import { h, iconNode, setAttributes } from '../internal/dom.js';
import { SEND_PATH } from '../internal/icon-paths.js';
import type { LauncherLabels } from '../internal/labels/launcher.js';
import type { EarlyInput } from './chat-panel.js';

/**
 * The panel of `<svc-chat>` while its file loads, drawn with DOM calls (Lit comes with the panel): it says so
 * (or that the service cannot be reached, when the file did not load), and the visitor can already write, and
 * send: `early` keeps what they typed and whether they sent it, and the panel takes both over when it arrives
 * (with the focus).
 */
export class LoadingState {
  readonly early: EarlyInput = { draft: '', send: false };
  readonly #notice = h('div', { part: 'notice', role: 'status' });
  readonly #input: HTMLTextAreaElement;
  readonly #sendButton: HTMLButtonElement;
  readonly #nodes: Element[];

  constructor() {
    const send = (event: Event) => {
      event.preventDefault();
      this.early.send = !!this.early.draft.trim();
    };
    this.#input = h('textarea', {
      part: 'input',
      rows: '1',
      oninput: () => {
        this.early.draft = this.#input.value;
      },
      onkeydown: (e) => {
        const key = e as KeyboardEvent;
        if (key.key === 'Enter' && !key.shiftKey && !key.isComposing) send(e);
      },
    });
    this.#sendButton = h('button', { part: 'send-button', type: 'submit' }, iconNode(SEND_PATH));
    const composer = h('form', { part: 'composer', onsubmit: send }, this.#input, this.#sendButton);
    this.#nodes = [this.#notice, h('div', { class: 'loading' }), composer];
  }

  /** Puts the loading state in `panel` (after its header), in the language of `labels`. */
  draw(panel: Element, labels: LauncherLabels, failed: boolean): void {
    this.#notice.textContent = failed ? labels.networkError : labels.connecting;
    setAttributes(this.#input, { 'aria-label': labels.placeholder, placeholder: labels.placeholder });
    setAttributes(this.#sendButton, { 'aria-label': labels.send, title: labels.send });
    if (this.#notice.parentNode !== panel) panel.append(...this.#nodes);
  }

  /** The panel has arrived: it takes the place of the loading state. */
  remove(): void {
    for (const node of this.#nodes) node.remove();
  }
}
