import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../services/metrics.js';
import { bearerToken } from './auth.js';
import { unauthorized } from './errors.js';
import { routeOf } from './request-log.js';

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * `GET /metrics` in Prometheus's text format, behind `Authorization: Bearer <token>` when a token is set
 * (`SVC_METRICS_TOKEN`), and the duration of every request by route pattern and status. Not in the OpenAPI
 * document; never rate-limited or shed (a scrape must work when the service is busiest).
 */
export function metricsRoutes(app: FastifyInstance, metrics: Metrics, token: string | undefined): void {
  app.addHook('onResponse', async (req, reply) => {
    const labels = { method: req.method, route: routeOf(req), status: String(reply.statusCode) };
    metrics.requests.observe(labels, reply.elapsedTime / 1000);
  });
  // Compared as digests: in constant time, whatever the lengths.
  const expected = token === undefined ? undefined : digest(token);
  app.get('/metrics', { config: { probe: true } }, async (req, reply) => {
    if (expected && !timingSafeEqual(digest(bearerToken(req) ?? ''), expected)) {
      throw unauthorized('invalid Bearer token');
    }
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}
