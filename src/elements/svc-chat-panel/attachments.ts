import { html, nothing, type ReactiveController, type ReactiveControllerHost, type TemplateResult } from 'lit';
import { type FilesClient, toPart } from '../../client/files.js';
import { fileIcon, paperclipIcon } from '../../internal/content-icons.js';
import { closeIcon } from '../../internal/icons.js';
import type { ChatLabels } from '../../labels/label-types.js';
import type { MessagePart } from '../../protocol/types.js';

/** The service's upload limit (413 `file too large (limit 20 MB)`): larger files are refused before uploading. */
export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;
/** Files one message may carry. */
export const MAX_ATTACHMENTS = 10;

/** A file in the composer: uploading, ready to be sent as a part, or failed. */
export interface PendingFile {
  readonly name: string;
  readonly size: number;
  /** An object URL of an image, for its thumbnail; released when the file leaves the composer. */
  readonly preview?: string;
  readonly status: 'uploading' | 'ready' | 'failed';
  readonly part?: MessagePart;
  readonly error?: string;
  /** Aborts the upload (harmless once it is over); the file's identity while its other fields change. */
  readonly upload: AbortController;
}

/** What the attachments need of the chat's panel. */
export interface AttachmentsHost extends ReactiveControllerHost {
  /** Every label of the chat's language, with the page's overrides. */
  readonly chatLabels: ChatLabels;
  /** The language of sizes. */
  readonly languageTag: string;
  /** Accepted kinds, as a file input's `accept`: `image/*,.pdf,text/csv`; empty accepts every kind. */
  accept?: string;
}

/**
 * The composer's attachments: files chosen with the button, dropped on the panel or pasted are checked
 * (size, kind), uploaded at once, and shown with a preview and a remove button until the message is sent
 * with their parts. The client's upload uses `fetch`, which reports no progress, so an upload shows an
 * indeterminate bar beside the file's size.
 */
export class AttachmentsController implements ReactiveController {
  files: readonly PendingFile[] = [];
  /** Why files were refused, in plain words; cleared by the next change. */
  notice = '';
  /** Files are being dragged over the panel. */
  dragging = false;

  constructor(
    private readonly host: AttachmentsHost,
    /** The files client of the chat; without one nothing can be attached. */
    private readonly filesClient: () => FilesClient | undefined,
  ) {
    host.addController(this);
  }

  get uploading(): boolean {
    return this.files.some((f) => f.status === 'uploading');
  }

  /** The parts of the uploaded files, in the order they were added. */
  get parts(): MessagePart[] {
    // Only a file that is ready has its part.
    return this.files.flatMap((f) => f.part ?? []);
  }

  /** Checks and uploads files; the refused ones are named in `notice`. */
  add(list: Iterable<File>): void {
    const labels = this.host.chatLabels;
    const problems: string[] = [];
    for (const file of list) {
      if (this.files.length >= MAX_ATTACHMENTS) {
        problems.push(labels.tooManyFiles(MAX_ATTACHMENTS));
        break;
      }
      const problem = this.#problem(file, labels);
      if (problem) problems.push(problem);
      else this.#upload(file);
    }
    this.notice = problems.join(' ');
    this.host.requestUpdate();
  }

  /** Takes a file out of the composer, stopping its upload. */
  remove(file: PendingFile): void {
    this.#release(file);
    this.files = this.files.filter((f) => f.upload !== file.upload);
    this.notice = '';
    this.host.requestUpdate();
  }

  /** Empties the composer (after a send: the sent message shows the uploaded files by their URLs). */
  clear(): void {
    for (const file of this.files) this.#release(file);
    this.files = [];
    this.notice = '';
    this.host.requestUpdate();
  }

  hostDisconnected(): void {
    this.clear();
    this.dragging = false;
  }

  readonly onDragOver = (event: DragEvent): void => {
    if (!carriesFiles(event.dataTransfer)) return;
    event.preventDefault();
    event.dataTransfer!.dropEffect = 'copy';
    if (!this.dragging) {
      this.dragging = true;
      this.host.requestUpdate();
    }
  };

  readonly onDragLeave = (event: DragEvent): void => {
    // Moving between the panel's own children is no leaving.
    const panel = event.currentTarget as Node;
    if (event.relatedTarget instanceof Node && panel.contains(event.relatedTarget)) return;
    this.dragging = false;
    this.host.requestUpdate();
  };

  readonly onDrop = (event: DragEvent): void => {
    if (!carriesFiles(event.dataTransfer)) return;
    event.preventDefault();
    this.dragging = false;
    this.add(event.dataTransfer!.files);
  };

  readonly onPaste = (event: ClipboardEvent): void => {
    const files = event.clipboardData?.files;
    if (!files?.length) return;
    // Pasted files are attached; pasted text still goes into the input.
    event.preventDefault();
    this.add(files);
  };

  #problem(file: File, labels: ChatLabels): string | undefined {
    if (!accepts(this.host.accept ?? '', file)) return labels.fileTypeNotAccepted(file.name);
    if (file.size > MAX_UPLOAD_BYTES) {
      return labels.fileTooLarge(file.name, formatBytes(MAX_UPLOAD_BYTES, this.host.languageTag));
    }
    if (file.size === 0) return labels.fileEmpty(file.name);
    return undefined;
  }

  #upload(file: File): void {
    const preview = file.type.startsWith('image/') ? URL.createObjectURL(file) : undefined;
    const upload = new AbortController();
    this.files = [...this.files, { name: file.name, size: file.size, preview, status: 'uploading', upload }];
    const client = this.filesClient();
    if (!client) {
      this.#settle(upload, { status: 'failed', error: this.host.chatLabels.signInRequired });
      return;
    }
    client.upload(file, { signal: upload.signal }).then(
      (uploaded) => this.#settle(upload, { status: 'ready', part: toPart(uploaded) }),
      (err: unknown) => {
        if (upload.signal.aborted) return;
        const reason = err instanceof Error ? err.message : String(err);
        this.#settle(upload, { status: 'failed', error: this.host.chatLabels.uploadFailed(file.name, reason) });
      },
    );
  }

  #settle(upload: AbortController, fields: Partial<PendingFile>): void {
    this.files = this.files.map((f) => (f.upload === upload ? { ...f, ...fields } : f));
    this.host.requestUpdate();
  }

  #release(file: PendingFile): void {
    file.upload.abort();
    if (file.preview) URL.revokeObjectURL(file.preview);
  }
}

function carriesFiles(data: DataTransfer | null): boolean {
  return !!data?.types.includes('Files');
}

/** The rules of a file input's `accept`: `.ext`, `type/*` or `type/subtype`, comma separated. */
export function accepts(accept: string, file: File): boolean {
  const rules = accept
    .split(',')
    .map((rule) => rule.trim().toLowerCase())
    .filter(Boolean);
  if (!rules.length) return true;
  const name = file.name.toLowerCase();
  const type = file.type.toLowerCase();
  return rules.some((rule) =>
    rule.startsWith('.')
      ? name.endsWith(rule)
      : rule.endsWith('/*')
        ? type.startsWith(rule.slice(0, -1))
        : type === rule,
  );
}

/** `20 MB`, `1.5 KB`, in the reader's language. */
export function formatBytes(bytes: number, lang: string): string {
  const [unit, size] =
    bytes >= 1024 * 1024
      ? (['megabyte', bytes / (1024 * 1024)] as const)
      : bytes >= 1024
        ? (['kilobyte', bytes / 1024] as const)
        : (['byte', bytes] as const);
  // "137 bytes", not the short form's "137 byte"; "1.5 kB" and "20 MB" read well short.
  const options = {
    style: 'unit',
    unit,
    unitDisplay: unit === 'byte' ? 'long' : 'short',
    maximumFractionDigits: 1,
  } as const;
  try {
    return new Intl.NumberFormat(lang, options).format(size);
  } catch {
    return new Intl.NumberFormat('en', options).format(size);
  }
}

/** The attach button and its hidden file input (the button's next sibling), for the composer. */
export function renderAttachButton(
  attachments: AttachmentsController,
  labels: ChatLabels,
  accept: string | undefined,
): TemplateResult {
  return html`<button class="icon-button" part="attach-button" type="button" aria-label=${labels.attach} title=${labels.attach}
      @click=${(e: Event) => ((e.currentTarget as HTMLElement).nextElementSibling as HTMLInputElement).click()}>
      ${paperclipIcon}
    </button>
    <input type="file" multiple hidden accept=${accept ?? nothing} tabindex="-1" aria-hidden="true"
      @change=${(e: Event) => {
        const input = e.target as HTMLInputElement;
        attachments.add(input.files ?? []);
        input.value = '';
      }} />`;
}

/** The files waiting to be sent (above the input) and why any were refused. */
export function renderAttachments(
  attachments: AttachmentsController,
  labels: ChatLabels,
  lang: string,
): TemplateResult | typeof nothing {
  const { files, notice } = attachments;
  if (!files.length && !notice) return nothing;
  return html`<div part="attachments">
    ${
      files.length
        ? html`<ul part="attachment-list" aria-label=${labels.attach}>
          ${files.map((file) => renderPending(attachments, file, labels, lang))}
        </ul>`
        : nothing
    }
    ${notice ? html`<p part="attachment-error" role="alert">${notice}</p>` : nothing}
  </div>`;
}

function renderPending(
  attachments: AttachmentsController,
  file: PendingFile,
  labels: ChatLabels,
  lang: string,
): TemplateResult {
  // A boolean binding writes "true" or "false", as `aria-busy` wants.
  const uploading = file.status === 'uploading';
  return html`<li part="attachment" class=${file.status} aria-busy=${uploading}>
    ${
      file.preview
        ? html`<img part="attachment-preview" src=${file.preview} alt="" />`
        : html`<span part="attachment-icon" aria-hidden="true">${fileIcon}</span>`
    }
    <span class="attachment-text">
      <span part="attachment-name">${file.name}</span>
      <span class="attachment-meta">
        ${
          uploading
            ? html`<progress part="upload-progress" aria-label=${`${labels.uploading} ${file.name}`}></progress>`
            : nothing
        }
        ${formatBytes(file.size, lang)}
      </span>
      ${file.error ? html`<span part="attachment-error" role="alert">${file.error}</span>` : nothing}
    </span>
    <button class="icon-button" part="remove-attachment" type="button" aria-label=${labels.removeFile(file.name)}
      title=${labels.removeFile(file.name)} @click=${() => attachments.remove(file)}>${closeIcon}</button>
  </li>`;
}

/** Shown over the panel while files are dragged over it. */
export function renderDropZone(
  attachments: AttachmentsController,
  labels: ChatLabels,
): TemplateResult | typeof nothing {
  return attachments.dragging ? html`<div part="drop-zone" aria-hidden="true">${labels.dropFiles}</div>` : nothing;
}
