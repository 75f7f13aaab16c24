-- burnlink schema for PostgreSQL (BURNLINK_DB=postgresql://...). The programs
-- apply this on first use, in one transaction, under an advisory lock, when
-- burnlink_schema says the database is older than BL_SCHEMA_VERSION
-- (lib/store.h: the one place the version is written), and then record it
-- there; the version numbers follow schema.sql (3: secrets, accounts, API keys,
-- passwords and sessions; 4: the secrets' key commitment and secret requests).
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
	secret_hash	bytea NOT NULL,			-- SHA-256 of secretKey (unique under lookup_at)
	receipt_hash	bytea NOT NULL,			-- SHA-256 of the receipt key (likewise)
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
	text_iv		bytea,
	key_commit	bytea,				-- version 4: 32-byte key commitment, NULL before
	key_slot	bigint,				-- version 7: always NULL here (SQLite's key slots; docs/SECURITY.md)
	lookup_at	bigint NOT NULL DEFAULT 0	-- version 8: what its keys carry (schema.sql); 0: stored before
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
	created_at	bigint NOT NULL,
	admin		smallint NOT NULL DEFAULT 0,	-- version 7: 1 for the admin role
	disabled_at	bigint,				-- version 7: NULL, or when it was disabled
	deleted_at	bigint				-- version 7: NULL, or when /admin deleted it
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
	seen_at		bigint NOT NULL,		-- last request
	via		smallint NOT NULL DEFAULT 0	-- version 6: 0 password, 1 the web server
);
CREATE INDEX IF NOT EXISTS sessions_account ON sessions(account_id);
CREATE INDEX IF NOT EXISTS sessions_seen ON sessions(seen_at);

-- Version 4: the key commitment (docs/API.md "Key commitment"); a table
-- made before gets the column here, its rows keep NULL.
ALTER TABLE secrets ADD COLUMN IF NOT EXISTS key_commit bytea;
-- Version 7: the key slot of SQLite's crypto-shredding, unused on PostgreSQL
-- (docs/SECURITY.md, "Gone for good": what deletion means here).
ALTER TABLE secrets ADD COLUMN IF NOT EXISTS key_slot bigint;
-- Version 8: the keys' hashes unique under what the keys carry (schema.sql
-- says why; rows stored before keep lookup_at 0), in place of the version-7
-- constraints on the hashes alone. Ids stay the identity's: a table's rows
-- here lie where there was room, whatever their id.
ALTER TABLE secrets ADD COLUMN IF NOT EXISTS lookup_at bigint NOT NULL DEFAULT 0;
CREATE UNIQUE INDEX IF NOT EXISTS secrets_secret ON secrets(lookup_at, secret_hash);
CREATE UNIQUE INDEX IF NOT EXISTS secrets_receipt ON secrets(lookup_at, receipt_hash);
ALTER TABLE secrets DROP CONSTRAINT IF EXISTS secrets_secret_hash_key;
ALTER TABLE secrets DROP CONSTRAINT IF EXISTS secrets_receipt_hash_key;
-- Version 4: secret requests (docs/API.md, "Secret requests"); as in schema.sql.
CREATE TABLE IF NOT EXISTS requests (
	id		bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	request_hash	bytea NOT NULL UNIQUE,		-- SHA-256 of the request key
	inbox_hash	bytea NOT NULL UNIQUE,		-- SHA-256 of the inbox key
	state		smallint NOT NULL DEFAULT 0,	-- 0 waiting 1 answered 2 read 3 expired 4 burned
	created_at	bigint NOT NULL,
	expires_at	bigint NOT NULL,		-- the answer's too
	answered_at	bigint,
	read_at		bigint,
	allow_files	boolean NOT NULL DEFAULT true,
	public_key	bytea,				-- the requester's P-256 point (65 bytes)
	note_ct		bytea,				-- AES-256-GCM ciphertext || tag, or NULL
	note_iv		bytea,
	answer_id	bigint,				-- secrets.id of the answer
	answer_key	bytea				-- the sender's ephemeral point (65 bytes)
) WITH (autovacuum_vacuum_scale_factor = 0.0, autovacuum_vacuum_threshold = 200);
CREATE INDEX IF NOT EXISTS requests_expires ON requests(expires_at);
-- Version 5: notifications (docs/NOTIFY.md). New tables only, so an older
-- database is upgraded by running the file again.
-- The secrets whose creator asked to be told: channels 1 e-mail, 2 webhooks.
-- receipt_id is the public id notifications name the secret by (never a key).
CREATE TABLE IF NOT EXISTS secret_notify (
	secret_id	bigint PRIMARY KEY,
	account_id	bigint NOT NULL,
	receipt_id	text NOT NULL UNIQUE,		-- "rcp_" + 22 url-safe base64
	channels	integer NOT NULL,
	last_event	text,				-- the newest event's type
	last_event_at	bigint				-- ms since the epoch
);

-- An account's webhooks: events is a mask (1 viewed, 2 exhausted, 4 burned,
-- 8 expired); secret is the signing key, shown once at creation.
CREATE TABLE IF NOT EXISTS webhooks (
	id		bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	account_id	bigint NOT NULL REFERENCES accounts(id),
	url		text NOT NULL,
	events		integer NOT NULL,
	secret		text NOT NULL,
	created_at	bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS webhooks_account ON webhooks(account_id);

-- An account's e-mail address and whether it is verified; the token of a
-- pending verification or password reset is kept only as SHA-256.
CREATE TABLE IF NOT EXISTS account_emails (
	account_id	bigint PRIMARY KEY REFERENCES accounts(id),
	email		text NOT NULL,
	verified_at	bigint,			-- NULL: not verified
	token_hash	bytea,				-- SHA-256 of the pending token
	token_kind	smallint,			-- 1 verify, 2 password reset
	token_expires	bigint
);

-- The outbox: one row per event and destination (channel 1 the account's
-- e-mail, 2 webhook_id), written in the transaction of the change it
-- reports. cron/notify claims due rows by setting a lease (lease_token,
-- lease_until) in one statement, delivers, and marks them sent (state 1),
-- to retry (next_at), or dropped (state 2, after 24 hours).
CREATE TABLE IF NOT EXISTS outbox (
	id		bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	account_id	bigint NOT NULL,
	receipt_id	text,				-- NULL: account mail, test delivery
	kind		text NOT NULL,			-- "secret.viewed", ...
	channel		integer NOT NULL,		-- 1 e-mail, 2 webhook
	webhook_id	bigint,
	views_left	bigint,			-- NULL: unlimited
	detail		text,				-- burned: by whom; account mail: its token
	occurred_at	bigint NOT NULL,		-- ms since the epoch
	next_at		bigint NOT NULL,		-- due at
	lease_until	bigint NOT NULL DEFAULT 0,
	lease_token	bytea,
	attempts	integer NOT NULL DEFAULT 0,
	state		smallint NOT NULL DEFAULT 0,	-- 0 pending 1 sent 2 dropped
	last_status	integer,			-- HTTP status, or the mailer's exit status
	last_error	text,
	done_at		bigint
);
CREATE INDEX IF NOT EXISTS outbox_due ON outbox(state, next_at);
CREATE INDEX IF NOT EXISTS outbox_webhook ON outbox(webhook_id) WHERE webhook_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS outbox_account ON outbox(account_id, done_at);
-- A secret ends once: its end event is written once per destination, even
-- when a request and the cleanup both see its expiry.
CREATE UNIQUE INDEX IF NOT EXISTS outbox_once ON outbox(receipt_id, kind, channel,
	coalesce(webhook_id, 0)) WHERE kind <> 'secret.viewed' AND receipt_id IS NOT NULL;


-- Version 6: web-server sign-in and a second factor; as in schema.sql.
ALTER TABLE sessions ADD COLUMN IF NOT EXISTS via smallint NOT NULL DEFAULT 0;
CREATE TABLE IF NOT EXISTS account_totp (
	account_id	bigint PRIMARY KEY REFERENCES accounts(id),
	secret_ct	bytea NOT NULL,			-- AES-256-GCM ciphertext || tag
	secret_iv	bytea NOT NULL,
	created_at	bigint NOT NULL,
	confirmed_at	bigint,				-- NULL: enrolment pending
	last_step	bigint NOT NULL DEFAULT -1	-- unix time / 30 of the last code used
);
CREATE TABLE IF NOT EXISTS account_recovery (
	id		bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	account_id	bigint NOT NULL REFERENCES accounts(id),
	code_hash	bytea NOT NULL,
	used_at		bigint
);
CREATE INDEX IF NOT EXISTS account_recovery_account ON account_recovery(account_id);

-- Version 7: the admin role and disabled accounts (docs/ADMIN.md).
ALTER TABLE accounts ADD COLUMN IF NOT EXISTS admin smallint NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN IF NOT EXISTS disabled_at bigint;
ALTER TABLE accounts ADD COLUMN IF NOT EXISTS deleted_at bigint;
-- Version 7: the audit trail; as in schema.sql.
CREATE TABLE IF NOT EXISTS audit_events (
	id		bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	at		bigint NOT NULL,
	kind		text NOT NULL,
	account_id	bigint,
	api_key_id	bigint,
	operator	text,
	client		text,
	owner_id	bigint,
	object_id	bigint,
	receipt_id	text,
	outcome		text NOT NULL,
	detail		text
);
CREATE INDEX IF NOT EXISTS audit_events_owner ON audit_events(owner_id, id)
	WHERE owner_id IS NOT NULL;
