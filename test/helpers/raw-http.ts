import { get as httpGet, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string;
}

/**
 * Writes `bytes` exactly as given to a new TCP connection to the service at `url`, and reads the answer until
 * the service closes the connection: what a hostile client or a broken proxy sends, which `fetch` never
 * would. Requests that should be answered normally must say `Connection: close`.
 */
export function rawRequest(url: string, bytes: string | Buffer): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), hostname, () => socket.end(bytes));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => {
      // A reset after the answer was written is the service closing a bad connection: read what came.
    });
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(text);
      if (end < 0 || !status) return reject(new Error(`no HTTP answer: ${JSON.stringify(text.slice(0, 200))}`));
      const headers: Record<string, string> = {};
      for (const line of text.slice(0, end).split('\r\n').slice(1)) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      const raw = Buffer.from(text.slice(end + 4), 'latin1');
      const body = headers['transfer-encoding'] === 'chunked' ? dechunk(raw) : raw;
      resolve({ status: Number(status[1]), headers, body: body.toString('utf8') });
    });
  });
}

/** A `Transfer-Encoding: chunked` body, joined. */
function dechunk(raw: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = raw.indexOf('\r\n', at);
    if (lineEnd < 0) return Buffer.concat(parts);
    const size = Number.parseInt(raw.subarray(at, lineEnd).toString('latin1'), 16);
    if (!size) return Buffer.concat(parts);
    parts.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

/** An HTTP/1.1 request as text, with `Connection: close` and the body's length. */
export function requestText(method: string, path: string, headers: Record<string, string>, body = ''): string {
  const lines = Object.entries({ connection: 'close', ...headers }).map(([name, value]) => `${name}: ${value}\r\n`);
  const length = body || method !== 'GET' ? `content-length: ${Buffer.byteLength(body)}\r\n` : '';
  return `${method} ${path} HTTP/1.1\r\n${lines.join('')}${length}\r\n${body}`;
}

/** A GET as a browser sends it, with the bytes that came over the wire (not decompressed). */
export function getRaw(url: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    httpGet(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}
