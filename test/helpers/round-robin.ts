import { once } from 'node:events';
import { createServer, request } from 'node:http';

export interface RoundRobin {
  /** `http://127.0.0.1:<port>`: the one address of the instances behind it. */
  url: string;
  /** Requests sent to each instance so far, in the order of `targets`. */
  readonly served: number[];
  close(): Promise<void>;
}

/**
 * Hop-by-hop headers describe one connection, so a proxy does not pass them on (RFC 9110 §7.6.1). The instance's
 * `Keep-Alive: timeout=72` passed on made clients keep a connection to the balancer for 72 s, which the balancer
 * (Node's 5 s) had closed: a request sent on it as it closed failed with `fetch failed` (network-cuts, now and then).
 */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'upgrade']);

/** Raw headers (name, value, name, value…) without the hop-by-hop ones. */
function endToEnd(raw: string[]): string[] {
  return raw.flatMap((value, i) =>
    i % 2 === 0 ? (HOP_BY_HOP.has(value.toLowerCase()) ? [] : [value, raw[i + 1]!]) : [],
  );
}

/**
 * A load balancer in front of several instances of the service: each request goes to the next instance in
 * turn, with no stickiness, as a plain round-robin balancer would send them. Bodies and answers are
 * streamed both ways (an SSE stream stays open), and a client that leaves closes its upstream request.
 * `targets` may be filled in once it listens: its address names the service the instances start with.
 */
export async function startRoundRobin(targets: readonly string[]): Promise<RoundRobin> {
  const served: number[] = [];
  let next = 0;
  const server = createServer((req, res) => {
    const index = next++ % targets.length;
    served[index] = (served[index] ?? 0) + 1;
    const target = new URL(targets[index]!);
    const upstream = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, endToEnd(answer.rawHeaders));
        res.flushHeaders();
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port: bound } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${bound}`,
    served,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
