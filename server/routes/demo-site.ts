import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { notFound } from '../http/errors.js';
import type { AppContext } from '../services/context.js';
import { chooseEncoding, WidgetFiles } from '../services/widget-files.js';
import type { ZodApp } from './route-module.js';

/** The demo pages, beside the service's code (`dist/demo/` once built). */
const PAGES_DIR = fileURLToPath(new URL('../demo/', import.meta.url));
/** The widget's script-tag files, from the installed `@svc/agent-sdk`. */
const WIDGET_DIR = dirname(fileURLToPath(import.meta.resolve('@svc/agent-sdk/svc-chat.js')));
const PAGES: Record<string, string> = {
  '/': 'index.html',
  '/sms': 'sms.html',
  '/esm': 'esm.html',
  '/inbox': 'inbox.html',
};
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};
/** The demo pages run under the strict policy a careful site would use: no inline script, no eval. */
const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob: data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');
const VISITOR_COOKIE = 'svc_demo_visitor';

/**
 * The demo site: its pages, the built widget, and its backend's token endpoint. The backend does what a
 * site owner's server does: it holds the workspace key and mints a session for each visitor over the
 * service's HTTP API, so the key never reaches a browser.
 */
export default function demoSiteRoutes(app: ZodApp, ctx: AppContext) {
  const { demoApiKey } = ctx;
  if (!demoApiKey) return;

  const sendPage = async (reply: FastifyReply, name: string) => {
    if (!/^[\w.-]+$/.test(name) || name.startsWith('.')) throw notFound('route not found');
    const type = TYPES[extname(name)];
    if (!type) throw notFound('route not found');
    const body = await readFile(join(PAGES_DIR, name)).catch(() => {
      throw notFound('route not found');
    });
    // nosniff comes with every answer of the service (errors.ts SAFETY_HEADERS).
    reply.headers({ 'content-type': type, 'cache-control': 'no-cache', 'referrer-policy': 'no-referrer' });
    if (type.startsWith('text/html')) reply.header('content-security-policy', PAGE_CSP);
    return reply.send(body);
  };

  for (const [path, file] of Object.entries(PAGES)) app.get(path, (_req, reply) => sendPage(reply, file));
  const schema = { params: z.object({ name: z.string() }) };
  app.get('/demo/:name', { schema }, (req, reply) => sendPage(reply, req.params.name));

  // The widget's script-tag files, served as a CDN serves them (widget-files.ts).
  const widget = new WidgetFiles(WIDGET_DIR);
  app.get('/dist/:name', { schema }, async (req, reply) => {
    const { name } = req.params;
    if (!/^svc-chat[\w.-]*\.js$/.test(name)) throw notFound('route not found');
    const file = await widget.get(name).catch(() => {
      throw notFound('the widget is not built: run npm run build');
    });
    reply.headers({
      'content-type': TYPES['.js']!,
      'cache-control': file.cacheControl,
      etag: file.etag,
      vary: 'Accept-Encoding',
    });
    if (req.headers['if-none-match'] === file.etag) return reply.code(304).send();
    const encoding = chooseEncoding(req.headers['accept-encoding']);
    if (encoding !== 'identity') reply.header('content-encoding', encoding);
    return reply.send(file.bodies[encoding]);
  });

  /** A call of the demo workspace's routes with its key, over HTTP as a site's backend makes it. */
  const workspaceCall = async (req: FastifyRequest, path: string, body: unknown) => {
    const apiKey = await demoApiKey();
    const res = await fetch(`http://127.0.0.1:${req.socket.localPort}/api/v2/workspaces/demo${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (!res.ok) throw Object.assign(new Error(String(json.detail)), { statusCode: res.status });
    return json;
  };

  app.post('/demo/token', async (req, reply) => {
    const visitor = cookie(req.headers.cookie, VISITOR_COOKIE) ?? `visitor_${randomBytes(12).toString('base64url')}`;
    const call = (path: string, body: unknown) => workspaceCall(req, path, body);
    await call('/members', { sp_user_ref: visitor, display_name: 'Demo visitor' });
    const session = await call('/sessions', { sp_user_ref: visitor, ttl_seconds: 3600 });
    reply.header('set-cookie', `${VISITOR_COOKIE}=${visitor}; Path=/; HttpOnly; SameSite=Lax; Max-Age=31536000`);
    reply.header('cache-control', 'no-store');
    // A page of another origin embeds the demo chat with token-credentials="include": answer it with credentials,
    // so that its visitor is known again by the cookie (a credentialed request cannot take `*`).
    const { origin: from } = req.headers;
    if (from)
      reply.headers({
        'access-control-allow-origin': from,
        'access-control-allow-credentials': 'true',
        vary: 'Origin',
      });
    return session;
  });

  // The demo inbox's person of the staff: one demo operator, Alex (a real site signs in its own staff first).
  app.post('/demo/operator-token', async (req, reply) => {
    reply.header('cache-control', 'no-store');
    return workspaceCall(req, '/operators/sessions', { operator_ref: 'demo_operator', display_name: 'Alex' });
  });
}

demoSiteRoutes.prefix = '/';

function cookie(header: string | undefined, name: string): string | undefined {
  for (const part of header?.split(';') ?? []) {
    const [key, ...value] = part.trim().split('=');
    if (key === name && /^visitor_[\w-]+$/.test(value.join('='))) return value.join('=');
  }
  return undefined;
}
