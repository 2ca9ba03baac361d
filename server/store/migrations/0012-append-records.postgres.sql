-- record-rows.ts: a write of records to one conversation as one call (PostgreSQL only; SQLite runs its
-- statements in-process). The conversation's row is locked before any id is drawn and stays locked until the
-- write commits, so within a conversation ids grow in commit order: a reader that has read up to an id never
-- misses a record of that conversation committed later (docs/server.md "Writes ordered per conversation").
-- Record ids come from the identity's sequence (CACHE 1: each id drawn from the shared sequence, in order).
-- `seq` counts on from `last_seq`, the rows are inserted in the order given, and the conversation's counters,
-- newest record, preview and title, the uploads the records link to and the notification go with them. Each
-- row returned names the conversation's newest record before the write (`previous_record`): a reader whose
-- cursor stands there is handed the records without reading them again.
CREATE OR REPLACE FUNCTION svc_append_records(
  conversation TEXT, turn_ids TEXT[], agent_ids TEXT[], agent_names TEXT[], senders TEXT[], events TEXT[],
  raws TEXT[], sizes BIGINT[], stored_at TEXT, newest_preview TEXT, first_title TEXT, linked_uploads TEXT[],
  channel TEXT, payload TEXT
) RETURNS TABLE (record_id BIGINT, record_seq INTEGER, previous_record BIGINT) LANGUAGE plpgsql AS $$
DECLARE
  before_seq INTEGER;
  before_record BIGINT;
  ids BIGINT[];
  seqs INTEGER[];
BEGIN
  SELECT c.last_seq, c.last_record INTO before_seq, before_record FROM conversations c WHERE c.id = conversation
    FOR NO KEY UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'conversation % does not exist', conversation USING ERRCODE = 'no_data_found';
  END IF;
  WITH stored AS (
    INSERT INTO records AS r (conversation_id, seq, turn_id, agent_id, agent_name, sender, event, raw, created_at, bytes)
    SELECT conversation, before_seq + x.n, x.turn_id, x.agent_id, x.agent_name, x.sender, x.event, x.raw, stored_at, x.size
    FROM unnest(turn_ids, agent_ids, agent_names, senders, events, raws, sizes)
      WITH ORDINALITY AS x(turn_id, agent_id, agent_name, sender, event, raw, size, n)
    ORDER BY x.n
    RETURNING r.id, r.seq
  )
  SELECT array_agg(stored.id ORDER BY stored.seq), array_agg(stored.seq ORDER BY stored.seq) INTO ids, seqs FROM stored;
  UPDATE conversations c SET
    last_seq = before_seq + cardinality(ids),
    bytes = c.bytes + (SELECT sum(s) FROM unnest(sizes) s),
    last_record = ids[cardinality(ids)],
    last_message = COALESCE(newest_preview, c.last_message),
    title = COALESCE(c.title, first_title)
  WHERE c.id = conversation;
  IF cardinality(linked_uploads) > 0 THEN
    UPDATE uploaded_files u SET referenced = 1 WHERE u.id = ANY (linked_uploads) AND u.referenced = 0;
    -- upload-rows.ts markUploadsReferenced: an upload goes with the last conversation that links to it.
    INSERT INTO upload_links (upload_id, conversation_id)
      SELECT u.id, conversation FROM uploaded_files u WHERE u.id = ANY (linked_uploads)
      ON CONFLICT DO NOTHING;
  END IF;
  IF channel IS NOT NULL THEN
    PERFORM pg_notify(channel, payload);
  END IF;
  RETURN QUERY SELECT x.id, x.seq, before_record FROM unnest(ids, seqs) AS x(id, seq);
END
$$;
