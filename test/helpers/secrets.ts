import { BILLING_TOKENS } from './mcp-server.js';

/**
 * The `mcpTokens` values the suites send (they are never stored, so the log check cannot collect them from a
 * database): the send of test/server/conversations.test.ts, the session of test/reliability/secrets.test.ts
 * (also saved as a connector credential), and the billing MCP server's tokens of the model runtime's suite.
 */
export const MCP_TOKENS = {
  conversations: 'mcp-secret-value-7f3a',
  session: 'mcp_secret_value_that_must_never_be_stored',
  billing: Object.keys(BILLING_TOKENS),
};
