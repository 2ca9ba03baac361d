import { z } from 'zod';
import type { AgentRow } from '../../store/agent-rows.js';

/**
 * What names an MCP server: its tools' prefix, the key of its `mcpTokens` entry and its card's connector
 * type: a connector type id (`CONNECTOR_TYPE_ID` of the protocol: one rule everywhere) of at most 32
 * characters.
 */
export const MCP_SERVER_NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;

/**
 * A `model` agent's settings, as the fixture gives them (docs/server.md, "The model runtime"). The key is
 * never among them: only the name of the environment variable that holds it.
 */
export const modelOptionsSchema = z.object({
  /** The model's name at the endpoint, e.g. `gpt-4o-mini` or `llama3.2`. */
  model: z.string().min(1).max(200).optional(),
  /** An OpenAI-compatible endpoint, up to `/v1`. */
  base_url: z.string().url().optional(),
  system_prompt: z.string().max(100_000).optional(),
  temperature: z.number().min(0).max(2).optional(),
  max_tokens: z.number().int().min(1).max(1_000_000).optional(),
  /** The environment variable holding the endpoint's key (default `SVC_MODEL_API_KEY`, then `OPENAI_API_KEY`). */
  api_key_env: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]{0,99}$/)
    .optional(),
  /** A reply ends with an error when the endpoint sends nothing for this long. */
  idle_timeout_ms: z.number().int().min(1).max(3_600_000).optional(),
  /** A reply (a whole turn of this agent, every model request and tool call of it) ends with an error past this. */
  turn_timeout_ms: z.number().int().min(1).max(3_600_000).optional(),
  /** Retries of a request the endpoint refused with 429 or 5xx, or that could not connect. */
  max_retries: z.number().int().min(0).max(10).optional(),
  mcp_servers: z
    .array(
      z.object({
        name: z.string().regex(MCP_SERVER_NAME),
        url: z.string().url(),
        description: z.string().max(2000).optional(),
      }),
    )
    .max(16)
    .optional(),
});

export type ModelOptions = z.infer<typeof modelOptionsSchema>;

/** The fixture fields of an agent that are its model settings. */
export const MODEL_OPTION_KEYS = Object.keys(modelOptionsSchema.shape) as (keyof ModelOptions)[];

/** Picks the model settings out of a fixture agent (its other fields are the agent's own). */
export function modelOptionsOf(agent: Partial<Record<string, unknown>>): ModelOptions {
  return Object.fromEntries(MODEL_OPTION_KEYS.flatMap((key) => (agent[key] === undefined ? [] : [[key, agent[key]]])));
}

/** The MCP servers an agent's settings name (none for an agent of another runtime or without settings). */
export function mcpServersOf(agent: AgentRow): NonNullable<ModelOptions['mcp_servers']> {
  if (agent.runtime !== 'model' || !agent.options) return [];
  try {
    return modelOptionsSchema.safeParse(JSON.parse(agent.options)).data?.mcp_servers ?? [];
  } catch {
    return [];
  }
}

/** A server's URL as a credential is bound to it: origin and path. */
export const serverAddress = (url: string): string => {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
};

/**
 * The visitor's `mcpTokens` a delegated agent may use: those whose server the delegating agent and it both
 * name alike at the same URL (origin and path). A token is never sent to another URL than the one it was
 * given for.
 */
export function tokensForDelegate(
  tokens: Record<string, string>,
  from: AgentRow,
  to: AgentRow,
): Record<string, string> {
  const given = new Map(mcpServersOf(from).map((server) => [server.name, serverAddress(server.url)]));
  const same = new Set(
    mcpServersOf(to)
      .filter((server) => given.get(server.name) === serverAddress(server.url))
      .map((server) => server.name),
  );
  return Object.fromEntries(Object.entries(tokens).filter(([name]) => same.has(name)));
}

export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
/** A model turn's time limit by default: 10 minutes. */
export const DEFAULT_TURN_TIMEOUT_MS = 600_000;
export const DEFAULT_MAX_RETRIES = 2;

/** The endpoint's key, from the environment only; undefined when none is set (local servers need none). */
export function apiKeyFor(options: ModelOptions, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (options.api_key_env) return env[options.api_key_env] || undefined;
  return env.SVC_MODEL_API_KEY || env.OPENAI_API_KEY || undefined;
}
