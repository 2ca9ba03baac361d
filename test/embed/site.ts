import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, relative } from 'node:path';
import { WorkspacesClient } from '../../src/client/workspaces.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
};

/** What the site answers at a path: a file, or a page given as HTML. */
export type Route = string | { html: string };

/** Every file under `dir`, at `prefix` + its path below `dir` (a built app's folder). */
export function filesUnder(dir: string, prefix: string): Record<string, Route> {
  const entries = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  return Object.fromEntries(
    entries.map((e) => {
      const file = join(e.parentPath, e.name);
      return [`${prefix}${relative(dir, file).split('\\').join('/')}`, file];
    }),
  );
}

/** A whole page around a snippet. */
export const page = (body: string): Route => ({
  html: `<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"><title>embed</title></head>\n<body>\n${body}\n</body>\n</html>\n`,
});

export interface Site {
  url: string;
  close(): Promise<void>;
}

/** The service and the workspace a site belongs to: its key mints the sessions of its visitors and its staff. */
export interface SiteWorkspace {
  serviceUrl: string;
  slug: string;
  apiKey: string;
}

/**
 * A site that embeds the chat, as an integrator runs one: it serves its pages (`routes`: path → file),
 * mints each visitor (known again by a cookie) a session at `POST /svc-token` and its staff's person (Alex) an
 * operator session at `POST /svc-operator-token`, with the workspace key (which never reaches the browser), and
 * forwards `/api/v2/` to the service, so the widget's default `base-url` (the page's origin) is right. By default
 * the workspace is the demo's of the service at SVC_E2E_URL.
 */
export async function startSite(
  routes: Record<string, Route>,
  { serviceUrl, slug, apiKey }: SiteWorkspace = {
    serviceUrl: process.env.SVC_E2E_URL!,
    slug: 'demo',
    apiKey: process.env.SVC_E2E_API_KEY!,
  },
): Promise<Site> {
  const workspaces = new WorkspacesClient({ apiKey, baseUrl: serviceUrl });
  let visitors = 0;

  // The site's own sign-in, reduced to a cookie: a visitor who comes back keeps their conversations.
  const mintSession = async (req: IncomingMessage, res: ServerResponse) => {
    const visitor =
      /(?:^|;\s*)visitor=(\w+)/.exec(req.headers.cookie ?? '')?.[1] ?? `embed_${process.pid}_${visitors++}`;
    const grant = await workspaces.startVisitorSession(slug, { sp_user_ref: visitor });
    res.writeHead(200, {
      'content-type': 'application/json',
      'set-cookie': `visitor=${visitor}; Path=/; HttpOnly; SameSite=Strict`,
    });
    res.end(JSON.stringify(grant));
  };

  // The site's admin, reduced to the one person of its staff who answers visitors in the inbox.
  const mintOperatorSession = async (res: ServerResponse) => {
    const grant = await workspaces.mintOperatorSession(slug, { operator_ref: 'staff_alex', display_name: 'Alex' });
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(grant));
  };

  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const upstream = request(new URL(req.url!, serviceUrl), { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  };

  const server = createServer((req, res) => {
    const path = new URL(req.url!, 'http://site').pathname;
    if (path.startsWith('/api/v2/')) return forward(req, res);
    if (path === '/svc-token' && req.method === 'POST') {
      return void mintSession(req, res).catch((err: Error) => res.writeHead(500).end(err.message));
    }
    if (path === '/svc-operator-token' && req.method === 'POST') {
      return void mintOperatorSession(res).catch((err: Error) => res.writeHead(500).end(err.message));
    }
    if (path === '/favicon.ico') return void res.writeHead(204).end();
    const route = routes[path] ?? routes[`${path}index.html`];
    if (!route) return void res.writeHead(404).end('not found');
    if (typeof route !== 'string') return void res.writeHead(200, { 'content-type': TYPES['.html'] }).end(route.html);
    res.writeHead(200, { 'content-type': TYPES[extname(route)] ?? 'application/octet-stream' });
    res.end(readFileSync(route));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
