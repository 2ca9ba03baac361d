import { connect, createServer, type Server, type Socket } from 'node:net';

export interface CuttingProxy {
  /** `http://127.0.0.1:<port>`: use it as the client's `baseUrl`. */
  url: string;
  /** Connections accepted so far. */
  readonly connections: number;
  /** Connections cut so far. */
  readonly cuts: number;
  /** Client connections still open. */
  readonly open: number;
  /**
   * Byte offsets at which to cut the next connections, one per connection in order: the n-th connection
   * forwards `offsets[n]` bytes of the server's answer (headers included), then both sides are destroyed.
   * A connection takes its offset when its first request arrives, not when it opens: an HTTP client may
   * open a spare connection early. Connections past the list are forwarded whole.
   */
  cutAt(offsets: number[]): void;
  close(): Promise<void>;
}

/**
 * A loopback TCP proxy between a client and a real service that cuts connections at chosen byte offsets
 * of the response, as a flaky network or a restarting load balancer would.
 */
export async function startCuttingProxy(target: string): Promise<CuttingProxy> {
  const { hostname, port } = new URL(target);
  let plan: number[] = [];
  let connections = 0;
  let cuts = 0;
  const sockets = new Set<Socket>();
  const clients = new Set<Socket>();
  const server: Server = createServer((client) => {
    connections++;
    clients.add(client);
    client.on('close', () => clients.delete(client));
    let budget: number | undefined;
    client.once('data', () => {
      budget = plan.shift();
    });
    const upstream = connect(Number(port), hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
    }
    client.pipe(upstream);
    let forwarded = 0;
    upstream.on('data', (chunk: Buffer) => {
      if (budget === undefined) {
        client.write(chunk);
        return;
      }
      const room = budget - forwarded;
      if (room <= 0) return;
      forwarded += Math.min(room, chunk.length);
      if (chunk.length < room) {
        client.write(chunk);
        return;
      }
      cuts++;
      client.end(chunk.subarray(0, room), () => {
        client.destroy();
        upstream.destroy();
      });
    });
    upstream.on('end', () => client.end());
    client.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const listening = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${listening}`,
    get connections() {
      return connections;
    },
    get cuts() {
      return cuts;
    },
    get open() {
      return clients.size;
    },
    cutAt(offsets) {
      plan = [...offsets];
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
