-- feedback-rows.ts: a visitor's 👍/👎 on an agent's reply, one per visitor per message (changed in place).
-- `text` is the reply's text when the feedback was first given; `id` orders the owner's pages.
CREATE TABLE IF NOT EXISTS feedback (
  id {{id}}, workspace_id TEXT NOT NULL, conversation_id TEXT NOT NULL REFERENCES conversations(id),
  message_id TEXT NOT NULL, agent_id TEXT NOT NULL, user_id TEXT NOT NULL, rating TEXT NOT NULL,
  reason TEXT, text TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
  UNIQUE (user_id, conversation_id, message_id)
);
CREATE INDEX IF NOT EXISTS feedback_by_workspace ON feedback (workspace_id, id);
-- agent-rows.ts: an agent's starter prompts (a JSON array of strings), shown by a chat that has no message yet.
ALTER TABLE agents ADD COLUMN starter_prompts TEXT;
