import { mkdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve, sep } from 'node:path';
import type { ConversationFile, UploadedFile } from '../src/client/types.js';
import type { AppContext } from './context.js';
import { badRequest, HttpError, notFound } from './errors.js';
import { randomId } from './ids.js';
import { isTextType, MEDIA_TYPE, mimeTypeOf } from './media-types.js';
import { insertUpload, uploadById } from './store/files.js';

/*
 * Files on disk, below the service's files folder: uploads in `uploads/<id>` (each described by a row of
 * store/files.ts) and each conversation's agent workspace in `conversations/<id>/`.
 */

export interface StoredUpload {
  path: string;
  filename: string;
  mimeType: string;
  size: number;
}

/** Saves an uploaded file and returns its capability URL (`{baseUrl}/api/v2/files/f_…/<filename>`). */
export function storeUpload(
  ctx: AppContext,
  o: {
    ownerId: string;
    filename: string;
    mimeType: string;
    data: Buffer;
    baseUrl: string;
    agentId?: string;
    chatGroupId?: string;
  },
): UploadedFile {
  const id = randomId('f');
  const filename = safeFilename(o.filename);
  const mimeType = MEDIA_TYPE.test(o.mimeType) ? o.mimeType.toLowerCase() : 'application/octet-stream';
  const dir = join(ctx.filesDir, 'uploads');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, id), o.data);
  const { ownerId, agentId, chatGroupId } = o;
  insertUpload(ctx.db, { id, ownerId, filename, mimeType, size: o.data.length, agentId, chatGroupId });
  return {
    url: `${o.baseUrl}/api/v2/files/${id}/${encodeURIComponent(filename)}`,
    filename,
    size: o.data.length,
    mimeType,
    provider: 'local',
  };
}

export function findUpload(ctx: AppContext, fileId: string): StoredUpload | undefined {
  const upload = uploadById(ctx.db, fileId);
  return upload && { ...upload, path: join(ctx.filesDir, 'uploads', fileId) };
}

const UPLOAD_PATH = /\/api\/v2\/files\/(f_[A-Za-z0-9_-]+)\//;

/**
 * An upload named by its URL, its bytes read on demand. Only the path counts: the file id in it is the capability,
 * whatever origin the caller reached the service at.
 */
export function readUploadAt(
  ctx: AppContext,
  url: string,
): (Omit<StoredUpload, 'path'> & { read(): Buffer }) | undefined {
  const id = URL.canParse(url) ? UPLOAD_PATH.exec(new URL(url).pathname)?.[1] : undefined;
  const upload = id ? findUpload(ctx, id) : undefined;
  if (!upload) return undefined;
  const { path, ...about } = upload;
  return { ...about, read: () => readFileSync(path) };
}

/** The last path segment, without control characters, at most 255 characters; `file` when nothing is left. */
function safeFilename(name: string): string {
  const base = name.split(/[/\\]/).pop() ?? '';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is being removed.
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return clean === '' || clean === '.' || clean === '..' ? 'file' : clean.slice(0, 255);
}

/** The agent workspace of a conversation, created on first use. */
export function conversationDir(ctx: AppContext, conversationId: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(conversationId)) throw new Error(`invalid conversation id ${conversationId}`);
  const dir = join(ctx.filesDir, 'conversations', conversationId);
  mkdirSync(dir, { recursive: true });
  return dir;
}

const ESCAPES = 'path escapes the conversation workspace';

/**
 * The real path of a file inside a conversation's folder. Refuses (400) every way out: absolute paths,
 * `..` segments (also percent-encoded, any number of times), backslashes, NUL, and symlinks whose target
 * lies outside the folder. A missing file (or a folder) is 404.
 */
export function resolveConversationFile(ctx: AppContext, conversationId: string, requested: string): string {
  if (requested === '') throw badRequest('path is required');
  for (const form of decodedForms(requested)) {
    const escapes =
      form.includes('\0') ||
      form.includes('\\') ||
      isAbsolute(form) ||
      /^[a-z]:/i.test(form) ||
      form.split('/').includes('..');
    if (escapes) throw badRequest(ESCAPES);
  }
  const root = realpathSync(conversationDir(ctx, conversationId));
  let real: string;
  try {
    real = realpathSync(resolve(root, requested));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // Missing, under a file instead of a folder, or a symlink loop: nothing to read either way.
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP') throw notFound('file not found');
    throw err;
  }
  if (real !== root && !real.startsWith(root + sep)) throw badRequest(ESCAPES);
  if (!statSync(real).isFile()) throw notFound('file not found');
  return real;
}

/** `path` and each of its percent-decodings until nothing changes; past 8 rounds it is an attack, not a name. */
function decodedForms(path: string): string[] {
  const forms = [path];
  for (let form = path; forms.length <= 8; ) {
    let next: string;
    try {
      next = decodeURIComponent(form);
    } catch {
      return forms;
    }
    if (next === form) return forms;
    forms.push(next);
    form = next;
  }
  throw badRequest(ESCAPES);
}

/** A conversation file as JSON: UTF-8 text for text types that decode cleanly, base64 for the rest. */
export function readConversationFile(ctx: AppContext, realPath: string): ConversationFile {
  const size = statSync(realPath).size;
  if (size > ctx.maxUploadBytes) {
    throw new HttpError(
      413,
      `file too large to read (limit ${formatByteLimit(ctx.maxUploadBytes)}); download it instead`,
    );
  }
  const data = readFileSync(realPath);
  const mimeType = mimeTypeOf(realPath);
  if (isTextType(mimeType)) {
    try {
      return { content: new TextDecoder('utf-8', { fatal: true }).decode(data), encoding: 'utf-8', mimeType };
    } catch {
      // Not valid UTF-8 despite its name: fall through to base64.
    }
  }
  return { content: data.toString('base64'), encoding: 'base64', mimeType };
}

/** `20971520` → `20 MB`, `2048` → `2 KB`: the limit as a person reads it in an error. */
export function formatByteLimit(bytes: number): string {
  for (const [unit, size] of [
    ['GB', 1024 ** 3],
    ['MB', 1024 ** 2],
    ['KB', 1024],
  ] as const) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(1))} ${unit}`;
  }
  return `${bytes} bytes`;
}
