import { extname } from 'node:path';
import { safeFilename } from './file-names.js';

/** Media types of the files the service stores and serves, and how it serves them. */

/** `type/subtype` with optional parameters; anything else could break or inject a response header. */
export const MEDIA_TYPE =
  /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}(\s*;\s*[a-z0-9_.-]+=[a-z0-9_.-]+)*$/i;

const MIME_TYPES: Record<string, string> = {
  '.txt': 'text/plain',
  '.log': 'text/plain',
  '.md': 'text/markdown',
  '.csv': 'text/csv',
  '.tsv': 'text/tab-separated-values',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.css': 'text/css',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.ts': 'text/plain',
  '.py': 'text/x-python',
  '.json': 'application/json',
  '.xml': 'application/xml',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.pdf': 'application/pdf',
  '.zip': 'application/zip',
  '.gz': 'application/gzip',
  '.mp3': 'audio/mpeg',
  '.wav': 'audio/wav',
  '.ogg': 'audio/ogg',
  '.mp4': 'video/mp4',
  '.webm': 'video/webm',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.pptx': 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
};

export function mimeTypeOf(filename: string): string {
  return MIME_TYPES[extname(filename).toLowerCase()] ?? 'application/octet-stream';
}

export function isTextType(mimeType: string): boolean {
  return (
    mimeType.startsWith('text/') ||
    ['application/json', 'application/xml', 'application/yaml', 'image/svg+xml'].includes(mimeType)
  );
}

/**
 * Types a browser may show inline from our origin. HTML, SVG and anything unknown could run script in
 * the service's origin, so they are always downloaded instead.
 */
export function isInlineSafe(mimeType: string): boolean {
  const essence = mimeType.split(';')[0]!.trim().toLowerCase();
  if (essence === 'image/svg+xml') return false;
  return /^(image|audio|video)\//.test(essence) || essence === 'application/pdf' || essence === 'text/plain';
}

/** `attachment; filename*=UTF-8''…` (RFC 6266 / 8187) naming the file by the file name rule, for any name. */
export function contentDisposition(filename: string, kind: 'attachment' | 'inline' = 'attachment'): string {
  const encoded = encodeURIComponent(safeFilename(filename)).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${kind}; filename*=UTF-8''${encoded}`;
}
