import type { SessionToken } from '@svc/agent-sdk/protocol';
import { z } from 'zod';
import { forbidden, notFound } from '../http/errors.js';
import { mintSession } from '../store/credential-rows.js';
import type { Db } from '../store/db.js';

/*
 * What the workspace routes (mintSession) and the SMS routes (verifySmsCode) share: a session token,
 * issued by the store for a provisioned member, and its refusals as HTTP answers.
 */

export const sessionToken = z.object({ token: z.string(), user_id: z.string(), expires_at: z.string() });

/** A session for a provisioned member (mintSession, verifySmsCode). */
export async function issueSession(
  db: Db,
  workspaceId: string,
  spUserRef: string,
  ttlSeconds: number,
): Promise<SessionToken> {
  const session = await mintSession(db, workspaceId, spUserRef, ttlSeconds);
  if ('refused' in session) {
    throw session.refused === 'suspended'
      ? forbidden('member status is suspended')
      : notFound('member not found for sp_user_ref');
  }
  return session;
}
