import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export interface BillingServer {
  /** The MCP endpoint (streamable HTTP). */
  url: string;
  /** Every `list_invoices` call, with the token it came with. */
  calls: { tool: string; token?: string }[];
  close(): Promise<void>;
}

/** Each valid token and the customer it belongs to. */
export const BILLING_TOKENS: Record<string, string> = { 'tok-ada-7f3k': 'Ada', 'tok-bob-9q2m': 'Bob' };

/**
 * A real MCP server (the SDK's `McpServer` over its streamable HTTP transport, stateless) for an invoicing
 * service: `list_invoices` needs a bearer token and answers with that token's customer's invoices;
 * `invoice_help` needs none. With `protect: 'tool'` the server turns away only a `list_invoices` call
 * without a valid token (HTTP 401); with `protect: 'endpoint'` it turns away every request without one.
 */
export async function startBillingServer(protect: 'tool' | 'endpoint' = 'tool'): Promise<BillingServer> {
  const calls: BillingServer['calls'] = [];
  const http = createServer(
    async (req: IncomingMessage & { auth?: { token: string; clientId: string; scopes: string[] } }, res) => {
      let raw = '';
      for await (const chunk of req) raw += chunk;
      const body = raw ? JSON.parse(raw) : undefined;
      const token = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
      const valid = token !== undefined && Object.hasOwn(BILLING_TOKENS, token);
      const gated = protect === 'endpoint' || (body?.method === 'tools/call' && body.params?.name === 'list_invoices');
      if (gated && !valid) return refuse(res);
      if (token) req.auth = { token, clientId: 'svc-test', scopes: [] };
      const mcp = billing(calls);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => {
        void transport.close();
        void mcp.close();
      });
      await mcp.connect(transport);
      await transport.handleRequest(req, res, body);
    },
  );
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    calls,
    async close() {
      http.closeAllConnections();
      http.close();
      await once(http, 'close');
    },
  };
}

function refuse(res: ServerResponse): void {
  res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer realm="billing"' });
  res.end(JSON.stringify({ error: 'invalid_token', error_description: 'a valid bearer token is required' }));
}

function billing(calls: BillingServer['calls']): McpServer {
  const server = new McpServer({ name: 'billing', version: '1.0.0' });
  server.registerTool(
    'list_invoices',
    {
      description: "Lists the signed-in customer's invoices",
      inputSchema: { status: z.enum(['open', 'paid']).optional() },
    },
    async ({ status }, extra) => {
      const token = extra.authInfo?.token;
      calls.push({ tool: 'list_invoices', token });
      const customer = token ? BILLING_TOKENS[token] : undefined;
      const invoices = [
        { id: 'INV-1001', customer, amount: 120, status: 'paid' },
        { id: 'INV-1002', customer, amount: 75.5, status: 'open' },
      ].filter((invoice) => !status || invoice.status === status);
      return { content: [{ type: 'text', text: JSON.stringify(invoices) }] };
    },
  );
  server.registerTool('invoice_help', { description: 'How invoices work', inputSchema: {} }, async () => {
    calls.push({ tool: 'invoice_help' });
    return { content: [{ type: 'text', text: 'Invoices are sent on the first of each month.' }] };
  });
  return server;
}
