-- client-tool-call-rows.ts: the calls of tools a page gave the chat, each answered at most once. A row is stored
-- with the agent's record that makes the call; `answered_at` is set by the send that answers it.
CREATE TABLE IF NOT EXISTS client_tool_calls (
  conversation_id TEXT NOT NULL REFERENCES conversations(id), tool_use_id TEXT NOT NULL, turn_id TEXT NOT NULL,
  answered_at TEXT, PRIMARY KEY (conversation_id, tool_use_id)
);
