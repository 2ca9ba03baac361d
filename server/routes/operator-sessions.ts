import { z } from 'zod';
import { security, workspaceAdminHook, workspaceAdminRefusals } from '../http/auth.js';
import { described } from '../http/openapi.js';
import type { AppContext } from '../services/context.js';
import { operatorSession } from '../services/operators.js';
import { OPERATOR } from './handoff-schemas.js';
import { documentedRefusals } from './refusal-answers.js';
import type { ZodApp } from './route-module.js';

const sessionBody = described(
  'The person, as the site knows them, and how long the token lives.',
  z.object({
    operator_ref: z.string().min(1).max(200).describe("The site's own reference: the same one is the same operator."),
    display_name: z.string().trim().min(1).max(100).describe("Shown to visitors beside the person's messages."),
    avatar_url: z
      .string()
      .max(2048)
      .regex(/^https?:\/\//i, 'must be an http(s) URL')
      .optional()
      .describe("Shown to visitors beside the person's messages."),
    ttl_seconds: z.number().int().positive().max(86400).default(3600).describe('Seconds.'),
  }),
  { operator_ref: 'staff-17', display_name: 'Alex', avatar_url: OPERATOR.avatarUrl, ttl_seconds: 3600 },
);

const session = described(
  "An operator's session token, for the operators' routes alone, and when it stops working.",
  z.object({ token: z.string(), operator_id: z.string(), expires_at: z.string().datetime() }),
  {
    token: 'ot_Zr4Xq8Lm2Vn6Bc0Kp3Hs7Wt1Yd5Fg9Ja2Ue6Io0Pl3N',
    operator_id: OPERATOR.id,
    expires_at: '2026-11-21T11:00:00.000Z',
  },
);

/**
 * The site's backend signs a person of its staff in (our extension: docs/protocol.md "A person in the
 * conversation"), with its workspace key, as it does a visitor: mintSession's twin for operators.
 */
export default function operatorSessionRoutes(app: ZodApp, { db }: AppContext) {
  app.addHook('onRequest', workspaceAdminHook(db));
  app.post(
    '/workspaces/:slug/operators/sessions',
    {
      schema: {
        tags: ['operators'],
        operationId: 'mintOperatorSession',
        summary: 'Sign a person of the staff in',
        description:
          "A session token (`ot_…`) for the person the site calls `operator_ref`, for the operators' routes only; " +
          'it expires after `ttl_seconds`, and the site mints another to renew it. The operator is made on its ' +
          'first session; its name and picture follow the latest one.',
        security: security.workspaceKey,
        params: z.object({ slug: z.string() }),
        body: sessionBody,
        response: { 200: session },
        refusals: [
          workspaceAdminRefusals(false),
          {
            400: {
              'body/display_name String must contain at least 1 character(s)':
                'A field is missing or invalid (zod words each problem).',
              'body/avatar_url must be an http(s) URL': 'A picture that is not a web address.',
            },
          },
          documentedRefusals({
            operators_off: "The workspace's staff do not take conversations (fixture `operators`).",
          }),
        ],
      },
    },
    async (req) => operatorSession(db, req.workspace, req.body),
  );
}
