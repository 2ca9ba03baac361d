-- feedback-rows.ts: feedback belongs to the workspace of the agent that wrote the reply. Before this version it
-- took the conversation's, which is the first agent's: in a conversation with agents of two workspaces the
-- second one's feedback went to the first one's owner.
UPDATE feedback SET workspace_id = (SELECT agents.workspace_id FROM agents WHERE agents.id = feedback.agent_id)
  WHERE EXISTS (
    SELECT 1 FROM agents WHERE agents.id = feedback.agent_id AND agents.workspace_id <> feedback.workspace_id
  );
