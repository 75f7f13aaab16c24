-- burnlink schema for SQLite. The programs put the database in WAL mode and
-- apply this on first use, in one transaction, then set PRAGMA user_version to
-- the schema's version (BL_SCHEMA_VERSION, lib/store.h: the one place it is
-- written), so an up-to-date database never runs it again.
-- Keys are never stored: only SHA-256 of the secret key and of the receipt key.


-- Version 8: a secret's keys begin with its expiry in seconds (docs/API.md,
-- "Keys"), kept as lookup_at, and the keys' hashes are unique under it, so
-- that the rows a cleanup step removes share their index pages; the id (the
-- table's key) is (lookup_at << 20) + n (lib/store_sqlite.c), so they share
-- the table's and the attachments' pages too (docs/PERFORMANCE.md, "Cleanup
-- in steps"). Rows stored before have lookup_at 0 and are found by their
-- hash alone. A version-7 table had the hashes UNIQUE by themselves:
-- lib/store_sqlite.c moves its rows into this one (rebuild_secrets()).
CREATE TABLE IF NOT EXISTS secrets (
	id		INTEGER PRIMARY KEY,
	secret_hash	BLOB NOT NULL,			-- SHA-256 of secretKey
	receipt_hash	BLOB NOT NULL,			-- SHA-256 of the receipt key
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
	text_iv		BLOB,
	key_commit	BLOB,				-- version 4: 32-byte key commitment, NULL before
	key_slot	INTEGER,			-- version 7: the slot of its key in <db>-keys, NULL: unsealed
	lookup_at	INTEGER NOT NULL DEFAULT 0	-- version 8: what its keys carry; 0: stored before
);
CREATE UNIQUE INDEX IF NOT EXISTS secrets_secret ON secrets(lookup_at, secret_hash);
CREATE UNIQUE INDEX IF NOT EXISTS secrets_receipt ON secrets(lookup_at, receipt_hash);
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
	created_at	INTEGER NOT NULL,		-- ms since the epoch
	admin		INTEGER NOT NULL DEFAULT 0,	-- version 7: 1 for the admin role (/admin)
	disabled_at	INTEGER,			-- version 7: NULL, or when it was disabled (ms)
	deleted_at	INTEGER				-- version 7: NULL, or when /admin deleted it
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
	seen_at		INTEGER NOT NULL,		-- last request, ms since the epoch
	via		INTEGER NOT NULL DEFAULT 0	-- version 6: 0 password, 1 the web server (REMOTE_USER)
);
CREATE INDEX IF NOT EXISTS sessions_account ON sessions(account_id);
CREATE INDEX IF NOT EXISTS sessions_seen ON sessions(seen_at);

-- Version 4: secrets.key_commit, the key commitment (docs/API.md "Key
-- commitment"). A table that exists already does not get a column from the
-- CREATE TABLE above: each line "ALTER TABLE t ADD COLUMN c ...;" of this
-- file is run only where the column is missing (scripts/sql2c.sh -a takes it
-- out of the file, lib/store_sqlite.c runs it, in the same transaction as
-- this file); old rows keep NULL.
ALTER TABLE secrets ADD COLUMN key_commit BLOB;
-- Version 7: secrets.key_slot, the slot of the key its content is sealed
-- under (lib/keyslots.c, docs/SECURITY.md "Gone for good"); rows stored
-- before keep NULL: their content is stored as it came and leaves the files
-- by secure_delete and a WAL checkpoint, as before.
ALTER TABLE secrets ADD COLUMN key_slot INTEGER;
--
-- Also version 4: secret requests (docs/API.md, "Secret requests"). A request is
-- found by SHA-256 of its request key or of its inbox key; the server holds
-- the requester's public key and the sealed note, never a key that opens
-- them. The answer is a one-view row of secrets (answer_id) that only the
-- request points to. Note and keys are deleted when the request ends; the row
-- stays as a tombstone until cron/cleanup removes it after expires_at.
CREATE TABLE IF NOT EXISTS requests (
	id		INTEGER PRIMARY KEY,
	request_hash	BLOB NOT NULL UNIQUE,		-- SHA-256 of the request key
	inbox_hash	BLOB NOT NULL UNIQUE,		-- SHA-256 of the inbox key
	state		INTEGER NOT NULL DEFAULT 0,	-- 0 waiting 1 answered 2 read 3 expired 4 burned
	created_at	INTEGER NOT NULL,		-- ms since the epoch
	expires_at	INTEGER NOT NULL,		-- ms since the epoch, the answer's too
	answered_at	INTEGER,
	read_at		INTEGER,
	allow_files	INTEGER NOT NULL DEFAULT 1,
	public_key	BLOB,				-- the requester's P-256 point (65 bytes)
	note_ct		BLOB,				-- AES-256-GCM ciphertext || tag, or NULL
	note_iv		BLOB,
	answer_id	INTEGER,			-- secrets.id of the answer
	answer_key	BLOB				-- the sender's ephemeral point (65 bytes)
);
CREATE INDEX IF NOT EXISTS requests_expires ON requests(expires_at);
-- Version 5: notifications (docs/NOTIFY.md). New tables only, so an older
-- database is upgraded by running the file again.
-- The secrets whose creator asked to be told: channels 1 e-mail, 2 webhooks.
-- receipt_id is the public id notifications name the secret by (never a key).
CREATE TABLE IF NOT EXISTS secret_notify (
	secret_id	INTEGER PRIMARY KEY,
	account_id	INTEGER NOT NULL,
	receipt_id	TEXT NOT NULL UNIQUE,		-- "rcp_" + 22 url-safe base64
	channels	INTEGER NOT NULL,
	last_event	TEXT,				-- the newest event's type
	last_event_at	INTEGER				-- ms since the epoch
);

-- An account's webhooks: events is a mask (1 viewed, 2 exhausted, 4 burned,
-- 8 expired); secret is the signing key, shown once at creation.
CREATE TABLE IF NOT EXISTS webhooks (
	id		INTEGER PRIMARY KEY,
	account_id	INTEGER NOT NULL REFERENCES accounts(id),
	url		TEXT NOT NULL,
	events		INTEGER NOT NULL,
	secret		TEXT NOT NULL,
	created_at	INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS webhooks_account ON webhooks(account_id);

-- An account's e-mail address and whether it is verified; the token of a
-- pending verification or password reset is kept only as SHA-256.
CREATE TABLE IF NOT EXISTS account_emails (
	account_id	INTEGER PRIMARY KEY REFERENCES accounts(id),
	email		TEXT NOT NULL,
	verified_at	INTEGER,			-- NULL: not verified
	token_hash	BLOB,				-- SHA-256 of the pending token
	token_kind	INTEGER,			-- 1 verify, 2 password reset
	token_expires	INTEGER
);

-- The outbox: one row per event and destination (channel 1 the account's
-- e-mail, 2 webhook_id), written in the transaction of the change it
-- reports. cron/notify claims due rows by setting a lease (lease_token,
-- lease_until) in one statement, delivers, and marks them sent (state 1),
-- to retry (next_at), or dropped (state 2, after 24 hours).
CREATE TABLE IF NOT EXISTS outbox (
	id		INTEGER PRIMARY KEY,
	account_id	INTEGER NOT NULL,
	receipt_id	TEXT,				-- NULL: account mail, test delivery
	kind		TEXT NOT NULL,			-- "secret.viewed", ...
	channel		INTEGER NOT NULL,		-- 1 e-mail, 2 webhook
	webhook_id	INTEGER,
	views_left	INTEGER,			-- NULL: unlimited
	detail		TEXT,				-- burned: by whom; account mail: its token
	occurred_at	INTEGER NOT NULL,		-- ms since the epoch
	next_at		INTEGER NOT NULL,		-- due at
	lease_until	INTEGER NOT NULL DEFAULT 0,
	lease_token	BLOB,
	attempts	INTEGER NOT NULL DEFAULT 0,
	state		INTEGER NOT NULL DEFAULT 0,	-- 0 pending 1 sent 2 dropped
	last_status	INTEGER,			-- HTTP status, or the mailer's exit status
	last_error	TEXT,
	done_at		INTEGER
);
CREATE INDEX IF NOT EXISTS outbox_due ON outbox(state, next_at);
CREATE INDEX IF NOT EXISTS outbox_webhook ON outbox(webhook_id) WHERE webhook_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS outbox_account ON outbox(account_id, done_at);
-- A secret ends once: its end event is written once per destination, even
-- when a request and the cleanup both see its expiry.
CREATE UNIQUE INDEX IF NOT EXISTS outbox_once ON outbox(receipt_id, kind, channel,
	coalesce(webhook_id, 0)) WHERE kind <> 'secret.viewed' AND receipt_id IS NOT NULL;

-- Version 6: web-server sign-in and a second factor (docs/ACCOUNTS.md).
-- sessions.via says how a session was signed in (the ALTER TABLE line below
-- adds the column to an older database). A password account's TOTP secret is kept
-- encrypted under the install secret (AES-256-GCM), so a copy of the database
-- alone yields no codes; last_step is the newest time step a code was
-- accepted for (a code is refused when replayed). confirmed_at NULL: an
-- enrolment not yet confirmed by a code, not asked at sign-in.
ALTER TABLE sessions ADD COLUMN via INTEGER NOT NULL DEFAULT 0;
CREATE TABLE IF NOT EXISTS account_totp (
	account_id	INTEGER PRIMARY KEY REFERENCES accounts(id),
	secret_ct	BLOB NOT NULL,			-- AES-256-GCM ciphertext || tag
	secret_iv	BLOB NOT NULL,
	created_at	INTEGER NOT NULL,		-- ms since the epoch
	confirmed_at	INTEGER,			-- NULL: enrolment pending
	last_step	INTEGER NOT NULL DEFAULT -1	-- unix time / 30 of the last code used
);
-- Recovery codes: only SHA-256 of each; used_at once it was used.
CREATE TABLE IF NOT EXISTS account_recovery (
	id		INTEGER PRIMARY KEY,
	account_id	INTEGER NOT NULL REFERENCES accounts(id),
	code_hash	BLOB NOT NULL,
	used_at		INTEGER
);
CREATE INDEX IF NOT EXISTS account_recovery_account ON account_recovery(account_id);

-- Version 7: the operator's page (docs/ADMIN.md, "The admin page"). The admin
-- role of an account (burnlink-admin account admin NAME on|off), and a
-- disabled account (burnlink-admin account disable NAME): it cannot sign in,
-- and its sessions and API keys are refused.
ALTER TABLE accounts ADD COLUMN admin INTEGER NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN disabled_at INTEGER;
-- A deleted account stays as a row (its revoked keys and its secrets'
-- tombstones name it), renamed "deleted:<id>" so that its name is free.
ALTER TABLE accounts ADD COLUMN deleted_at INTEGER;
-- Version 7: the audit trail (docs/ADMIN.md, "Audit trail"): one row per
-- event, written in the transaction of the change it records. id ascends
-- with at (the cursor of a listing); at: ms since the epoch; kind: a row of
-- lib/events.c ("secret.viewed", ...); account_id, api_key_id: the actor's
-- account and the API key it used, operator: burnlink-admin's user name,
-- all NULL for nobody (anonymous); client: what audit_client keeps of the
-- address (an HMAC under the install secret, the address, or NULL);
-- owner_id: the account the object belongs to, else the actor's (what GET
-- /api/my/events shows an account); object_id: the row id of the secret,
-- request, API key, webhook or account; receipt_id: rcp_..., where the
-- object has one; outcome: ok, refused, limited or failed; detail: e.g.
-- by whom a secret was burned, the views left. Never content, a key, a
-- passphrase or a token. The cleanup removes rows older than audit_days,
-- oldest ids first. Comments stay outside the statement and there is one
-- index: every process parses the stored schema, and every event writes
-- each index (docs/PERFORMANCE.md, "The audit trail's cost").
CREATE TABLE IF NOT EXISTS audit_events (id INTEGER PRIMARY KEY, at INTEGER NOT NULL,
	kind TEXT NOT NULL, account_id INTEGER, api_key_id INTEGER, operator TEXT, client TEXT,
	owner_id INTEGER, object_id INTEGER, receipt_id TEXT, outcome TEXT NOT NULL, detail TEXT);
CREATE INDEX IF NOT EXISTS audit_events_owner ON audit_events(owner_id)
	WHERE owner_id IS NOT NULL;
