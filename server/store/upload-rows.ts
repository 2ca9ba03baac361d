import type { Db } from './db.js';
import { nowIso } from './ids.js';

/**
 * Uploaded files (`uploaded_files`): what each is, whose it is, and whether a record links to it yet (an
 * upload nothing links to expires: LIMITS.unreferencedUploadMs). The bytes live in the files folder
 * (server/services/uploads.ts).
 */

export interface UploadRow {
  id: string;
  ownerId: string;
  filename: string;
  mimeType: string;
  size: number;
  agentId?: string;
  chatGroupId?: string;
}

export async function insertUpload(db: Db, u: UploadRow, at = nowIso()): Promise<void> {
  await db.run(
    `INSERT INTO uploaded_files (id, owner_id, filename, mime_type, size, agent_id, chat_group_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    u.id,
    u.ownerId,
    u.filename,
    u.mimeType,
    u.size,
    u.agentId ?? null,
    u.chatGroupId ?? null,
    at,
  );
}

/** Bytes `ownerId` uploaded since `since` (an ISO time), and when the oldest of those uploads was made. */
export async function uploadUsage(db: Db, ownerId: string, since: string): Promise<{ bytes: number; oldest?: string }> {
  const row = (await db.get<{ bytes: number; oldest: string | null }>(
    'SELECT COALESCE(SUM(size), 0) AS bytes, MIN(created_at) AS oldest FROM uploaded_files WHERE owner_id = ? AND created_at > ?',
    ownerId,
    since,
  ))!;
  return { bytes: row.bytes, ...(row.oldest ? { oldest: row.oldest } : {}) };
}

export async function uploadById(
  db: Db,
  id: string,
): Promise<Pick<UploadRow, 'filename' | 'mimeType' | 'size'> | undefined> {
  const row = await db.get<{ filename: string; mime_type: string; size: number }>(
    'SELECT filename, mime_type, size FROM uploaded_files WHERE id = ?',
    id,
  );
  return row && { filename: row.filename, mimeType: row.mime_type, size: row.size };
}

/** Where an upload's id stands in its capability URL as server/services/uploads.ts makes it: `…/files/<id>/<filename>`. */
export const UPLOAD_ID_IN_URL = /\/files\/(f_[A-Za-z0-9_-]{22})\//;
const UPLOAD_LINKS = new RegExp(UPLOAD_ID_IN_URL.source, 'g');

/** The ids of the uploads a record's JSON links to. */
export function linkedUploads(recordJson: string): string[] {
  if (!recordJson.includes('/files/f_')) return [];
  return [...recordJson.matchAll(UPLOAD_LINKS)].map(([, id]) => id!);
}

/**
 * Marks the uploads a record's JSON links to as referenced (from then on they never expire) and as linked from
 * its conversation (`upload_links`: they go with the last conversation that links to them).
 */
export async function markUploadsReferenced(db: Db, conversationId: string, recordJson: string): Promise<void> {
  for (const id of linkedUploads(recordJson)) {
    await db.run('UPDATE uploaded_files SET referenced = 1 WHERE id = ? AND referenced = 0', id);
    await db.run(
      `INSERT INTO upload_links (upload_id, conversation_id) SELECT id, ? FROM uploaded_files WHERE id = ?
       ON CONFLICT DO NOTHING`,
      conversationId,
      id,
    );
  }
}

/**
 * Forgets, in the transaction that deletes conversation `conversationId` (of `ownerId`), the uploads that go
 * with it: those it links to and those made for it (`chatGroupId`) that no other conversation links to, and its
 * links. Returns their ids, whose files the caller removes once that has committed.
 */
export async function deleteUploadsOf(db: Db, conversationId: string, ownerId: string): Promise<string[]> {
  const rows = await db.all<{ id: string }>(
    `SELECT id FROM uploaded_files u
     WHERE u.owner_id = ? AND (u.chat_group_id = ? OR EXISTS
         (SELECT 1 FROM upload_links l WHERE l.upload_id = u.id AND l.conversation_id = ?))
       AND NOT EXISTS (SELECT 1 FROM upload_links l WHERE l.upload_id = u.id AND l.conversation_id <> ?)`,
    ownerId,
    conversationId,
    conversationId,
    conversationId,
  );
  await db.run('DELETE FROM upload_links WHERE conversation_id = ?', conversationId);
  for (const { id } of rows) await db.run('DELETE FROM uploaded_files WHERE id = ?', id);
  return rows.map((row) => row.id);
}

/** Forgets the uploads no record links to that were made before `before` (an ISO time); returns their ids. */
export async function deleteUnreferencedUploads(db: Db, before: string): Promise<string[]> {
  const rows = await db.all<{ id: string }>(
    'DELETE FROM uploaded_files WHERE referenced = 0 AND created_at < ? RETURNING id',
    before,
  );
  return rows.map((row) => row.id);
}
