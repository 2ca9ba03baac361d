-- record-rows.ts: a turn's records by its id (endTurn reads them to close what the turn left open), without
-- reading every record of the table.
CREATE INDEX IF NOT EXISTS records_by_turn ON records (turn_id);
