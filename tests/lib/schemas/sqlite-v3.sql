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

-- Version 2: accounts and their API keys. Every statement of this file is
-- idempotent (IF NOT EXISTS), so a version-1 database is upgraded by running
-- the whole file again; a later step that cannot be written that way needs a
-- separate upgrade step in the storage unit.
CREATE TABLE IF NOT EXISTS accounts (
	id		INTEGER PRIMARY KEY,
	name		TEXT NOT NULL UNIQUE,		-- operator's label, e.g. an e-mail
	created_at	INTEGER NOT NULL		-- ms since the epoch
);

-- API keys: "bl_" + 43 url-safe base64 characters, shown once; only SHA-256 of
-- the whole key is kept. Revoked keys stay, marked by revoked_at.
CREATE TABLE IF NOT EXISTS api_keys (
	id		INTEGER PRIMARY KEY,
	account_id	INTEGER NOT NULL REFERENCES accounts(id),
	key_hash	BLOB NOT NULL UNIQUE,		-- SHA-256 of the key
	prefix		TEXT NOT NULL,			-- first 11 characters, to recognise it
	label		TEXT NOT NULL DEFAULT '',
	created_at	INTEGER NOT NULL,		-- ms since the epoch
	last_used_at	INTEGER,			-- last creation with the key
	revoked_at	INTEGER				-- NULL while the key is valid
);
CREATE INDEX IF NOT EXISTS api_keys_account ON api_keys(account_id);

-- Version 3: sign-in passwords and browser sessions (docs/ACCOUNTS.md).
-- Passwords are kept apart from accounts so that this step, too, is idempotent.
CREATE TABLE IF NOT EXISTS account_passwords (
	account_id	INTEGER PRIMARY KEY REFERENCES accounts(id),
	pass_hash	BLOB NOT NULL,			-- 16-byte salt || scrypt (as passphrases)
	changed_at	INTEGER NOT NULL		-- ms since the epoch
);

-- Signed-in browser sessions: only SHA-256 of the cookie's random id is kept.
-- A session ends after BL_SESSION_IDLE without a request, BL_SESSION_MAX after
-- sign-in, at sign-out and when the account's password changes.
CREATE TABLE IF NOT EXISTS sessions (
	id		INTEGER PRIMARY KEY,
	session_hash	BLOB NOT NULL UNIQUE,		-- SHA-256 of the session id
	account_id	INTEGER NOT NULL REFERENCES accounts(id),
	created_at	INTEGER NOT NULL,		-- ms since the epoch
	seen_at		INTEGER NOT NULL		-- last request, ms since the epoch
);
CREATE INDEX IF NOT EXISTS sessions_account ON sessions(account_id);
CREATE INDEX IF NOT EXISTS sessions_seen ON sessions(seen_at);

PRAGMA user_version = 3;
