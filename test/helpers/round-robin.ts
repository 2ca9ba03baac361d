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
 * A load balancer in front of several instances of the service: each request goes to the next instance in
 * turn, with no stickiness, as a plain round-robin balancer would send them. Bodies and answers are
 * streamed both ways (an SSE stream stays open), and a client that leaves closes its upstream request.
 */
export async function startRoundRobin(targets: string[], port = 0): Promise<RoundRobin> {
  const served = targets.map(() => 0);
  let next = 0;
  const server = createServer((req, res) => {
    const index = next++ % targets.length;
    served[index]!++;
    const target = new URL(targets[index]!);
    const upstream = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
        res.flushHeaders();
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  server.listen(port, '127.0.0.1');
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
