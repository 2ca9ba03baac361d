-- The schema as of the first versioned migration: each store module's tables (server/store/<module>.ts
-- says what they mean). One text for both engines; db.ts replaces {{id}} (a record id that only grows),
-- {{blob}} and {{rowid}} (join order: SQLite keeps a rowid of its own, PostgreSQL gets a column of that name).

-- workspace-rows.ts
CREATE TABLE IF NOT EXISTS workspaces (
  id TEXT PRIMARY KEY, slug TEXT NOT NULL UNIQUE, display_name TEXT NOT NULL, status TEXT NOT NULL,
  sms_signup INTEGER NOT NULL DEFAULT 0, owner_user_id TEXT NOT NULL, wallet DOUBLE PRECISION NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL, sms_daily_limit INTEGER
);
-- credential-rows.ts
CREATE TABLE IF NOT EXISTS api_keys (
  id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL REFERENCES workspaces(id),
  secret_hash TEXT NOT NULL UNIQUE, revoked INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS owner_logins (
  token_hash TEXT PRIMARY KEY, workspace_id TEXT NOT NULL REFERENCES workspaces(id), user_id TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS personal_keys (
  secret_hash TEXT PRIMARY KEY, user_id TEXT NOT NULL
);
-- agent-rows.ts
CREATE TABLE IF NOT EXISTS agents (
  id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL REFERENCES workspaces(id), name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '', avatar_url TEXT, runtime TEXT NOT NULL, created_at TEXT NOT NULL,
  ord INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS agent_options (
  agent_id TEXT PRIMARY KEY REFERENCES agents(id), options TEXT NOT NULL
);
-- member-rows.ts
CREATE TABLE IF NOT EXISTS members (
  user_id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL REFERENCES workspaces(id),
  sp_user_ref TEXT NOT NULL, display_name TEXT, billing_account_id TEXT NOT NULL,
  status TEXT NOT NULL, joined_at TEXT NOT NULL, balance DOUBLE PRECISION NOT NULL DEFAULT 0,
  UNIQUE (workspace_id, sp_user_ref){{rowid}}
);
-- credential-rows.ts
CREATE TABLE IF NOT EXISTS session_tokens (
  token_hash TEXT PRIMARY KEY, user_id TEXT NOT NULL, workspace_id TEXT NOT NULL, expires_at TEXT NOT NULL
);

-- member-rows.ts
CREATE TABLE IF NOT EXISTS grants (
  workspace_id TEXT NOT NULL REFERENCES workspaces(id), idempotency_key TEXT NOT NULL,
  member_id TEXT NOT NULL REFERENCES members(user_id), amount DOUBLE PRECISION NOT NULL,
  purchase_id TEXT NOT NULL UNIQUE, balance_after DOUBLE PRECISION NOT NULL, created_at TEXT NOT NULL,
  PRIMARY KEY (workspace_id, idempotency_key)
);
-- sms-code-rows.ts
CREATE TABLE IF NOT EXISTS sms_codes (
  workspace_id TEXT NOT NULL REFERENCES workspaces(id), phone TEXT NOT NULL, code_hash TEXT NOT NULL,
  expires_at BIGINT NOT NULL, failures INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (workspace_id, phone)
);
CREATE TABLE IF NOT EXISTS sms_sends (
  phone TEXT NOT NULL, sent_at BIGINT NOT NULL, workspace_id TEXT, address TEXT
);
CREATE INDEX IF NOT EXISTS sms_sends_by_phone ON sms_sends (phone, sent_at);
CREATE INDEX IF NOT EXISTS sms_sends_by_workspace_id ON sms_sends (workspace_id, sent_at);
CREATE INDEX IF NOT EXISTS sms_sends_by_address ON sms_sends (address, sent_at);

-- conversation-rows.ts
CREATE TABLE IF NOT EXISTS conversations (
  id TEXT PRIMARY KEY, kind TEXT NOT NULL, owner_id TEXT NOT NULL, workspace_id TEXT NOT NULL,
  agent_ids TEXT NOT NULL, training_agent_id TEXT, last_seq INTEGER NOT NULL DEFAULT 0,
  last_record BIGINT NOT NULL DEFAULT 0, bytes BIGINT NOT NULL DEFAULT 0, created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS conversations_by_owner ON conversations (owner_id, kind, last_record);
CREATE UNIQUE INDEX IF NOT EXISTS training_conversation ON conversations (training_agent_id, owner_id)
  WHERE kind = 'training';

-- record-rows.ts
CREATE TABLE IF NOT EXISTS records (
  id {{id}}, conversation_id TEXT NOT NULL REFERENCES conversations(id),
  seq INTEGER NOT NULL, turn_id TEXT, agent_id TEXT, agent_name TEXT, sender TEXT NOT NULL, event TEXT NOT NULL,
  raw TEXT NOT NULL, created_at TEXT NOT NULL, UNIQUE (conversation_id, seq)
);
CREATE INDEX IF NOT EXISTS records_by_conversation ON records (conversation_id, id);

-- turn-rows.ts
CREATE TABLE IF NOT EXISTS turns (
  id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL REFERENCES conversations(id), status TEXT NOT NULL,
  started_at TEXT NOT NULL, ended_at TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS one_running_turn ON turns (conversation_id) WHERE status = 'running';

-- send-result-rows.ts
CREATE TABLE IF NOT EXISTS sent_messages (
  owner_id TEXT NOT NULL, idempotency_key TEXT NOT NULL, fingerprint TEXT NOT NULL, result TEXT NOT NULL,
  created_at BIGINT NOT NULL, PRIMARY KEY (owner_id, idempotency_key)
);
CREATE INDEX IF NOT EXISTS sent_messages_by_age ON sent_messages (created_at);

-- upload-rows.ts
CREATE TABLE IF NOT EXISTS uploaded_files (
  id TEXT PRIMARY KEY, owner_id TEXT NOT NULL, filename TEXT NOT NULL, mime_type TEXT NOT NULL,
  size BIGINT NOT NULL, agent_id TEXT, chat_group_id TEXT, created_at TEXT NOT NULL,
  referenced INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS uploaded_files_by_owner ON uploaded_files (owner_id, created_at);
CREATE INDEX IF NOT EXISTS uploaded_files_unreferenced ON uploaded_files (created_at) WHERE referenced = 0;

-- payment-order-rows.ts
CREATE TABLE IF NOT EXISTS payment_orders (
  id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL, user_id TEXT NOT NULL, agent_id TEXT NOT NULL,
  amount_fen INTEGER NOT NULL, title TEXT NOT NULL, description TEXT, status TEXT NOT NULL,
  expires_at TEXT NOT NULL, created_at TEXT NOT NULL, resolved_at TEXT
);
CREATE INDEX IF NOT EXISTS payment_orders_pending ON payment_orders (expires_at) WHERE status = 'pending';

-- connector-credential-rows.ts
CREATE TABLE IF NOT EXISTS connector_credentials (
  user_id TEXT NOT NULL, connector_type_id TEXT NOT NULL, fields TEXT NOT NULL,
  iv {{blob}} NOT NULL, tag {{blob}} NOT NULL, ciphertext {{blob}} NOT NULL, updated_at TEXT NOT NULL,
  PRIMARY KEY (user_id, connector_type_id)
);

-- meta-rows.ts
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
