import type { ModelOptions } from '../runtimes/model/options.js';
import { setAgentRuntime } from '../store/agent-rows.js';
import type { Db } from '../store/db.js';
import { randomId } from '../store/ids.js';
import { metaValue, setMetaValue } from '../store/meta-rows.js';
import { insertWorkspace, setOperators, workspaceBySlug } from '../store/workspace-rows.js';

const DEMO_KEY = 'demo_api_key';
/** The demo workspace's main agent: `demo`, or `model` when the service is given an endpoint. */
export const DEMO_MAIN_AGENT = 'agent_aria';
const ARIA_DEMO = 'Shows every kind of reply. Try /help.';
const ARIA_PROMPT = `You are Aria, the assistant on the demo page of a chat widget. Answer briefly, in markdown. When you
need the visitor's details (to book a demo, say), ask with a form (collect_info) instead of in prose. When the
visitor wants to buy something, ask for the payment with request_payment. Hand a task to Scout with delegate
when the visitor asks for Scout.`;

/**
 * Seeds the `demo` workspace into an empty database and returns its API key. The key is kept in `meta` so
 * the demo backend (which mints visitor sessions with it, as a site's backend would) survives restarts.
 */
export async function seedDemo(db: Db): Promise<string> {
  const stored = await metaValue(db, DEMO_KEY);
  if (stored) return stored;
  const apiKey = `sk_demo_${randomId('k', 24).slice(2)}`;
  await insertWorkspace(db, {
    slug: 'demo',
    display_name: 'Demo workspace',
    sms_signup: true,
    owner: { user_id: 'owner_demo', login_token: randomId('lt', 24), wallet: 100000 },
    operators: {},
    api_keys: [{ id: 'key_demo', secret: apiKey }],
    agents: [
      {
        id: DEMO_MAIN_AGENT,
        name: 'Aria',
        runtime: 'demo',
        description: ARIA_DEMO,
        starter_prompts: ['/help', '/markdown', '/form', '/pay 9.90'],
      },
      { id: 'agent_scout', name: 'Scout', runtime: 'demo', description: 'Takes over delegated tasks.' },
      {
        id: 'agent_echo',
        name: 'Echo',
        runtime: 'echo',
        description: 'Repeats what you say.',
        starter_prompts: ['Hello!', 'Say this back to me'],
      },
    ],
  });
  return setMetaValue(db, DEMO_KEY, apiKey);
}

/**
 * Makes the demo workspace's main agent a `model` agent on `model` (an endpoint and a model name), or the
 * `demo` agent again without one. Run at every start, so the environment of this start decides.
 */
export async function setDemoModel(db: Db, model: ModelOptions | undefined): Promise<void> {
  await setAgentRuntime(
    db,
    DEMO_MAIN_AGENT,
    model
      ? {
          runtime: 'model',
          options: { system_prompt: ARIA_PROMPT, ...model },
          description: `Answers with ${model.model}.`,
        }
      : { runtime: 'demo', description: ARIA_DEMO },
  );
}

/**
 * The demo workspace's staff take conversations over (the demo inbox at `/inbox`), also in a database seeded
 * before operators existed. Run at every start with `--demo`.
 */
export async function enableDemoOperators(db: Db): Promise<void> {
  const demo = await workspaceBySlug(db, 'demo');
  if (demo && !demo.operators) await setOperators(db, demo.id, {});
}
