import { mkdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve, sep } from 'node:path';
import type { ConversationFile } from '@svc/agent-sdk/protocol';
import { isTextType, mimeTypeOf } from '../http/media-types.js';
import type { AppContext } from './context.js';
import { Refusal } from './refusal.js';

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

/**
 * The real path of a file inside a conversation's folder. Refuses (`path_escapes`) every way out: absolute
 * paths, `..` segments (also percent-encoded, any number of times), backslashes, NUL, and symlinks whose
 * target lies outside the folder. A missing file (or a folder) is `file_not_found`.
 */
export function resolveConversationFile(ctx: AppContext, conversationId: string, requested: string): string {
  if (requested === '') throw new Refusal('path_required');
  for (const form of decodedForms(requested)) {
    const escapes =
      form.includes('\0') ||
      form.includes('\\') ||
      isAbsolute(form) ||
      /^[a-z]:/i.test(form) ||
      form.split('/').includes('..');
    if (escapes) throw new Refusal('path_escapes');
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
      throw new Refusal('file_not_found');
    }
    throw err;
  }
  if (real !== root && !real.startsWith(root + sep)) throw new Refusal('path_escapes');
  if (!statSync(real).isFile()) throw new Refusal('file_not_found');
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
  throw new Refusal('path_escapes');
}

/**
 * A conversation file as JSON: UTF-8 text for text types that decode cleanly, base64 for the rest. A file
 * over the upload limit is `file_too_large_to_read` (it is downloaded instead).
 */
export function readConversationFile(ctx: AppContext, realPath: string): ConversationFile {
  const size = statSync(realPath).size;
  if (size > ctx.maxUploadBytes) throw new Refusal('file_too_large_to_read', { limit: ctx.maxUploadBytes });
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
