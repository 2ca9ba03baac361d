import { E164, type SessionToken } from '@svc/agent-sdk/protocol';
import ipaddr from 'ipaddr.js';
import { type ZodIssue, z } from 'zod';
import { NO_CREDENTIAL_REFUSALS, noCredentialHook, security } from '../http/auth.js';
import { badRequest, forbidden, notFound, type Refusals } from '../http/errors.js';
import { described } from '../http/openapi.js';
import type { AppContext } from '../services/context.js';
import { sendSmsCode, signInBySms } from '../services/sms-codes.js';
import { type WorkspaceRow, workspaceBySlug } from '../store/workspace-rows.js';
import { documentedRefusals } from './refusal-answers.js';
import type { ZodApp } from './route-module.js';
import { sessionToken } from './session-schemas.js';

const phone = z.string().regex(E164);
const params = z.object({ slug: z.string() });

const PHONE = '+14155550123';

/** What both routes refuse, in the order they check (docs/protocol.md "SMS sign-in"). */
const SIGN_IN_REFUSALS: Refusals = {
  ...NO_CREDENTIAL_REFUSALS,
  400: { 'the phone number format is wrong': '`phone` is not E.164: `+`, then 8 to 15 digits, the first not 0.' },
  403: {
    ...NO_CREDENTIAL_REFUSALS[403],
    'public SMS signup disabled': 'The workspace does not offer SMS sign-in.',
  },
  404: { 'workspace not found': 'No workspace has this slug.' },
};

/**
 * The client address send limits count by: an IPv4 address, or the /64 of an IPv6 address (one home or phone
 * holds a whole /64). Behind a reverse proxy it is the address the proxy names (`--trust-proxy`).
 */
export function clientAddress(ip: string): string {
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/64`).toString()}/64`;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The workspace an SMS sign-in is for. */
    smsWorkspace: WorkspaceRow;
  }
}

/**
 * Public SMS-code sign-in (spec 4.1 rule 7): the visitor becomes the member `sms:<phone>`. Both routes
 * check, in the order of docs/protocol.md: no credential, a known workspace (both before the body is
 * read), an E.164 phone, SMS sign-up enabled, then (verify) that `code` is a string.
 */
export default function smsRoutes(app: ZodApp, ctx: AppContext) {
  app.addHook('onRequest', noCredentialHook);
  app.addHook('onRequest', async (req) => {
    const workspace = await workspaceBySlug(ctx.db, (req.params as { slug: string }).slug);
    if (!workspace) throw notFound('workspace not found');
    req.smsWorkspace = workspace;
  });
  // Validation errors are attached rather than thrown, so this can put sign-up between the phone and the code.
  app.addHook('preHandler', async (req) => {
    const invalid = req.validationError;
    const field = (invalid?.validation[0]?.params as { issue?: ZodIssue } | undefined)?.issue?.path[0];
    if (invalid && field !== 'code') throw badRequest('the phone number format is wrong');
    if (!req.smsWorkspace.sms_signup) throw forbidden('public SMS signup disabled');
    if (invalid) throw badRequest(invalid.message);
  });
  const tags = ['SMS sign-in'];

  app.post(
    '/workspaces/:slug/sms/send',
    {
      schema: {
        tags,
        operationId: 'sendSmsCode',
        summary: 'Send a sign-in code by SMS',
        description:
          'Sends a 6-digit code, valid 5 minutes and once, to `phone` (a newer code replaces the older). Sends are ' +
          'limited per phone, per client address and per workspace; when several refuse, the answer names the ' +
          'one that frees last. Once half of the daily cap went to new numbers, a new number shares the rest per ' +
          'client address and per number prefix and, where the operator configured one, needs an answered ' +
          '`challenge`; numbers that signed in before are outside the shares.',
        security: security.none,
        params,
        body: described(
          'The phone to send the code to.',
          z.object({
            phone,
            challenge: z
              .string()
              .max(4096)
              .optional()
              .describe("The answer to the operator's challenge (a CAPTCHA token), asked for with 428."),
          }),
          { phone: PHONE },
        ),
        response: { 204: described('No body: the code is on its way.', z.null()) },
        refusals: [
          SIGN_IN_REFUSALS,
          documentedRefusals({
            sms_phone:
              'A code went to this phone in the last 30 seconds (from anyone), or 5 in 10 minutes from this address.',
            sms_address:
              'This client address asked for its hourly number of codes (20 by default), or, near the daily cap, its share of codes to new numbers.',
            sms_prefix: 'Near the daily cap: numbers of this prefix (`+` and 5 digits) had their share.',
            sms_workspace: 'The workspace sent its cap of codes in the last 24 hours (1,000 by default).',
            sms_challenge:
              'Near the daily cap, a new number needs the answer to the challenge the operator configured.',
          }),
        ],
      },
      attachValidation: true,
    },
    async (req, reply) => {
      await sendSmsCode(ctx, req.smsWorkspace, req.body.phone, clientAddress(req.ip), req.body.challenge);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/workspaces/:slug/sms/verify',
    {
      schema: {
        tags,
        operationId: 'verifySmsCode',
        summary: 'Sign in with the code',
        description:
          'Checks the code sent to `phone` and answers a session token valid a day for the member `sms:<phone>` ' +
          '(made on first sign-in). A code is dead after 5 wrong guesses.',
        security: security.none,
        params,
        body: described('The phone and the code it received.', z.object({ phone, code: z.string() }), {
          phone: PHONE,
          code: '204816',
        }),
        response: { 200: sessionToken },
        refusals: [
          SIGN_IN_REFUSALS,
          { 400: { 'body/code Required': 'No `code`, or not a string.' } },
          documentedRefusals({
            sms_code_invalid: 'The code is wrong, expired, used, or dead after 5 wrong guesses.',
            member_suspended: 'The member `sms:<phone>` is suspended.',
          }),
        ],
      },
      attachValidation: true,
    },
    async (req): Promise<SessionToken> => signInBySms(ctx, req.smsWorkspace, req.body.phone, req.body.code),
  );
}
