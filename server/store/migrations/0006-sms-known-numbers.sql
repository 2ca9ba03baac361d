-- How an SMS send counted (sms-code-rows.ts): `known`, it went to a number that had signed in to its
-- workspace before (outside the shares and the challenge); `shared`, it went to a new number once half of the
-- daily cap had gone to new numbers, and counts against its address's and its prefix's share of the rest.
ALTER TABLE sms_sends ADD COLUMN known INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sms_sends ADD COLUMN shared INTEGER NOT NULL DEFAULT 0;
