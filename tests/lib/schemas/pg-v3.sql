-- burnlink schema for PostgreSQL (BURNLINK_DB=postgresql://...). The programs
-- apply this on first use, in one transaction, under an advisory lock, when
-- burnlink_schema says the database is older than the version below; the
-- version numbers follow schema.sql (3: secrets, accounts, API keys,
-- passwords and sessions).
-- Every statement is idempotent (IF NOT EXISTS), so running the file again
-- upgrades an older database; a later step that cannot be written that way
-- needs its own upgrade step in lib/store_pg.c.
-- Keys are never stored: only SHA-256 of the secret key and of the receipt key.
-- Times are milliseconds since the epoch, as in the SQLite schema.

CREATE TABLE IF NOT EXISTS burnlink_schema (
	id		integer PRIMARY KEY CHECK (id = 1),
	version		integer NOT NULL
);

CREATE TABLE IF NOT EXISTS secrets (
	id		bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	secret_hash	bytea NOT NULL UNIQUE,		-- SHA-256 of secretKey
	receipt_hash	bytea NOT NULL UNIQUE,		-- SHA-256 of the receipt key
	state		smallint NOT NULL DEFAULT 0,	-- 0 active 1 expired 2 burned 3 exhausted
	created_at	bigint NOT NULL,
	expires_at	bigint NOT NULL,
	max_views	integer,			-- NULL: unlimited until expiry
	view_count	integer NOT NULL DEFAULT 0,
	last_viewed_at	bigint,
	deletable	boolean NOT NULL DEFAULT true,
	pass_hash	bytea,				-- 16-byte salt || scrypt, or NULL
	server_side	boolean NOT NULL DEFAULT false,
	account_id	bigint,				-- NULL: anonymous
	text_ct		bytea,				-- AES-256-GCM ciphertext || tag
	text_iv		bytea
) WITH (
	-- Content rows die young: let autovacuum reclaim (and later overwrite)
	-- the space of deleted content soon, not after 20% of the table changed.
	autovacuum_vacuum_scale_factor = 0.0, autovacuum_vacuum_threshold = 200
);
-- Ciphertext does not compress: store it out of line without trying.
ALTER TABLE secrets ALTER COLUMN text_ct SET STORAGE EXTERNAL;
CREATE INDEX IF NOT EXISTS secrets_expires ON secrets(expires_at);
CREATE INDEX IF NOT EXISTS secrets_account ON secrets(account_id) WHERE account_id IS NOT NULL;

-- Attachments, removed with their secret (by the programs in the same
-- transaction; the cascade covers cleanup). name_iv / mime_iv NULL: a plain
-- string the client chose not to encrypt.
CREATE TABLE IF NOT EXISTS attachments (
	secret_id	bigint NOT NULL REFERENCES secrets(id) ON DELETE CASCADE,
	idx		integer NOT NULL,
	name		bytea NOT NULL,
	name_iv		bytea,
	mime		bytea NOT NULL,
	mime_iv		bytea,
	data		bytea NOT NULL,
	data_iv		bytea NOT NULL,
	PRIMARY KEY (secret_id, idx)
) WITH (autovacuum_vacuum_scale_factor = 0.0, autovacuum_vacuum_threshold = 200);
ALTER TABLE attachments ALTER COLUMN data SET STORAGE EXTERNAL;

CREATE TABLE IF NOT EXISTS accounts (
	id		bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	name		text NOT NULL UNIQUE,		-- operator's label, e.g. an e-mail
	created_at	bigint NOT NULL
);

-- API keys: "bl_" + 43 url-safe base64 characters, shown once; only SHA-256 of
-- the whole key is kept. Revoked keys stay, marked by revoked_at.
CREATE TABLE IF NOT EXISTS api_keys (
	id		bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	account_id	bigint NOT NULL REFERENCES accounts(id),
	key_hash	bytea NOT NULL UNIQUE,		-- SHA-256 of the key
	prefix		text NOT NULL,			-- first 11 characters, to recognise it
	label		text NOT NULL DEFAULT '',
	created_at	bigint NOT NULL,
	last_used_at	bigint,				-- last creation with the key
	revoked_at	bigint				-- NULL while the key is valid
);
CREATE INDEX IF NOT EXISTS api_keys_account ON api_keys(account_id);

-- Rate-limit windows and passphrase attempts, shared by every web server.
-- UNLOGGED: no WAL, so counting costs no durable commit; after a crash of the
-- database the table comes back empty (a lost count is acceptable, a lost
-- secret is not). A clean restart keeps it.
CREATE UNLOGGED TABLE IF NOT EXISTS counters (
	bucket		bytea NOT NULL,			-- HMAC-SHA-256 of what is counted
	window_start	bigint NOT NULL,		-- window start, Unix seconds
	expires		bigint NOT NULL,		-- window end, Unix seconds
	count		bigint NOT NULL,
	PRIMARY KEY (bucket, window_start)
);
CREATE INDEX IF NOT EXISTS counters_expires ON counters(expires);

-- Version 3: sign-in passwords and browser sessions (docs/ACCOUNTS.md).
CREATE TABLE IF NOT EXISTS account_passwords (
	account_id	bigint PRIMARY KEY REFERENCES accounts(id),
	pass_hash	bytea NOT NULL,			-- 16-byte salt || scrypt (as passphrases)
	changed_at	bigint NOT NULL
);

-- Signed-in browser sessions: only SHA-256 of the cookie's random id is kept.
CREATE TABLE IF NOT EXISTS sessions (
	id		bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	session_hash	bytea NOT NULL UNIQUE,		-- SHA-256 of the session id
	account_id	bigint NOT NULL REFERENCES accounts(id),
	created_at	bigint NOT NULL,
	seen_at		bigint NOT NULL			-- last request
);
CREATE INDEX IF NOT EXISTS sessions_account ON sessions(account_id);
CREATE INDEX IF NOT EXISTS sessions_seen ON sessions(seen_at);

INSERT INTO burnlink_schema (id, version) VALUES (1, 3)
	ON CONFLICT (id) DO UPDATE SET version = excluded.version;
