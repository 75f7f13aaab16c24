-- burnlink schema for SQLite. The programs put the database in WAL mode and
-- apply this on first use, in one transaction; PRAGMA user_version says which
-- version a database has, so an up-to-date database never runs it again.
-- Keys are never stored: only SHA-256 of the secret key and of the receipt key.


CREATE TABLE IF NOT EXISTS secrets (
	id		INTEGER PRIMARY KEY,
	secret_hash	BLOB NOT NULL UNIQUE,		-- SHA-256 of secretKey
	receipt_hash	BLOB NOT NULL UNIQUE,		-- SHA-256 of the receipt key
	state		INTEGER NOT NULL DEFAULT 0,	-- 0 active 1 expired 2 burned 3 exhausted
	created_at	INTEGER NOT NULL,		-- ms since the epoch
	expires_at	INTEGER NOT NULL,		-- ms since the epoch
	max_views	INTEGER,			-- NULL: unlimited until expiry
	view_count	INTEGER NOT NULL DEFAULT 0,
	last_viewed_at	INTEGER,
	deletable	INTEGER NOT NULL DEFAULT 1,
	pass_hash	BLOB,				-- 16-byte salt || scrypt, or NULL
	server_side	INTEGER NOT NULL DEFAULT 0,
	account_id	INTEGER,			-- NULL: anonymous
	text_ct		BLOB,				-- AES-256-GCM ciphertext || tag
	text_iv		BLOB
);
CREATE INDEX IF NOT EXISTS secrets_expires ON secrets(expires_at);
CREATE INDEX IF NOT EXISTS secrets_account ON secrets(account_id) WHERE account_id IS NOT NULL;

-- Attachments, removed with their secret (by the programs, in the same transaction).
-- name_iv / mime_iv NULL: a plain string the client chose not to encrypt.
CREATE TABLE IF NOT EXISTS attachments (
	secret_id	INTEGER NOT NULL,
	idx		INTEGER NOT NULL,
	name		BLOB NOT NULL,
	name_iv		BLOB,
	mime		BLOB NOT NULL,
	mime_iv		BLOB,
	data		BLOB NOT NULL,
	data_iv		BLOB NOT NULL,
	PRIMARY KEY (secret_id, idx)
) WITHOUT ROWID;

PRAGMA user_version = 1;
