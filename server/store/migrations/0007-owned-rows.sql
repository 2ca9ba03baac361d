-- feedback-rows.ts: feedback belongs to the workspace of the agent that wrote the reply. Before this version it
-- took the conversation's, which is the first agent's: in a conversation with agents of two workspaces the
-- second one's feedback went to the first one's owner.
UPDATE feedback SET workspace_id = (SELECT agents.workspace_id FROM agents WHERE agents.id = feedback.agent_id)
  WHERE EXISTS (
    SELECT 1 FROM agents WHERE agents.id = feedback.agent_id AND agents.workspace_id <> feedback.workspace_id
  );

-- upload-rows.ts: which conversations link to each upload, kept as records are appended, so that a conversation
-- deleted takes the uploads no other conversation links to. Filled here from the records stored before: each
-- `/files/<id>/` of a record's JSON (found one after another with instr, strpos on PostgreSQL) that names an upload.
CREATE TABLE IF NOT EXISTS upload_links (
  upload_id TEXT NOT NULL REFERENCES uploaded_files(id), conversation_id TEXT NOT NULL REFERENCES conversations(id),
  PRIMARY KEY (upload_id, conversation_id)
);
CREATE INDEX IF NOT EXISTS upload_links_by_conversation ON upload_links (conversation_id);
CREATE INDEX IF NOT EXISTS uploaded_files_by_chat_group ON uploaded_files (chat_group_id);
WITH RECURSIVE found (conversation_id, rest, upload_id) AS (
  SELECT conversation_id, raw, CAST(NULL AS TEXT) FROM records WHERE raw LIKE '%/files/f%'
  UNION ALL
  SELECT conversation_id, substr(rest, {{instr}}(rest, '/files/f_') + 31), substr(rest, {{instr}}(rest, '/files/f_') + 7, 24)
  FROM found WHERE {{instr}}(rest, '/files/f_') > 0
)
INSERT INTO upload_links (upload_id, conversation_id)
  SELECT DISTINCT found.upload_id, found.conversation_id FROM found JOIN uploaded_files ON uploaded_files.id = found.upload_id
  WHERE true ON CONFLICT DO NOTHING;
-- An upload that only conversations deleted before this version linked to expires like any upload nothing links to.
UPDATE uploaded_files SET referenced = 0
  WHERE referenced = 1 AND NOT EXISTS (SELECT 1 FROM upload_links WHERE upload_links.upload_id = uploaded_files.id);

-- payment-order-rows.ts: a conversation deleted cancels its pending orders (in the same transaction). Those of
-- conversations deleted before this version stayed pending, and expiring one failed at every try.
UPDATE payment_orders SET status = 'canceled'
  WHERE status = 'pending' AND NOT EXISTS (SELECT 1 FROM conversations WHERE conversations.id = payment_orders.conversation_id);
