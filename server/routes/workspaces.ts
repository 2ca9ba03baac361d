import type { FastifyInstance } from 'fastify';
import { requireAnyWorkspaceKey } from '../auth.js';
import type { AppContext } from '../context.js';
import { workspaceById } from '../store/identity.js';

export default function workspaceRoutes(app: FastifyInstance, ctx: AppContext) {
  app.get('/workspaces/whoami', async (req) => {
    const key = requireAnyWorkspaceKey(ctx.db, req);
    const ws = workspaceById(ctx.db, key.workspaceId);
    if (!ws) throw new Error('workspace of a live key is missing');
    return {
      workspace_id: ws.id,
      slug: ws.slug,
      display_name: ws.display_name,
      status: ws.status,
      api_key_id: key.keyId,
    };
  });
}
