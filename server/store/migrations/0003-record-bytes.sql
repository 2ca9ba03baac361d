-- What each record takes as JSON, in an index with its order (record-rows.ts): a stream's page of records is
-- sized from the index alone, without reading the records it will not take.
ALTER TABLE records ADD COLUMN bytes BIGINT NOT NULL DEFAULT 0;
UPDATE records SET bytes = OCTET_LENGTH(raw);
CREATE INDEX IF NOT EXISTS records_by_size ON records (conversation_id, id, bytes);
DROP INDEX IF EXISTS records_by_conversation;
