import { SvcClient, type SvcClientConfig } from '../../src/index.js';
import type { TestServer } from './server.js';
import { uniqueRef } from './workspace.js';

/** A client holding acme's workspace key, as a site's backend would. */
export const adminClient = (server: TestServer, config: SvcClientConfig = {}) =>
  new SvcClient({ apiKey: 'sk_acme_1', baseUrl: server.url, maxRetries: 0, ...config });

/** A client holding a fresh visitor's session token of acme, as a chat page would. */
export async function visitorClient(server: TestServer, config: SvcClientConfig = {}): Promise<SvcClient> {
  const session = await adminClient(server)
    .workspace('acme')
    .startVisitorSession({ sp_user_ref: uniqueRef('visitor') });
  return new SvcClient({ apiKey: session.token, baseUrl: server.url, maxRetries: 0, ...config });
}
