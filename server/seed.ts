import { randomId } from './ids.js';
import type { Db } from './store/db.js';
import { insertWorkspace } from './store/identity.js';
import { metaValue, setMetaValue } from './store/meta.js';

const DEMO_KEY = 'demo_api_key';

/**
 * Seeds the `demo` workspace into an empty database and returns its API key. The key is kept in `meta` so
 * the demo backend (which mints visitor sessions with it, as a site's backend would) survives restarts.
 */
export function seedDemo(db: Db): string {
  const stored = metaValue(db, DEMO_KEY);
  if (stored) return stored;
  const apiKey = `sk_demo_${randomId('k', 24).slice(2)}`;
  insertWorkspace(db, {
    slug: 'demo',
    display_name: 'Demo workspace',
    sms_signup: true,
    owner: { user_id: 'owner_demo', login_token: randomId('lt', 24), wallet: 100000 },
    api_keys: [{ id: 'key_demo', secret: apiKey }],
    agents: [
      { id: 'agent_aria', name: 'Aria', runtime: 'demo', description: 'Shows every kind of reply. Try /help.' },
      { id: 'agent_scout', name: 'Scout', runtime: 'demo', description: 'Takes over delegated tasks.' },
      { id: 'agent_echo', name: 'Echo', runtime: 'echo', description: 'Repeats what you say.' },
    ],
  });
  setMetaValue(db, DEMO_KEY, apiKey);
  return apiKey;
}
