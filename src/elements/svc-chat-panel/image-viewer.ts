import { html, nothing, type ReactiveController, type ReactiveControllerHost, type TemplateResult } from 'lit';
import { closeIcon } from '../../internal/icons.js';
import type { ChatLabels } from '../../labels/label-types.js';

/** Gives the larger image its proportions, from which its CSS sizes it to the viewport. */
function fit(event: Event): void {
  const image = event.target as HTMLImageElement;
  if (image.naturalHeight) image.style.setProperty('--ratio', String(image.naturalWidth / image.naturalHeight));
}

/**
 * Shows an image of the conversation as large as the viewport allows, in a modal `<dialog>` on a dark backdrop: focus moves into it, Escape, the close
 * button or a click beside the image close it, and focus returns to the image that opened it.
 */
export class ImageViewerController implements ReactiveController {
  #image?: { url: string; alt: string };
  #opener?: HTMLElement;

  constructor(private readonly host: ReactiveControllerHost & { renderRoot: ParentNode }) {
    host.addController(this);
  }

  /** Looked up rather than kept by the `ref` directive, which the script-tag bundle would otherwise carry. */
  get #dialog(): HTMLDialogElement | null {
    return this.host.renderRoot.querySelector('dialog[part="lightbox"]');
  }

  get open(): boolean {
    return !!this.#image;
  }

  async show(url: string, alt: string, opener?: HTMLElement): Promise<void> {
    this.#image = { url, alt };
    this.#opener = opener;
    this.host.requestUpdate();
    await this.host.updateComplete;
    const dialog = this.#dialog;
    if (dialog && !dialog.open) dialog.showModal();
  }

  close(): void {
    this.#dialog?.close();
  }

  hostDisconnected(): void {
    this.#image = undefined;
  }

  #closed(): void {
    this.#image = undefined;
    this.host.requestUpdate();
    this.#opener?.focus();
    this.#opener = undefined;
  }

  render(labels: ChatLabels): TemplateResult | typeof nothing {
    const image = this.#image;
    if (!image) return nothing;
    return html`<dialog
      part="lightbox"
      aria-label=${image.alt || labels.image}
      @close=${() => this.#closed()}
      @click=${(e: Event) => e.target === e.currentTarget && this.close()}
      @keydown=${(e: KeyboardEvent) => {
        // Escape closes the image only, not a launcher's panel around it.
        if (e.key === 'Escape') e.stopPropagation();
      }}
    >
      <button part="lightbox-close" type="button" aria-label=${labels.closeImage} title=${labels.closeImage}
        @click=${() => this.close()}>${closeIcon}</button>
      <img part="lightbox-image" src=${image.url} alt=${image.alt} referrerpolicy="no-referrer" @load=${fit} />
    </dialog>`;
  }
}
