import { randomUUID } from 'node:crypto';
import { SvcClient } from '@svc/agent-sdk';
import { cookies } from 'next/headers';

/** The site's side of the service: it holds the workspace key, which never reaches a browser. */
const site = new SvcClient({ baseUrl: process.env.SVC_URL, apiKey: process.env.SVC_API_KEY });

/** Mints the visitor a session, knowing them again by a cookie so a reload keeps their conversation. */
export async function POST() {
  const jar = await cookies();
  const visitor = jar.get('visitor')?.value ?? randomUUID();
  jar.set('visitor', visitor, { httpOnly: true, sameSite: 'strict', path: '/' });
  const session = await site
    .workspace(process.env.SVC_WORKSPACE ?? 'demo')
    .startVisitorSession({ sp_user_ref: visitor });
  return Response.json(session);
}
