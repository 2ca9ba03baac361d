import { CONNECTOR_TYPE_ID } from '@svc/agent-sdk/protocol';
import { z } from 'zod';
import { security, USER_REFUSALS, userHook } from '../http/auth.js';
import { fixedValidationDetail } from '../http/errors.js';
import { described, documented } from '../http/openapi.js';
import { saveCredentials } from '../services/connector-credentials.js';
import type { AppContext } from '../services/context.js';
import { allowedAgent } from '../turns/send-target.js';
import { documentedRefusals } from './refusal-answers.js';
import type { ZodApp } from './route-module.js';

const MAX_FIELDS = 50;

const CONNECTOR_TYPE =
  'connectorTypeId must be 1 to 64 characters of a-z, 0-9, _ and -, starting with a letter or digit';

const params = z.object({ connectorTypeId: z.string().regex(CONNECTOR_TYPE_ID) });

const body = described(
  "The connector's fields and their values.",
  z.object({
    credentials: documented(
      z
        .record(z.string().min(1).max(100), z.string().max(10_000))
        .refine(
          (fields) => Object.values(fields).some((value) => value !== ''),
          'must hold at least one non-empty value',
        )
        .refine((fields) => Object.keys(fields).length <= MAX_FIELDS, `must hold at most ${MAX_FIELDS} fields`),
      {
        minProperties: 1,
        maxProperties: MAX_FIELDS,
        description: `1 to ${MAX_FIELDS} fields, at least one of them not empty.`,
      },
    ),
    agentId: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .describe(
        "Saves them for this agent's MCP server named `connectorTypeId` (a card with `server` asks so): bound to " +
          "the agent's workspace and the server's URL, they are sent to that server alone.",
      ),
  }),
  { credentials: { api_key: 'example-key' } },
);

/** The caller's own (bring-your-own-key) connector credentials, stored encrypted. */
export default function profileRoutes(app: ZodApp, ctx: AppContext) {
  app.addHook('onRequest', userHook(ctx.db));

  app.put(
    '/profile/credentials/:connectorTypeId',
    {
      schema: {
        tags: ['profile'],
        operationId: 'submitConnectorCredentials',
        summary: "Store the caller's credentials for a connector",
        description:
          "The caller's own (bring-your-own-key) credentials for a connector type, which agents' tools of that " +
          'type then use; stored encrypted and never returned. A `setup_connector` card asks for them. With ' +
          "`agentId`, they are an MCP server's: kept for that server's workspace and URL (origin and path) only.",
        security: security.user,
        params,
        body,
        response: {
          200: described(
            'Which fields are stored.',
            z.object({ connectorTypeId: z.string(), fields: z.array(z.string()), updatedAt: z.string().datetime() }),
            { connectorTypeId: 'github', fields: ['api_key'], updatedAt: '2026-11-21T10:00:00.000Z' },
          ),
        },
        refusals: [
          USER_REFUSALS,
          {
            400: {
              [CONNECTOR_TYPE]: 'A malformed `connectorTypeId`.',
              'body/credentials must hold at least one non-empty value': 'No field, or only empty values.',
              [`body/credentials must hold at most ${MAX_FIELDS} fields`]: 'Too many fields.',
            },
          },
          documentedRefusals({
            agent_not_found: '`agentId` names no agent the caller may talk to.',
            mcp_server_unknown: "The agent's settings name no MCP server `connectorTypeId`.",
          }),
        ],
      },
      schemaErrorFormatter: fixedValidationDetail(CONNECTOR_TYPE, 'params'),
    },
    async (req) => {
      const { connectorTypeId } = req.params;
      const { credentials, agentId } = req.body;
      const agent = agentId === undefined ? undefined : await allowedAgent(ctx.db, req.caller, agentId);
      const saved = await saveCredentials(ctx, req.caller.userId, connectorTypeId, credentials, agent);
      return { connectorTypeId, ...saved };
    },
  );
}
