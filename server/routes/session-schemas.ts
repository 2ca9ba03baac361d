import { z } from 'zod';
import { described } from '../http/openapi.js';

/*
 * What the workspace routes (mintSession) and the SMS routes (verifySmsCode) share: the session token they
 * answer, which services/members.ts issues to an active member.
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
