import { nowIso } from '../ids.js';
import { type AddedColumn, type Db, immediate } from './db.js';

/**
 * Uploaded files: what each is, whose it is, and whether a record links to it yet (an upload nothing links
 * to expires: LIMITS.unreferencedUploadMs). The bytes live on disk (server/files.ts).
 */
export const filesSchema = `
CREATE TABLE IF NOT EXISTS uploaded_files (
  id TEXT PRIMARY KEY, owner_id TEXT NOT NULL, filename TEXT NOT NULL, mime_type TEXT NOT NULL,
  size INTEGER NOT NULL, agent_id TEXT, chat_group_id TEXT, created_at TEXT NOT NULL,
  referenced INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS uploaded_files_by_owner ON uploaded_files (owner_id, created_at);
`;

export const filesColumns: AddedColumn[] = [
  {
    table: 'uploaded_files',
    column: 'referenced',
    definition: 'INTEGER NOT NULL DEFAULT 0',
    fill: `UPDATE uploaded_files SET referenced =
      EXISTS (SELECT 1 FROM records WHERE instr(raw, '/files/' || uploaded_files.id || '/') > 0)`,
    after: `CREATE INDEX IF NOT EXISTS uploaded_files_unreferenced ON uploaded_files (created_at) WHERE referenced = 0`,
  },
];

export interface UploadRow {
  id: string;
  ownerId: string;
  filename: string;
  mimeType: string;
  size: number;
  agentId?: string;
  chatGroupId?: string;
}

export function insertUpload(db: Db, u: UploadRow, at = nowIso()): void {
  db.prepare(
    `INSERT INTO uploaded_files (id, owner_id, filename, mime_type, size, agent_id, chat_group_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(u.id, u.ownerId, u.filename, u.mimeType, u.size, u.agentId ?? null, u.chatGroupId ?? null, at);
}

/** Bytes `ownerId` uploaded since `since` (an ISO time), and when the oldest of those uploads was made. */
export function uploadUsage(db: Db, ownerId: string, since: string): { bytes: number; oldest?: string } {
  const row = db
    .prepare(
      'SELECT COALESCE(SUM(size), 0) AS bytes, MIN(created_at) AS oldest FROM uploaded_files WHERE owner_id = ? AND created_at > ?',
    )
    .get(ownerId, since) as { bytes: number; oldest: string | null };
  return { bytes: row.bytes, ...(row.oldest ? { oldest: row.oldest } : {}) };
}

/**
 * Records an upload made at `at` unless it takes its owner past `quota.bytes` uploaded since `quota.since`;
 * then returns the usage that refused it. Check and insert share one transaction, so parallel uploads cannot
 * overshoot the quota together.
 */
export function insertUploadWithinQuota(
  db: Db,
  u: UploadRow,
  at: string,
  quota: { bytes: number; since: string },
): { bytes: number; oldest?: string } | undefined {
  return immediate(db, () => {
    const usage = uploadUsage(db, u.ownerId, quota.since);
    if (usage.bytes + u.size > quota.bytes) return usage;
    insertUpload(db, u, at);
    return undefined;
  });
}

export function uploadById(db: Db, id: string): Pick<UploadRow, 'filename' | 'mimeType' | 'size'> | undefined {
  const row = db.prepare('SELECT filename, mime_type, size FROM uploaded_files WHERE id = ?').get(id) as
    | { filename: string; mime_type: string; size: number }
    | undefined;
  return row && { filename: row.filename, mimeType: row.mime_type, size: row.size };
}

/** Where an upload's id stands in its capability URL as server/files.ts makes it: `…/files/<id>/<filename>`. */
export const UPLOAD_ID_IN_URL = /\/files\/(f_[A-Za-z0-9_-]{22})\//;
const UPLOAD_LINKS = new RegExp(UPLOAD_ID_IN_URL.source, 'g');

/** Marks the uploads a record's JSON links to as referenced: from then on they never expire. */
export function markUploadsReferenced(db: Db, recordJson: string): void {
  if (!recordJson.includes('/files/f_')) return;
  const mark = db.prepare('UPDATE uploaded_files SET referenced = 1 WHERE id = ? AND referenced = 0');
  for (const [, id] of recordJson.matchAll(UPLOAD_LINKS)) mark.run(id);
}

/** Forgets the uploads no record links to that were made before `before` (an ISO time); returns their ids. */
export function deleteUnreferencedUploads(db: Db, before: string): string[] {
  return immediate(db, () => {
    const rows = db
      .prepare('DELETE FROM uploaded_files WHERE referenced = 0 AND created_at < ? RETURNING id')
      .all(before) as { id: string }[];
    return rows.map((row) => row.id);
  });
}
