import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { type ModelOptions, modelOptionsOf, modelOptionsSchema } from '../runtimes/model/options.js';
import { setAgentRuntime } from '../store/agent-rows.js';
import { insertPersonalKey } from '../store/credential-rows.js';
import type { Db } from '../store/db.js';
import { insertWorkspace, setOperators, workspaceBySlug } from '../store/workspace-rows.js';

const id = z.string().min(1);
/** A list the file may leave out. */
const listOf = <Shape extends z.ZodRawShape>(shape: Shape) => z.array(z.object(shape)).default([]);

/** The fixture file format of docs/server.md; an outside conformance suite writes these. */
export const fixtureSchema = z.object({
  workspaces: listOf({
    slug: id,
    display_name: z.string(),
    status: z.string().default('active'),
    sms_signup: z.boolean().default(false),
    owner: z.object({ user_id: id, login_token: id, wallet: z.number().default(0) }),
    /** The workspace's staff take conversations over (our extension); `wait_seconds` overrides --handoff-wait. */
    operators: z.object({ wait_seconds: z.number().int().min(1).max(86_400).optional() }).optional(),
    api_keys: listOf({ id, secret: id, revoked: z.boolean().optional() }),
    agents: z
      .array(
        z
          .object({
            id,
            name: z.string(),
            runtime: z.string().default('echo'),
            description: z.string().optional(),
            avatar_url: z.string().optional(),
            /** Shown as buttons by a chat that has no message yet (our extension). */
            starter_prompts: z.array(z.string().min(1).max(200)).max(6).optional(),
          })
          // A `model` agent's settings sit beside its other fields.
          .merge(modelOptionsSchema),
      )
      .default([]),
  }),
  personal_keys: listOf({ secret: id, user_id: id }),
});

export type Fixture = z.input<typeof fixtureSchema>;

export function readFixture(path: string): Fixture {
  return JSON.parse(readFileSync(path, 'utf8')) as Fixture;
}

/**
 * Loads a fixture. Slugs, key ids and agent ids must be unique. A workspace the database already holds (a
 * restart on the same `--db` file) is kept as stored, so its wallet, members and conversations survive;
 * only its operator settings and its `model` agents' settings come from the fixture again (the agents' over
 * `modelDefaults`, the command line's).
 */
export async function loadFixture(db: Db, input: Fixture, modelDefaults: ModelOptions = {}): Promise<void> {
  const fixture = fixtureSchema.parse(input);
  for (const ws of fixture.workspaces) {
    const agents = ws.agents.map((agent) => ({
      ...agent,
      options: agent.runtime === 'model' ? { ...modelDefaults, ...modelOptionsOf(agent) } : undefined,
    }));
    const stored = await workspaceBySlug(db, ws.slug);
    if (!stored) await insertWorkspace(db, { ...ws, agents });
    else {
      await setOperators(db, stored.id, ws.operators);
      for (const agent of agents)
        if (agent.options) await setAgentRuntime(db, agent.id, { runtime: agent.runtime, options: agent.options });
    }
  }
  for (const key of fixture.personal_keys) await insertPersonalKey(db, key.secret, key.user_id);
}
