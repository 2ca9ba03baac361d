import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../services/context.js';
import { schemaCurrent } from '../store/db.js';
import { unavailable } from './errors.js';

/** How long a load balancer told "not ready" waits before it asks again. */
const READY_RETRY_MS = 5000;

/**
 * `GET /healthz` (the process answers) and `GET /readyz` (it can serve: 503 `{ detail }` with the reason
 * otherwise: draining, shedding load, the database away) for load balancers and orchestrators. No credential and no data: the answers say nothing of
 * the service's contents. Not under `/api/v2`, so not in the OpenAPI document; never rate-limited or shed.
 */
export function healthRoutes(app: FastifyInstance, ctx: AppContext): void {
  const config = { probe: true };
  app.get('/healthz', { config }, async () => ({ status: 'ok' }));
  app.get('/readyz', { config }, async () => {
    // Shedding requests (overload.ts) is not being ready: a balancer that probes sends them elsewhere.
    const shedding = app.hasDecorator('isUnderPressure') && app.isUnderPressure();
    const problem = shedding ? 'this instance is overloaded' : await notReady(ctx);
    if (problem) throw unavailable(problem, READY_RETRY_MS);
    return { status: 'ready' };
  });
}

/** Why this instance cannot serve now, or undefined when it can. */
async function notReady({ db, drain }: AppContext): Promise<string | undefined> {
  if (drain.draining) return 'this instance is shutting down';
  // PostgreSQL: without its own connection it hears no other instance and holds no liveness lock.
  if (!db.liveness.alive) return "this instance's own database connection is down";
  try {
    if (!(await schemaCurrent(db))) return 'the database lacks migrations of this version of the service';
  } catch {
    return 'the database does not answer';
  }
  return undefined;
}
