import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { negotiate } from '@fastify/accept-negotiator';

/** A chunk of the script-tag build, named by its content (`svc-chat-panel.<hash>.js`): the same name, the same bytes. */
const HASHED = /^svc-chat-[\w-]+\.[\w-]{8}\.js$/;
/** How long a browser keeps the entries (`svc-chat.js`, `svc-chat.esm.js`) before it asks again, with their ETag. */
const ENTRY_MAX_AGE_S = 300;

export type Encoding = 'br' | 'gzip' | 'identity';

/** One file of the widget as it is sent: its bytes in each encoding, its ETag and its caching. */
interface WidgetFile {
  bodies: Record<Encoding, Buffer>;
  etag: string;
  cacheControl: string;
}

/**
 * The widget's script-tag files as a CDN serves them: compressed once, at the best level (brotli 11, gzip 9), as a
 * CDN keeps precompressed copies, the first time each is asked for; chunks cached for good (`immutable`: their name
 * changes with their content), the entries for five minutes and then revalidated by their ETag. The folder's files
 * do not change while the service runs (a new build is a new start), so each is read and compressed once.
 */
export class WidgetFiles {
  private readonly files = new Map<string, Promise<WidgetFile>>();

  constructor(private readonly dir: string) {}

  /** The file `name` (a file name checked by the route), or a rejection if there is none. */
  get(name: string): Promise<WidgetFile> {
    let file = this.files.get(name);
    if (!file) {
      file = this.load(name);
      this.files.set(name, file);
      file.catch(() => this.files.delete(name));
    }
    return file;
  }

  private async load(name: string): Promise<WidgetFile> {
    const body = await readFile(join(this.dir, name));
    return {
      bodies: {
        identity: body,
        gzip: gzipSync(body, { level: 9 }),
        br: brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
      },
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
      cacheControl: HASHED.test(name)
        ? 'public, max-age=31536000, immutable'
        : `public, max-age=${ENTRY_MAX_AGE_S}, must-revalidate`,
    };
  }
}

/** The encoding to send for an `Accept-Encoding` header: brotli, else gzip (Fastify's negotiator), else none. */
export const chooseEncoding = (accept: string | undefined): Encoding =>
  (accept && negotiate(accept, ['br', 'gzip'])) || 'identity';
