import { nowIso } from '../ids.js';
import type { Db } from './db.js';

/** Uploaded files: what each is and whose it is. The bytes live on disk (server/files.ts). */
export const filesSchema = `
CREATE TABLE IF NOT EXISTS uploaded_files (
  id TEXT PRIMARY KEY, owner_id TEXT NOT NULL, filename TEXT NOT NULL, mime_type TEXT NOT NULL,
  size INTEGER NOT NULL, agent_id TEXT, chat_group_id TEXT, created_at TEXT NOT NULL
);
`;

export interface UploadRow {
  id: string;
  ownerId: string;
  filename: string;
  mimeType: string;
  size: number;
  agentId?: string;
  chatGroupId?: string;
}

export function insertUpload(db: Db, u: UploadRow): void {
  db.prepare(
    `INSERT INTO uploaded_files (id, owner_id, filename, mime_type, size, agent_id, chat_group_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(u.id, u.ownerId, u.filename, u.mimeType, u.size, u.agentId ?? null, u.chatGroupId ?? null, nowIso());
}

export function uploadById(db: Db, id: string): Pick<UploadRow, 'filename' | 'mimeType' | 'size'> | undefined {
  const row = db.prepare('SELECT filename, mime_type, size FROM uploaded_files WHERE id = ?').get(id) as
    | { filename: string; mime_type: string; size: number }
    | undefined;
  return row && { filename: row.filename, mimeType: row.mime_type, size: row.size };
}
