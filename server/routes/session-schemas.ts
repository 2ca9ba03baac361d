import type { SessionToken } from '@svc/agent-sdk/protocol';
import { z } from 'zod';
import { forbidden, notFound } from '../http/errors.js';
import { described } from '../http/openapi.js';
import { mintSession } from '../store/credential-rows.js';
import type { Db } from '../store/db.js';

/*
 * What the workspace routes (mintSession) and the SMS routes (verifySmsCode) share: a session token,
 * issued by the store for a provisioned member, and its refusals as HTTP answers.
 */

export const sessionToken = described(
  'A session token for the conversation routes, and when it stops working.',
  z.object({ token: z.string(), user_id: z.string(), expires_at: z.string().datetime() }),
  {
    token: 'st_Zr4Xq8Lm2Vn6Bc0Kp3Hs7Wt1Yd5Fg9Ja2Ue6Io0Pl3N',
    user_id: 'u_Jd82kQm1Zx7Lp0Ws5Rt9Vg',
    expires_at: '2026-11-21T11:00:00.000Z',
  },
);

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
