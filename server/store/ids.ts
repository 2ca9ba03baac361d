import { createHash, randomBytes } from 'node:crypto';

/** A random identifier with a readable prefix, e.g. `c_3kq…` (128 bits). */
export function randomId(prefix: string, bytes = 16): string {
  return `${prefix}_${randomBytes(bytes).toString('base64url')}`;
}

/** Secrets are stored only as their SHA-256; they are long and random, so no salt or KDF is needed. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export const nowIso = () => new Date().toISOString();
