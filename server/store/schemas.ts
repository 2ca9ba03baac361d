import { conversationsColumns, conversationsSchema } from './conversations.js';
import { credentialsSchema } from './credentials.js';
import type { AddedColumn } from './db.js';
import { filesColumns, filesSchema } from './files.js';
import { identityColumns, identitySchema } from './identity.js';
import { metaSchema } from './meta.js';
import { paymentsSchema } from './payments.js';
import { recordsSchema } from './records.js';
import { sendsSchema } from './sends.js';
import { turnsSchema } from './turns.js';
import { workspaceColumns, workspaceSchema } from './workspace.js';

/** The whole database: each store module owns its tables. */
export const schemas: readonly string[] = [
  identitySchema,
  workspaceSchema,
  conversationsSchema,
  recordsSchema,
  turnsSchema,
  sendsSchema,
  filesSchema,
  paymentsSchema,
  credentialsSchema,
  metaSchema,
];

/** Columns added after their table first shipped, which a database made by an earlier version gains. */
export const addedColumns: readonly AddedColumn[] = [
  ...identityColumns,
  ...workspaceColumns,
  ...conversationsColumns,
  ...filesColumns,
];
