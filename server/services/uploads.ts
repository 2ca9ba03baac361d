import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { UploadedFile } from '@svc/agent-sdk/protocol';
import { safeFilename } from '../http/file-names.js';
import { MEDIA_TYPE } from '../http/media-types.js';
import { clock } from '../store/clock.js';
import { randomId } from '../store/ids.js';
import {
  deleteUnreferencedUploads,
  insertUpload,
  UPLOAD_ID_IN_URL,
  type UploadRow,
  uploadById,
  uploadUsage,
} from '../store/upload-rows.js';
import type { AppContext } from './context.js';
import { LIMITS } from './limits.js';
import { Refusal } from './refusal.js';

/*
 * Uploads: their bytes in `uploads/<id>` below the service's files folder, each described by a row of
 * store/upload-rows.ts and reached by its capability URL. (Each conversation's agent workspace is
 * conversation-files.ts.)
 */

export interface StoredUpload {
  path: string;
  filename: string;
  mimeType: string;
  size: number;
}

const HOUR_MS = 60 * 60 * 1000;
const iso = (ms: number) => new Date(ms).toISOString();

/** A new upload's id and the file its bytes go to; nothing refers to it until `registerUpload`. */
export function newUploadFile(ctx: AppContext): { id: string; path: string } {
  const dir = join(ctx.filesDir, 'uploads');
  mkdirSync(dir, { recursive: true });
  const id = randomId('f');
  return { id, path: join(dir, id) };
}

/** Refuses (`upload_quota`) when `ownerId` has already uploaded their hourly quota: before an upload's bytes are read. */
export async function checkUploadQuota(ctx: AppContext, ownerId: string): Promise<void> {
  const now = clock.now();
  const usage = await uploadUsage(ctx.db, ownerId, iso(now - HOUR_MS));
  if (usage.bytes >= ctx.quotas.uploadBytesPerHour) throw quotaReached(ctx, usage.oldest, now);
}

/** The refusal of an upload past a user's hourly quota: asked again once the oldest upload counted is an hour old. */
function quotaReached(ctx: AppContext, oldest: string | undefined, now: number): Refusal {
  const retryAfterMs = Date.parse(oldest ?? iso(now)) + HOUR_MS - now;
  return new Refusal('upload_quota', { retryAfterMs, limit: ctx.quotas.uploadBytesPerHour });
}

/** An upload as `registerUpload` takes it: its row, and the origin its URL is made with. */
export interface NewUpload extends UploadRow {
  baseUrl: string;
}

/**
 * Describes an upload whose bytes are in place (`newUploadFile`) and returns its capability URL
 * (`{baseUrl}/api/v2/files/f_…/<filename>`). A visitor's upload (`quota`) that would take them past their
 * hourly quota is refused (`upload_quota`) and its bytes removed.
 */
export async function registerUpload(
  ctx: AppContext,
  o: NewUpload,
  { quota }: { quota: boolean },
): Promise<UploadedFile> {
  const filename = safeFilename(o.filename);
  const mimeType = MEDIA_TYPE.test(o.mimeType) ? o.mimeType.toLowerCase() : 'application/octet-stream';
  const row: UploadRow = { ...o, filename, mimeType };
  const now = clock.now();
  if (!quota) await insertUpload(ctx.db, row, iso(now));
  else {
    // Usage read and upload stored in one transaction holding the visitor's quota (Db.lock): parallel uploads on
    // any instance cannot overshoot it together.
    const over = await ctx.db.transaction(async (tx) => {
      await tx.lock(`uploaded_files ${row.ownerId}`);
      const usage = await uploadUsage(tx, row.ownerId, iso(now - HOUR_MS));
      if (usage.bytes + row.size > ctx.quotas.uploadBytesPerHour) return usage;
      await insertUpload(tx, row, iso(now));
      return undefined;
    });
    if (over) {
      rmSync(join(ctx.filesDir, 'uploads', o.id), { force: true });
      throw quotaReached(ctx, over.oldest, now);
    }
  }
  return {
    url: `${o.baseUrl}/api/v2/files/${o.id}/${encodeURIComponent(filename)}`,
    filename,
    size: o.size,
    mimeType,
    provider: 'local',
  };
}

/** Saves a file an agent made (not counted against the visitor's upload quota). */
export function storeUpload(
  ctx: AppContext,
  o: Omit<NewUpload, 'id' | 'size'> & { data: Buffer },
): Promise<UploadedFile> {
  const { id, path } = newUploadFile(ctx);
  writeFileSync(path, o.data);
  return registerUpload(ctx, { ...o, id, size: o.data.length }, { quota: false });
}

export async function findUpload(ctx: AppContext, fileId: string): Promise<StoredUpload | undefined> {
  const upload = await uploadById(ctx.db, fileId);
  return upload && { ...upload, path: join(ctx.filesDir, 'uploads', fileId) };
}

/** Deletes the uploads no message refers to that are older than LIMITS.unreferencedUploadMs; returns how many. */
export async function sweepUploads(ctx: AppContext, now = clock.now()): Promise<number> {
  const ids = await deleteUnreferencedUploads(ctx.db, iso(now - LIMITS.unreferencedUploadMs));
  removeUploadFiles(ctx, ids);
  return ids.length;
}

/** Removes the bytes of uploads whose rows are gone (swept, or gone with their conversation). */
export function removeUploadFiles(ctx: AppContext, ids: string[]): void {
  for (const id of ids) rmSync(join(ctx.filesDir, 'uploads', id), { force: true });
}

/**
 * An upload named by its URL, its bytes read on demand. Only the path counts: the file id in it is the capability,
 * whatever origin the caller reached the service at.
 */
export async function readUploadAt(
  ctx: AppContext,
  url: string,
): Promise<(Omit<StoredUpload, 'path'> & { read(): Buffer }) | undefined> {
  const id = URL.canParse(url) ? UPLOAD_ID_IN_URL.exec(new URL(url).pathname)?.[1] : undefined;
  const upload = id ? await findUpload(ctx, id) : undefined;
  if (!upload) return undefined;
  const { path, ...about } = upload;
  return { ...about, read: () => readFileSync(path) };
}
