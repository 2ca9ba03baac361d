import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { FilesClient } from '../../client/files.js';
import type { FileAttachment } from '../../protocol/types.js';

/** The browser reads an object URL after the click that downloads it returns: it is revoked later. */
const REVOKE_AFTER_MS = 60_000;

/**
 * Downloads the files agents produce: the bytes come with the chat's credential
 * (`files.downloadConversationFile`), so a plain link cannot fetch them; the Blob is handed to the browser
 * through an object URL and an `<a download>` click.
 */
export class FileDownloadController implements ReactiveController {
  /** Keys (message ids) of files being downloaded. */
  readonly busy = new Set<string>();
  /** Keys of files whose last download failed. */
  readonly failed = new Set<string>();
  readonly #urls = new Set<string>();
  readonly #requests = new Set<AbortController>();

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly source: () => { files: FilesClient; conversationId: string | null } | undefined,
  ) {
    host.addController(this);
  }

  async download(key: string, file: FileAttachment): Promise<void> {
    const source = this.source();
    if (!source?.conversationId || this.busy.has(key)) return;
    const request = new AbortController();
    this.#requests.add(request);
    this.busy.add(key);
    this.failed.delete(key);
    this.host.requestUpdate();
    try {
      const blob = await source.files.downloadConversationFile(source.conversationId, file.workspacePath, {
        signal: request.signal,
      });
      const url = URL.createObjectURL(blob);
      this.#urls.add(url);
      const link = document.createElement('a');
      link.href = url;
      link.download = file.name;
      link.hidden = true;
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => {
        if (this.#urls.delete(url)) URL.revokeObjectURL(url);
      }, REVOKE_AFTER_MS);
    } catch {
      if (!request.signal.aborted) this.failed.add(key);
    } finally {
      this.#requests.delete(request);
      this.busy.delete(key);
      this.host.requestUpdate();
    }
  }

  hostDisconnected(): void {
    for (const request of this.#requests) request.abort();
    for (const url of this.#urls) URL.revokeObjectURL(url);
    this.#urls.clear();
  }
}
