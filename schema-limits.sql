-- burnlink counters store (SQLite): rate-limit windows and passphrase attempts.
-- Kept apart from the secrets so that counting needs no durable commit: a count
-- lost to a power cut is acceptable, a secret lost is not.


CREATE TABLE IF NOT EXISTS counters (
	bucket		BLOB NOT NULL,			-- HMAC-SHA-256 of what is counted
	window		INTEGER NOT NULL,		-- window start, Unix seconds
	expires		INTEGER NOT NULL,		-- window end, Unix seconds
	count		INTEGER NOT NULL,
	PRIMARY KEY (bucket, window)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS counters_expires ON counters(expires);

PRAGMA user_version = 1;
