import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../services/context.js';
import { badRequest } from './errors.js';

/**
 * Where the links the service hands out (pay pages, uploaded files) point: the configured public URL, or
 * else the origin the caller used, from a `Host` header that is a host and nothing else. A `Host` can be
 * anything a client writes; unchecked, it would put `http://a"><script>…` into stored records.
 */

/** A DNS name or IPv4 address, or a bracketed IPv6 address, then an optional port. */
const HOST =
  /^(?:[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** The origin links are made with; 400 `the Host header is not a valid host` without `--public-url` and a good Host. */
export function baseUrlOf(ctx: Pick<AppContext, 'publicUrl'>, req: FastifyRequest): string {
  if (ctx.publicUrl) return ctx.publicUrl;
  const host = req.headers.host;
  if (!host || !HOST.test(host)) throw badRequest('the Host header is not a valid host');
  return `${req.protocol === 'https' ? 'https' : 'http'}://${host}`;
}

/** `--public-url`: an absolute http(s) URL, optionally with a path, no query, fragment or credentials; no trailing `/`. */
export function publicUrlOption(value: string): string {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (!url || !/^https?:$/.test(url.protocol) || url.search || url.hash || url.username || url.password) {
    throw new Error(`--public-url must be an http(s) URL without query, fragment or credentials: ${value}`);
  }
  return url.href.replace(/\/+$/, '');
}
