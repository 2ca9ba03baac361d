import { mcpServersOf } from '../runtimes/model/options.js';
import type { AgentRow } from '../store/agent-rows.js';
import { getConnectorCredentials, saveConnectorCredentials } from '../store/connector-credential-rows.js';
import type { AppContext } from './context.js';
import { Refusal } from './refusal.js';

/*
 * A visitor's own (bring-your-own-key) credentials, stored encrypted by store/connector-credential-rows.ts: per
 * connector type, or for an agent's MCP server, bound to the agent's workspace and the server's URL so that they
 * reach that server alone (docs/server.md "The model runtime": MCP tools).
 */

/**
 * The key under which a visitor's credential for an MCP server is stored in place of a connector type id: the
 * workspace and the server's URL, origin and path (`mcp <workspace id> https://host/path`). It is found again
 * only for a server of that workspace at that URL, whatever the server is named.
 */
function serverKey(workspaceId: string, serverUrl: string): string {
  const url = new URL(serverUrl);
  return `mcp ${workspaceId} ${url.origin}${url.pathname}`;
}

/**
 * Replaces the caller's credentials for a connector type or, with `agent`, for that agent's MCP server named
 * `connectorTypeId` (`mcp_server_unknown` when it has none); answers which fields are stored.
 */
export async function saveCredentials(
  ctx: AppContext,
  userId: string,
  connectorTypeId: string,
  credentials: Record<string, string>,
  agent?: AgentRow,
): Promise<{ fields: string[]; updatedAt: string }> {
  let key = connectorTypeId;
  if (agent) {
    const server = mcpServersOf(agent).find((s) => s.name === connectorTypeId);
    if (!server) throw new Refusal('mcp_server_unknown');
    key = serverKey(agent.workspace_id, server.url);
  }
  const { fields, updatedAt } = await saveConnectorCredentials(ctx.db, ctx.secret, userId, key, credentials);
  return { fields, updatedAt };
}

/** What a user saved for a connector type, for the runtime that calls the connector. */
export function connectorCredentials(ctx: AppContext, userId: string, connectorTypeId: string) {
  return getConnectorCredentials(ctx.db, ctx.secret, userId, connectorTypeId);
}

/** What a user saved for the MCP server at `serverUrl` of an agent of the workspace. */
export function serverCredentials(ctx: AppContext, userId: string, workspaceId: string, serverUrl: string) {
  return getConnectorCredentials(ctx.db, ctx.secret, userId, serverKey(workspaceId, serverUrl));
}
