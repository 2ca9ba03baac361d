import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requireUser } from '../auth.js';
import type { AppContext } from '../context.js';
import { saveConnectorCredentials } from '../store/credentials.js';
import { parse } from '../validation.js';

const MAX_FIELDS = 50;

const params = z.object({ connectorTypeId: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/) });

const body = z.object({
  credentials: z
    .record(z.string().min(1).max(100), z.string().max(10_000))
    .refine((fields) => Object.values(fields).some((value) => value !== ''), 'must hold at least one non-empty value')
    .refine((fields) => Object.keys(fields).length <= MAX_FIELDS, `must hold at most ${MAX_FIELDS} fields`),
});

export default function profileRoutes(app: FastifyInstance, ctx: AppContext) {
  app.put('/profile/credentials/:connectorTypeId', async (req) => {
    const { userId } = requireUser(ctx.db, req);
    const { connectorTypeId } = parse(
      params,
      req.params,
      'params',
      'connectorTypeId must be 1 to 64 characters of a-z, 0-9, _ and -, starting with a letter or digit',
    );
    const { credentials } = parse(body, req.body);
    return saveConnectorCredentials(ctx, userId, connectorTypeId, credentials);
  });
}
