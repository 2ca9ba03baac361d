import type { ChatStore } from '../../chat/chat-store.js';
import type { ChatClient } from '../../client/chat.js';
import { FilesClient } from '../../client/files.js';
import type { HttpClient } from '../../client/http.js';
import type { ChatLabels } from '../../labels/label-types.js';
import type { ViewContext } from '../message-view/message-view.js';
import { AttachmentsController, type AttachmentsHost } from './attachments.js';
import { FileDownloadController } from './file-download.js';
import { ImageViewerController } from './image-viewer.js';
import { ReadAloudController } from './read-aloud.js';

/** What the rich content needs of the chat's panel. */
export interface RichContentHost extends AttachmentsHost {
  readonly renderRoot: ParentNode;
}

/** What the controllers use of the chat attached. */
interface Services {
  http: HttpClient;
  files: FilesClient;
  /** The conversation shown now. */
  readonly conversationId: string | null;
}

/**
 * What `<svc-chat>` shows besides text, each a controller of its own: the composer's attachments, file
 * downloads, reading aloud and the image viewer, all using the chat's client once one is attached.
 */
export class RichContent {
  readonly attachments: AttachmentsController;
  readonly #readAloud: ReadAloudController;
  readonly #downloads: FileDownloadController;
  readonly #images: ImageViewerController;
  #services?: Services;

  constructor(host: RichContentHost) {
    this.attachments = new AttachmentsController(host, () => this.#services?.files);
    const services = () => this.#services;
    this.#readAloud = new ReadAloudController(host, services);
    this.#downloads = new FileDownloadController(host, services);
    this.#images = new ImageViewerController(host);
  }

  /** The chat's client and store changed: the controllers use them from now on. */
  attach(chat: ChatClient, store: ChatStore): void {
    this.#services = {
      http: chat.http,
      files: new FilesClient(chat.http),
      get conversationId() {
        return store.conversationId;
      },
    };
  }

  detach(): void {
    this.#services = undefined;
    this.#readAloud.stop();
    this.attachments.clear();
  }

  /** What `renderMessage` needs of these. */
  get view(): Pick<ViewContext, 'readAloud' | 'downloads' | 'images'> {
    return { readAloud: this.#readAloud, downloads: this.#downloads, images: this.#images };
  }

  /** The one audio element of the chat and the image viewer. */
  renderOverlays(labels: ChatLabels) {
    return [this.#readAloud.render(), this.#images.render(labels)];
  }
}
