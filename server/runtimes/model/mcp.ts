import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import type { ModelOptions } from './options.js';

type McpServer = NonNullable<ModelOptions['mcp_servers']>[number];

/** What a tool call came to: its output for the model, or the server wants the visitor's credential. */
export type McpOutcome = { content: string; isError: boolean } | { needsCredential: McpServer };

/** How long one MCP request (connecting, listing, a tool call) may take. */
const MCP_TIMEOUT_MS = 60_000;
/** A tool's output beyond this is cut for the model and the record. */
const MAX_RESULT_CHARS = 16_000;
/** The tools of the servers of one agent offered to the model, at most. */
const MAX_TOOLS = 64;

/**
 * The MCP servers of one agent for one turn (streamable HTTP, `@modelcontextprotocol/sdk`), each reached with
 * the visitor's credential for it as `Authorization: Bearer`. A server that refuses to connect without one
 * is offered as a single `<name>__connect` function, so the model can ask the visitor for it when needed.
 */
export class McpToolset {
  readonly tools: ChatCompletionFunctionTool[] = [];
  private readonly routes = new Map<string, { server: McpServer; client?: Client; tool?: string }>();
  private readonly clients: Client[] = [];

  private constructor(private readonly signal: AbortSignal) {}

  static async connect(
    servers: McpServer[],
    credentialFor: (server: McpServer) => Promise<string | undefined>,
    o: { signal: AbortSignal; log(line: string): void },
  ): Promise<McpToolset> {
    const set = new McpToolset(o.signal);
    await Promise.all(servers.map(async (server) => set.add(server, await credentialFor(server), o.log)));
    return set;
  }

  has(name: string): boolean {
    return this.routes.has(name);
  }

  async call(name: string, args: Record<string, unknown>): Promise<McpOutcome> {
    const route = this.routes.get(name)!;
    if (!route.client || !route.tool) return { needsCredential: route.server };
    try {
      const result = await route.client.callTool({ name: route.tool, arguments: args }, undefined, {
        signal: this.signal,
        timeout: MCP_TIMEOUT_MS,
      });
      const output = clip(outputText(result.content));
      return result.isError === true
        ? { content: `The tool reported an error: ${output}`, isError: true }
        : { content: output, isError: false };
    } catch (err) {
      if (isRefusal(err)) return { needsCredential: route.server };
      this.signal.throwIfAborted();
      return { content: `The tool failed: ${err instanceof Error ? err.message : String(err)}`, isError: true };
    }
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.clients.map((client) => client.close()));
  }

  private async add(server: McpServer, token: string | undefined, log: (line: string) => void): Promise<void> {
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    const client = new Client({ name: 'svc-server', version: '1.0.0' });
    const options = { signal: this.signal, timeout: MCP_TIMEOUT_MS };
    try {
      await client.connect(
        new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers } }),
        options,
      );
      this.clients.push(client);
      const { tools } = await client.listTools(undefined, options);
      for (const tool of tools) {
        if (this.tools.length >= MAX_TOOLS) break;
        const name = functionName(server.name, tool.name);
        this.routes.set(name, { server, client, tool: tool.name });
        const about = [server.description, tool.description].filter(Boolean).join(': ');
        this.tools.push({
          type: 'function',
          function: { name, description: about || tool.name, parameters: tool.inputSchema as Record<string, unknown> },
        });
      }
    } catch (err) {
      if (this.signal.aborted) return;
      if (!isRefusal(err)) {
        log(`MCP server ${server.name} is not available: ${err instanceof Error ? err.message : String(err)}`);
        return;
      }
      const name = functionName(server.name, 'connect');
      this.routes.set(name, { server });
      this.tools.push({
        type: 'function',
        function: {
          name,
          description: `${server.description ?? server.name}: these tools need the visitor's own credential. Call this to ask the visitor for it.`,
          parameters: { type: 'object', properties: {} },
        },
      });
    }
  }
}

/** The server turned the caller away for want of a (valid) credential. */
function isRefusal(err: unknown): boolean {
  return (
    err instanceof UnauthorizedError || (err instanceof StreamableHTTPError && (err.code === 401 || err.code === 403))
  );
}

/** `<server>__<tool>`, in the characters and length a function name may have. */
function functionName(server: string, tool: string): string {
  return `${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
}

function outputText(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content
    .map((item: { type?: string; text?: string; resource?: { uri?: string; text?: string } }) => {
      if (item.type === 'text') return item.text ?? '';
      if (item.type === 'resource') return item.resource?.text ?? `[resource ${item.resource?.uri ?? ''}]`;
      return `[${item.type ?? 'unknown'} content]`;
    })
    .join('\n');
}

function clip(text: string): string {
  return text.length <= MAX_RESULT_CHARS
    ? text
    : `${text.slice(0, MAX_RESULT_CHARS)}\n[… cut: the output was ${text.length} characters]`;
}
