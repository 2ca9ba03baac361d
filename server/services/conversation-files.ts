import { mkdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve, sep } from 'node:path';
import type { ConversationFile } from '@svc/agent-sdk/protocol';
import { badRequest, HttpError, notFound, type Refusals } from '../http/errors.js';
import { isTextType, mimeTypeOf } from '../http/media-types.js';
import type { AppContext } from './context.js';
import { formatBytes } from './limits.js';

/*
 * Each conversation's agent workspace: a folder below the service's files folder, `conversations/<id>/`,
 * where agents write the files they hand out and callers read them by path, never outside it.
 */

/** The agent workspace of a conversation, created on first use. */
export function conversationDir(ctx: AppContext, conversationId: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(conversationId)) throw new Error(`invalid conversation id ${conversationId}`);
  const dir = join(ctx.filesDir, 'conversations', conversationId);
  mkdirSync(dir, { recursive: true });
  return dir;
}

const ESCAPES = 'path escapes the conversation workspace';

/** What the file routes refuse of a conversation file, besides the conversation (readConversationFile adds a 413). */
export const FILE_REFUSALS: Refusals = {
  400: {
    [ESCAPES]:
      'An absolute path, a `..` segment (also percent-encoded), a backslash, a NUL, or a symlink out of the folder.',
    'path is required': '`path` is empty.',
  },
  404: { 'file not found': 'No file at `path` (or a folder).' },
};

/** The refusal of a file too large to read as JSON. */
export const tooLargeToRead = (limit: number) =>
  `file too large to read (limit ${formatBytes(limit)}); download it instead`;

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
    // Missing, under a file instead of a folder, a symlink loop, or a name longer than the file system takes:
    // nothing to read either way.
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP' || code === 'ENAMETOOLONG') {
      throw notFound('file not found');
    }
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
    throw new HttpError(413, tooLargeToRead(ctx.maxUploadBytes));
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
