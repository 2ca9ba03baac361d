import { conversationsSchema } from './conversations.js';
import { credentialsSchema } from './credentials.js';
import { filesSchema } from './files.js';
import { identitySchema } from './identity.js';
import { metaSchema } from './meta.js';
import { paymentsSchema } from './payments.js';
import { recordsSchema } from './records.js';
import { turnsSchema } from './turns.js';
import { workspaceSchema } from './workspace.js';

/** The whole database: each store module owns its tables. */
export const schemas: readonly string[] = [
  identitySchema,
  workspaceSchema,
  conversationsSchema,
  recordsSchema,
  turnsSchema,
  filesSchema,
  paymentsSchema,
  credentialsSchema,
  metaSchema,
];
