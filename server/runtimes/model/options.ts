import { z } from 'zod';

/** What names an MCP server: its tools' prefix, the key of its `mcpTokens` entry and its connector type. */
export const MCP_SERVER_NAME = /^[A-Za-z0-9_-]{1,32}$/;

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

export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_RETRIES = 2;

/** The endpoint's key, from the environment only; undefined when none is set (local servers need none). */
export function apiKeyFor(options: ModelOptions, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (options.api_key_env) return env[options.api_key_env] || undefined;
  return env.SVC_MODEL_API_KEY || env.OPENAI_API_KEY || undefined;
}
