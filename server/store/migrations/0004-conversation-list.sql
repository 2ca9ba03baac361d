-- conversation-rows.ts: what the conversation list shows of each conversation (docs/protocol.md
-- "Conversation list"). `title` is the first message's text until the owner renames it; `last_message` is
-- JSON `{ role, text, agentName? }` of the newest message with text, kept by record-rows.ts on every append.
-- Conversations stored before this migration have neither until their next message (titles: until renamed).
ALTER TABLE conversations ADD COLUMN title TEXT;
ALTER TABLE conversations ADD COLUMN last_message TEXT;
