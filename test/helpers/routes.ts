import type { FastifyInstance } from 'fastify';

export interface Route {
  method: string;
  /** With the route's own `:name` parameters, e.g. `/api/v2/conversations/:id/stream`. */
  path: string;
}

/**
 * Every route the service registered, read from Fastify's own route tree (so a new route is fuzzed and
 * documented too), each path with its parameters named as its route names them. The tree prints the names that
 * routes give one parameter together (`/agents/:id|:agentId/…`), so the router is asked for each route
 * (`findRoute`, which answers its params under the route's own names): the order routes were registered in
 * does not matter.
 */
export function routesOf(app: FastifyInstance): Route[] {
  const routes: Route[] = [];
  const prefixes: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^(.*?)[├└]── (\S+)(?: \(([^)]*)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    const path = (prefixes[depth - 1] ?? '') + match[2]!;
    prefixes[depth] = path;
    for (const method of match[3]?.split(', ') ?? []) {
      if (method !== 'HEAD') routes.push({ method, path: ownNames(app, method, path) });
    }
  }
  return routes;
}

/** `path` with its parameters named as the route registered for `method` names them. */
function ownNames(app: FastifyInstance, method: string, path: string): string {
  const printed = /:\w+(?:\|:\w+)*/g;
  if (!path.includes(':')) return path;
  const url = path.replace(printed, (names) => names.split('|')[0]!);
  const route = app.findRoute({ method: method as 'GET', url });
  if (!route) throw new Error(`the router does not find the route it printed: ${method} ${path}`);
  const names = Object.keys(route.params);
  let n = 0;
  return path.replace(printed, () => `:${names[n++]}`);
}
