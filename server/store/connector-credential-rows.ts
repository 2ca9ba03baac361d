import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Db } from './db.js';
import { nowIso } from './ids.js';

/**
 * Each user's own (bring-your-own-key) credentials per connector type or MCP server (`connector_credentials`;
 * which key a credential is kept under is services/connector-credentials.ts's to say). The values
 * are one AES-256-GCM ciphertext under the server secret; only the field names are readable, so a leaked
 * database leaks no secret.
 */

interface CredentialsRow {
  iv: Buffer;
  tag: Buffer;
  ciphertext: Buffer;
}

/**
 * The ciphertext is bound to its row (user and connector type as associated data): a value copied to
 * another user's row does not decrypt.
 */
const associatedData = (userId: string, connectorTypeId: string) => Buffer.from(`${userId}\0${connectorTypeId}`);

/** Replaces the user's credentials kept under `connectorTypeId` (a connector type, or an MCP server's key). */
export async function saveConnectorCredentials(
  db: Db,
  secret: Buffer,
  userId: string,
  connectorTypeId: string,
  credentials: Record<string, string>,
): Promise<{ connectorTypeId: string; fields: string[]; updatedAt: string }> {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', secret, iv);
  cipher.setAAD(associatedData(userId, connectorTypeId));
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(credentials), 'utf8'), cipher.final()]);
  const fields = Object.keys(credentials);
  const updatedAt = nowIso();
  await db.run(
    `INSERT INTO connector_credentials (user_id, connector_type_id, fields, iv, tag, ciphertext, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (user_id, connector_type_id) DO UPDATE SET
         fields = excluded.fields, iv = excluded.iv, tag = excluded.tag,
         ciphertext = excluded.ciphertext, updated_at = excluded.updated_at`,
    userId,
    connectorTypeId,
    JSON.stringify(fields),
    iv,
    cipher.getAuthTag(),
    ciphertext,
    updatedAt,
  );
  return { connectorTypeId, fields, updatedAt };
}

/** The decrypted credentials a user saved for a connector type, for the runtime that calls the connector. */
export async function getConnectorCredentials(
  db: Db,
  secret: Buffer,
  userId: string,
  connectorTypeId: string,
): Promise<Record<string, string> | undefined> {
  const row = await db.get<CredentialsRow>(
    'SELECT iv, tag, ciphertext FROM connector_credentials WHERE user_id = ? AND connector_type_id = ?',
    userId,
    connectorTypeId,
  );
  if (!row) return undefined;
  const decipher = createDecipheriv('aes-256-gcm', secret, row.iv);
  decipher.setAAD(associatedData(userId, connectorTypeId));
  decipher.setAuthTag(row.tag);
  const plaintext = Buffer.concat([decipher.update(row.ciphertext), decipher.final()]).toString('utf8');
  return JSON.parse(plaintext) as Record<string, string>;
}
