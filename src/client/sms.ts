import type { SessionToken } from '../protocol/workspace-types.js';
import type { RequestOptions } from './config.js';
import { type HttpClient, path } from './http.js';

/*
 * SMS sign-in on its own, so `<svc-sms-sign-in>` (and the script-tag bundle) carries these two calls rather
 * than all of `WorkspacesClient`, whose methods of the same names call these. Both routes refuse a
 * credential, so none is sent.
 */

/** Texts a sign-in code to `phone` (E.164). */
export async function sendSmsCode(
  http: HttpClient,
  slug: string,
  body: { phone: string; challenge?: string },
  opts: RequestOptions = {},
): Promise<void> {
  await http.json({ ...opts, method: 'POST', path: path`/workspaces/${slug}/sms/send`, body, anonymous: true });
}

/** Exchanges a code for a session token (valid 24 h). */
export function verifySmsCode(
  http: HttpClient,
  slug: string,
  body: { phone: string; code: string },
  opts: RequestOptions = {},
): Promise<SessionToken> {
  return http.json({ ...opts, method: 'POST', path: path`/workspaces/${slug}/sms/verify`, body, anonymous: true });
}
