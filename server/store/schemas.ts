import { conversationsSchema } from './conversations.js';
import { credentialsSchema } from './credentials.js';
import { filesSchema } from './files.js';
import { identitySchema } from './identity.js';
import { paymentsSchema } from './payments.js';
import { workspaceSchema } from './workspace.js';

/** The whole database: each store module owns its tables. */
export const schemas: readonly string[] = [
  identitySchema,
  workspaceSchema,
  conversationsSchema,
  filesSchema,
  paymentsSchema,
  credentialsSchema,
  `CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);`,
];
