import type { ConversationFile, MessagePart, UploadedFile } from '../protocol/conversation-types.js';
import type { RequestOptions, SvcClientConfig } from './config.js';
import { type HttpClient, httpOf, path } from './http.js';

/** What `upload` takes: a Blob or File, or raw data with a name. */
export type UploadInput =
  | Blob
  | { data: Blob | ArrayBuffer | Uint8Array | string; filename: string; contentType?: string };

export interface UploadOptions extends RequestOptions {
  agentId?: string;
  chatGroupId?: string;
  /** Overrides the file's own name. */
  filename?: string;
  /** Overrides the file's own type. */
  contentType?: string;
}

/** The part type an upload is sent as. */
export type PartType = MessagePart['type'];

/**
 * An upload as a sendable part, without a call: images become `image_url`, everything else `file`;
 * `as: 'text'` gives a text part holding a markdown link to the file.
 */
export function toPart(uploaded: UploadedFile, as?: PartType): MessagePart {
  const type = as ?? (uploaded.mimeType.startsWith('image/') ? 'image_url' : 'file');
  switch (type) {
    case 'image_url':
      return { type, image_url: { url: uploaded.url } };
    case 'file':
      return { type, file: { filename: uploaded.filename, file_url: uploaded.url } };
    case 'text':
      return { type, text: `[${uploaded.filename}](${uploaded.url})` };
  }
}

/** File upload and the files of a conversation's workspace. */
export class FilesClient {
  readonly http: HttpClient;

  constructor(http: HttpClient | SvcClientConfig = {}) {
    this.http = httpOf(http);
  }

  /** Uploads one file (`multipart/form-data`, field `file`). Not retried: each call stores a new file. */
  async upload(file: UploadInput, opts: UploadOptions = {}): Promise<UploadedFile> {
    const { agentId, chatGroupId, filename, contentType, ...request } = opts;
    const { blob, name } = asBlob(file, contentType);
    const form = new FormData();
    // Option fields come before the file, so a streaming multipart parser sees them first.
    for (const [key, value] of Object.entries({ agentId, chatGroupId, filename, contentType })) {
      if (value !== undefined) form.append(key, value);
    }
    form.append('file', blob, filename ?? name);
    return this.http.json({ ...request, method: 'POST', path: '/files/upload', form });
  }

  /** Uploads, then returns the sendable part (`opts.as` forces its type). */
  async uploadPart(file: UploadInput, opts: UploadOptions & { as?: PartType } = {}): Promise<MessagePart> {
    const { as, ...uploadOptions } = opts;
    return toPart(await this.upload(file, uploadOptions), as);
  }

  toPart(uploaded: UploadedFile, as?: PartType): MessagePart {
    return toPart(uploaded, as);
  }

  /** Reads a file of the conversation's workspace: text as `utf-8`, anything else as `base64`. */
  async readConversationFile(
    conversationId: string,
    filePath: string,
    opts: RequestOptions = {},
  ): Promise<ConversationFile> {
    return this.http.json({
      ...opts,
      method: 'GET',
      path: path`/conversations/${conversationId}/files/read`,
      query: { path: filePath },
    });
  }

  /** Downloads a file of the conversation's workspace (e.g. an agent's attachment) as a Blob. */
  async downloadConversationFile(conversationId: string, filePath: string, opts: RequestOptions = {}): Promise<Blob> {
    return this.http.blob({
      ...opts,
      method: 'GET',
      path: path`/conversations/${conversationId}/files/download`,
      query: { path: filePath },
    });
  }
}

function asBlob(file: UploadInput, contentType: string | undefined): { blob: Blob; name: string } {
  if (file instanceof Blob) {
    const name = (file as Partial<File>).name || 'file';
    return { blob: contentType ? new Blob([file], { type: contentType }) : file, name };
  }
  const type = contentType ?? file.contentType ?? (file.data instanceof Blob ? file.data.type : defaultType(file.data));
  return { blob: new Blob([file.data as BlobPart], { type }), name: file.filename };
}

function defaultType(data: ArrayBuffer | Uint8Array | string): string {
  return typeof data === 'string' ? 'text/plain;charset=utf-8' : 'application/octet-stream';
}
