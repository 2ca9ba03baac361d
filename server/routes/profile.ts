import { z } from 'zod';
import { security, userHook } from '../http/auth.js';
import { fixedValidationDetail } from '../http/errors.js';
import type { AppContext } from '../services/context.js';
import { saveConnectorCredentials } from '../store/connector-credential-rows.js';
import type { ZodApp } from './route-module.js';

const MAX_FIELDS = 50;

const params = z.object({ connectorTypeId: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/) });

const body = z.object({
  credentials: z
    .record(z.string().min(1).max(100), z.string().max(10_000))
    .refine((fields) => Object.values(fields).some((value) => value !== ''), 'must hold at least one non-empty value')
    .refine((fields) => Object.keys(fields).length <= MAX_FIELDS, `must hold at most ${MAX_FIELDS} fields`),
});

/** The caller's own (bring-your-own-key) connector credentials, stored encrypted. */
export default function profileRoutes(app: ZodApp, ctx: AppContext) {
  app.addHook('onRequest', userHook(ctx.db));

  app.put(
    '/profile/credentials/:connectorTypeId',
    {
      schema: {
        tags: ['profile'],
        summary: 'submitConnectorCredentials',
        security: security.user,
        params,
        body,
        response: {
          200: z.object({ connectorTypeId: z.string(), fields: z.array(z.string()), updatedAt: z.string() }),
        },
      },
      schemaErrorFormatter: fixedValidationDetail(
        'connectorTypeId must be 1 to 64 characters of a-z, 0-9, _ and -, starting with a letter or digit',
        'params',
      ),
    },
    async (req) =>
      saveConnectorCredentials(ctx.db, ctx.secret, req.caller.userId, req.params.connectorTypeId, req.body.credentials),
  );
}
