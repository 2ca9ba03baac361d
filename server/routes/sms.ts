import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { SessionToken } from '../../src/client/types.js';
import { requireNoCredential } from '../auth.js';
import type { AppContext } from '../context.js';
import { forbidden, HttpError, notFound, unauthorized } from '../errors.js';
import { nowIso } from '../ids.js';
import { type WorkspaceRow, workspaceBySlug } from '../store/identity.js';
import {
  consumeSmsCode,
  issueSmsCode,
  mintSession,
  provisionMember,
  SMS_SESSION_TTL_SECONDS,
} from '../store/workspace.js';
import { parse } from '../validation.js';

/** E.164: `+`, then 8 to 15 digits, the first not 0. */
const phoneBody = z.object({ phone: z.string().regex(/^\+[1-9]\d{7,14}$/) });
const codeBody = z.object({ code: z.string() });

type Slug = { Params: { slug: string } };

/**
 * The checks both SMS routes share, in the order of docs/protocol.md: no credential, a known workspace,
 * an E.164 phone, SMS sign-up enabled.
 */
function smsRequest(db: AppContext['db'], req: FastifyRequest<Slug>): { workspace: WorkspaceRow; phone: string } {
  requireNoCredential(req);
  const workspace = workspaceBySlug(db, req.params.slug);
  if (!workspace) throw notFound('workspace not found');
  const { phone } = parse(phoneBody, req.body, 'body', 'the phone number format is wrong');
  if (!workspace.sms_signup) throw forbidden('public SMS signup disabled');
  return { workspace, phone };
}

/** Public SMS-code sign-in (spec 4.1 rule 7): the visitor becomes the member `sms:<phone>`. */
export default function smsRoutes(app: FastifyInstance, { db, secret, sms }: AppContext) {
  app.post<Slug>('/workspaces/:slug/sms/send', async (req, reply) => {
    const { workspace, phone } = smsRequest(db, req);
    const issued = issueSmsCode(db, secret, workspace.id, phone);
    if ('retryAfterSeconds' in issued) {
      reply.header('retry-after', String(issued.retryAfterSeconds));
      throw new HttpError(429, 'too many codes sent to this phone, try again later');
    }
    sms.send({ phone, code: issued.code, slug: workspace.slug, at: nowIso() });
    return reply.code(204).send();
  });

  app.post<Slug>('/workspaces/:slug/sms/verify', async (req): Promise<SessionToken> => {
    const { workspace, phone } = smsRequest(db, req);
    const { code } = parse(codeBody, req.body);
    if (!consumeSmsCode(db, secret, workspace.id, phone, code)) throw unauthorized('invalid_or_expired_code');
    const spUserRef = `sms:${phone}`;
    provisionMember(db, workspace.id, spUserRef);
    return mintSession(db, workspace.id, spUserRef, SMS_SESSION_TTL_SECONDS);
  });
}
