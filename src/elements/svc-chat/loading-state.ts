import { h, iconNode, setAttributes } from '../../internal/dom.js';
import { CLOSE_PATH, SEND_PATH } from '../../internal/icon-paths.js';
import type { LauncherLabels } from '../../labels/launcher.js';

/**
 * The panel of `<svc-chat>` while its module loads, drawn with DOM calls (Lit comes with the panel): its header
 * (the title and, for a launcher, the close button), a notice that it is on its way (or that the service cannot
 * be reached, when the module did not load), and a field the visitor can already write in, and send from: the
 * panel takes over what they typed and whether they sent it (`typed`, `sent`) when it arrives.
 */
export class LoadingState {
  /** What the visitor typed. */
  typed = '';
  /** They sent it. */
  sent = false;
  readonly section: HTMLElement;
  readonly input: HTMLTextAreaElement;
  readonly #title = h('h2', { part: 'title' });
  readonly #header: HTMLElement;
  readonly #close: HTMLButtonElement;
  readonly #notice = h('div', { part: 'notice', role: 'status' });
  readonly #sendButton = h('button', { part: 'send-button', type: 'submit' }, iconNode(SEND_PATH));

  constructor(close: () => void) {
    const send = (event: Event) => {
      event.preventDefault();
      this.sent = !!this.typed.trim();
    };
    this.input = h('textarea', {
      part: 'input',
      rows: '1',
      oninput: () => {
        this.typed = this.input.value;
      },
      onkeydown: (e) => {
        const key = e as KeyboardEvent;
        if (key.key === 'Enter' && !key.shiftKey && !key.isComposing) send(e);
      },
    });
    this.#close = h(
      'button',
      { class: 'icon-button', part: 'close-button', type: 'button', onclick: close },
      iconNode(CLOSE_PATH),
    );
    this.#header = h('header', { part: 'header' }, this.#title, h('slot', { name: 'header-actions' }));
    const composer = h('form', { part: 'composer', onsubmit: send }, this.input, this.#sendButton);
    this.section = h(
      'section',
      { part: 'panel', 'aria-busy': 'true' },
      this.#header,
      this.#notice,
      h('div', { class: 'loading' }),
      composer,
    );
  }

  /** Draws the loading state in the language of `labels`, with the panel's `title`, as a dialog for a launcher. */
  draw(
    labels: LauncherLabels,
    frame: { title: string; dir: string; launcher: boolean; modal: boolean },
    failed: boolean,
  ): void {
    setAttributes(this.section, {
      dir: frame.dir,
      role: frame.launcher ? 'dialog' : 'region',
      'aria-modal': frame.modal ? 'true' : undefined,
      'aria-label': frame.title,
    });
    this.#title.textContent = frame.title;
    if (!frame.launcher) this.#close.remove();
    else if (!this.#close.parentNode) this.#header.append(this.#close);
    setAttributes(this.#close, { title: labels.close, 'aria-label': labels.close });
    this.#notice.textContent = failed ? labels.networkError : labels.connecting;
    setAttributes(this.input, { 'aria-label': labels.placeholder, placeholder: labels.placeholder });
    setAttributes(this.#sendButton, { 'aria-label': labels.send, title: labels.send });
  }
}
