import { identitySchema } from './identity.js';

/** The whole database: each store module owns its tables. */
export const schemas: readonly string[] = [
  identitySchema,
  `CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);`,
];
