-- Which instance of the service runs a turn: another one ends it when that instance is gone (turn-rows.ts).
ALTER TABLE turns ADD COLUMN instance_id TEXT;
