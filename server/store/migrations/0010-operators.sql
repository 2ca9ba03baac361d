-- A person in the conversation (docs/protocol.md "A person in the conversation").
-- workspace-rows.ts: whether the workspace's staff take conversations over, and how long a visitor waits for one
-- before the agent asks for contact details (null: the service's --handoff-wait).
ALTER TABLE workspaces ADD COLUMN operators INTEGER NOT NULL DEFAULT 0;
ALTER TABLE workspaces ADD COLUMN handoff_wait_seconds INTEGER;
-- operator-rows.ts: the workspace's staff, by the site's own reference for each; the name and picture records show.
CREATE TABLE IF NOT EXISTS operators (
  id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL REFERENCES workspaces(id), operator_ref TEXT NOT NULL,
  display_name TEXT NOT NULL, avatar_url TEXT, created_at TEXT NOT NULL, UNIQUE (workspace_id, operator_ref)
);
-- credential-rows.ts: an operator's session tokens, stored as their SHA-256, like a visitor's.
CREATE TABLE IF NOT EXISTS operator_sessions (
  token_hash TEXT PRIMARY KEY, operator_id TEXT NOT NULL REFERENCES operators(id), expires_at TEXT NOT NULL
);
-- handoff-rows.ts: who holds a conversation that was handed to a person, one row per conversation (none: its
-- agents, as ever). `state` is `waiting` (until `deadline`), `human` (held by `operator_id`), or how the last
-- handoff ended: `released`, `closed`, `missed` (nobody took it). The records say the same, in order.
CREATE TABLE IF NOT EXISTS handoffs (
  conversation_id TEXT PRIMARY KEY REFERENCES conversations(id), workspace_id TEXT NOT NULL REFERENCES workspaces(id),
  state TEXT NOT NULL, requested_by TEXT NOT NULL, reason TEXT, agent_id TEXT, requested_at TEXT NOT NULL,
  deadline TEXT NOT NULL, operator_id TEXT REFERENCES operators(id), changed_at TEXT NOT NULL,
  record_id BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS handoffs_by_workspace ON handoffs (workspace_id, state, requested_at);
CREATE INDEX IF NOT EXISTS handoffs_due ON handoffs (deadline) WHERE state = 'waiting';
