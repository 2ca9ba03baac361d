import { networkInterfaces } from 'node:os';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../services/context.js';
import { badRequest } from './errors.js';

/**
 * Where the links the service hands out (pay pages, uploaded files) point: the configured public URL, or
 * else the origin the caller used, when its `Host` names an address the service listens on or a name the
 * operator configured (`--link-host`); any other `Host` gets the service's own address. A `Host` can be
 * anything a client writes: unchecked, it would put `http://a"><script>…` or `http://evil.example/pay/…`
 * into stored records.
 */

/** The hosts links may name without `--public-url`, and the origin used for any other `Host`. */
export interface LinkHosts {
  /** `host[:port]` as `URL.host` writes it (lower case, no default port). */
  names: Set<string>;
  /** The service's own origin, e.g. `http://127.0.0.1:8787`. */
  own: string;
  /** A `Host` that was not one of `names` has been logged (once per host, at most 100). */
  warned: Set<string>;
}

/** A DNS name or IPv4 address, or a bracketed IPv6 address, then an optional port. */
const HOST =
  /^(?:[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The origin links are made with: `--public-url`; else the request's `Host` when it names this service
 * (LinkHosts), else the service's own address. 400 `the Host header is not a valid host` for a `Host` that
 * is not a host at all.
 */
export function baseUrlOf(ctx: Pick<AppContext, 'publicUrl' | 'linkHosts' | 'log'>, req: FastifyRequest): string {
  if (ctx.publicUrl) return ctx.publicUrl;
  const host = req.headers.host;
  const origin = host && HOST.test(host) ? URL.parse(`${req.protocol === 'https' ? 'https' : 'http'}://${host}`) : null;
  if (!origin) throw badRequest('the Host header is not a valid host');
  const { names, own, warned } = ctx.linkHosts;
  if (names.has(origin.host)) return `${origin.protocol}//${host}`;
  if (!warned.has(origin.host) && warned.size < 100) {
    warned.add(origin.host);
    ctx.log(
      `links asked for from Host ${origin.host}, which is not an address of this service nor a --link-host: they use ${own} (set --public-url or --link-host)`,
    );
  }
  return own;
}

/**
 * The hosts a service listening on `host`:`port` answers to: that address (every address of this machine
 * when it is a wildcard), `localhost` for a loopback one, and the operator's `--link-host` names.
 */
export function linkHostsFor(host: string, port: number, configured: string[] = []): LinkHosts {
  const wildcard = host === '0.0.0.0' || host === '::' || host === '';
  const addresses = wildcard
    ? Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((entry) => entry.address))
    : [host];
  const loopback = addresses.some((address) => address === 'localhost' || /^(127\.|::1$)/.test(address));
  const names = new Set<string>();
  const add = (name: string, withPort: boolean) => {
    const text = name.includes(':') && !name.startsWith('[') && withPort ? `[${name}]` : name;
    names.add(new URL(`http://${withPort ? `${text}:${port}` : text}`).host);
  };
  for (const address of addresses) add(address.replace(/%.*$/, ''), true);
  if (loopback) add('localhost', true);
  for (const name of configured) names.add(linkHostOption(name));
  const first = wildcard ? '127.0.0.1' : host;
  return { names, own: `http://${first.includes(':') ? `[${first}]` : first}:${port}`, warned: new Set() };
}

/** `--link-host`: a host name or address, with a port unless it is the default one (`chat.example.com:8443`). */
export function linkHostOption(value: string): string {
  const url = HOST.test(value) ? URL.parse(`http://${value}`) : null;
  if (!url) throw new Error(`--link-host must be a host name or address with an optional port: ${value}`);
  return url.host;
}

/** `--public-url`: an absolute http(s) URL, optionally with a path, no query, fragment or credentials; no trailing `/`. */
export function publicUrlOption(value: string): string {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (!url || !/^https?:$/.test(url.protocol) || url.search || url.hash || url.username || url.password) {
    throw new Error(`--public-url must be an http(s) URL without query, fragment or credentials: ${value}`);
  }
  return url.href.replace(/\/+$/, '');
}
