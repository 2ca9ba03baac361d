import { once } from 'node:events';
import { createServer } from 'node:net';

/**
 * A port nothing listens on: the operating system's pick, released again. Connecting to it is refused until
 * something listens there (a service not started yet, or a wrong port in a page).
 */
export async function freePort() {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  server.close();
  await once(server, 'close');
  return port;
}
