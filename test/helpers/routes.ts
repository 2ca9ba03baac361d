import type { FastifyInstance } from 'fastify';

export interface Route {
  method: string;
  /** With `:name` parameters, e.g. `/api/v2/conversations/:id/stream`. */
  path: string;
}

/** Every route the service registered, read from Fastify's own route tree (so a new route is fuzzed and documented too). */
export function routesOf(app: FastifyInstance): Route[] {
  const routes: Route[] = [];
  const prefixes: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^(.*?)[├└]── (\S+)(?: \(([^)]*)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    // Fastify prints the alternative names of one parameter as `:id|:agentId`.
    const path = (prefixes[depth - 1] ?? '') + match[2]!.replace(/\|:\w+/g, '');
    prefixes[depth] = path;
    for (const method of match[3]?.split(', ') ?? []) if (method !== 'HEAD') routes.push({ method, path });
  }
  return routes;
}
