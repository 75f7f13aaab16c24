/* store.h: what a storage backend provides (two tables of functions), and the helpers the units above it share. */
#ifndef BL_STORE_H
#define BL_STORE_H

#include <string.h>

#include "internal.h"

/*
 * Every statement the library runs, named once, with its parameters ($1,
 * $2, ... in this order) and, for one that returns rows, its columns.
 */
enum bl_stmt {
	ST_INSERT_SECRET,	/* secret_hash and BL_NEW_COLS (below) -> id */
	ST_INSERT_FILE,		/* secret_id, idx, name, name_iv, mime, mime_iv, data, data_iv */
	ST_KEY_USED,		/* key id, now */
	ST_LOOKUP,		/* hash, at (bl_key_at()) -> ROW (id, state, created,
				 * expires, max_views, view_count, last_viewed,
				 * deletable, pass_hash, account_id, key_commit),
				 * by_receipt: the row under (at, hash), or a row
				 * stored before version 8 (lookup_at 0) */
	ST_LOCK,		/* id -> ROW, 0: the row locked for a change */
	ST_LOCK_TEXT,		/* id -> ROW, 0, text_ct, text_iv: the same, with the text */
	ST_SECRET_GET,		/* id -> ROW, 0 (no lock) */
	ST_SELECT_FILES,	/* secret_id -> name, name_iv, mime, mime_iv, data, data_iv */
	ST_DELETE_FILES,	/* secret_id */
	ST_SET_STATE,		/* id, state (the text goes too) */
	ST_VIEW,		/* id, now */
	ST_VIEW_LAST,		/* id, now, state: the last view, counted, its text gone */
	ST_VIEW_TAKE,		/* secret_hash, now, client, at -> ROW, 0, text_ct, text_iv, 0: a
				 * view that changes only the counts, in one statement */
	/*
	 * Cleanup in steps (lib/secret.c): a step takes the rows past their
	 * expiry up to a cut, the (expires_at, id) of its last row in that
	 * order, so that each of its statements names the same rows.
	 */
	ST_CLEAN_LOCK,		/* -> 1 if this session now holds the cleanup's lock,
				 * 0 if another does (no row: nothing to hold) */
	ST_CLEAN_CUT,		/* now, offset -> expires_at, id of the row at offset */
	ST_CLEAN_FILES,		/* now, cut expires_at, cut id: attachments of the step's rows */
	ST_CLEAN_ROWS,		/* now, cut expires_at, cut id: the step's rows */
	ST_CLEAN_SLOTS,		/* now, cut expires_at, cut id -> key_slot, created_at of
				 * the step's sealed rows (their keys are wiped) */
	ST_ACCOUNT_SECRETS,	/* account_id, max -> ROW, 0, last_event, last_event_at,
				 * receipt_id (newest first) */
	ST_ACCOUNT_INSERT,	/* name, created -> id */
	ST_ACCOUNT_GET,		/* id, name -> ACCOUNT */
	ST_ACCOUNT_LIST,	/* -> ACCOUNT (not deleted) */
	ST_ACCOUNT_PAGE,	/* name pattern, after id, max -> ACCOUNT */
	ST_ACCOUNT_ADMIN,	/* id, admin */
	ST_ACCOUNT_ADMINS,	/* -> count of accounts with the admin role */
	ST_ACCOUNT_DISABLE,	/* id, disabled_at (NULL: enabled) */
	ST_ACCOUNT_TOMBSTONE,	/* id, new name, now: deleted */
	ST_ACCOUNT_ACTIVE,	/* account_id, after id -> id of 100 of its active secrets */
	ST_KEY_REVOKE_ALL,	/* account_id, now */
	ST_WEBHOOK_DELETE_ALL,	/* account_id */
	ST_OUTBOX_UNQUEUE_ACCOUNT, /* account_id: its pending rows */
	ST_WEBHOOK_OWNER,	/* id -> account_id (of a webhook not deleted) */
	ST_PASSWORD_DELETE,	/* account_id */
	ST_EMAIL_DELETE,	/* account_id */
	ST_ACCOUNT_BY_EMAIL,	/* lower-cased name -> ACCOUNT */
	ST_KEY_INSERT,		/* account_id, hash, prefix, label, created -> id */
	ST_KEY_FIND,		/* hash -> KEY */
	ST_KEY_GET,		/* id -> KEY */
	ST_KEY_LIST,		/* account_id (0: all) -> KEY */
	ST_KEY_REVOKE,		/* id, now */
	ST_KEY_DELETE,		/* id, account_id: a key never used */
	ST_PASSWORD_GET,	/* account_id -> pass_hash */
	ST_PASSWORD_SET,	/* account_id, pass_hash, now */
	ST_SESSION_INSERT,	/* hash, account_id, now, via -> id */
	ST_SESSION_FIND,	/* hash -> id, account_id, created, seen, via */
	ST_SESSION_TOUCH,	/* id, now */
	ST_SESSION_DELETE,	/* id */
	ST_SESSION_END_ALL,	/* account_id */
	ST_SESSION_PRUNE,	/* seen_before, created_before */
	ST_RQ_INSERT,		/* request_hash, inbox_hash, created, expires,
				 * allow_files, public_key, note_ct, note_iv -> id */
	ST_RQ_LOOKUP,		/* hash -> RQ_ROW (id, state, created, expires,
				 * answered, read, allow_files, public_key,
				 * answer_id, answer_key), by_inbox, note_ct, note_iv */
	ST_RQ_LOCK,		/* id -> RQ_ROW, 0: the request row locked for a change */
	ST_RQ_ANSWER,		/* id, now, answer_id, answer_key (the note goes) */
	ST_RQ_READ,		/* id, now (the keys go) */
	ST_RQ_END,		/* id, state: expired or burned (note and keys go) */
	ST_RQ_CLEAN,		/* now, max: at most max requests past their expiry */
	/* notifications (lib/outbox.c, docs/NOTIFY.md) */
	ST_NOTIFY_INSERT,	/* secret_id, account_id, receipt_id, channels */
	ST_EVENT,		/* secret_id, kind, views_left, detail, now, event bit:
				 * the outbox rows of one event, a row per destination */
	ST_EVENT_LAST,		/* secret_id, kind, now */
	ST_EVENT_EXPIRED,	/* now, cut expires_at, cut id: the expiry events of the
				 * step's active rows, unread */
	ST_CLEAN_NOTIFY,	/* now, cut expires_at, cut id: the notify rows of the
				 * step's rows */
	ST_OUTBOX_PRUNE,	/* done before */
	ST_OUTBOX_CLAIM,	/* now, lease_until, lease_token, max */
	ST_OUTBOX_LEASED,	/* lease_token -> OUTBOX */
	ST_OUTBOX_FINISH,	/* id, lease_token, state, status, error, done_at, next_at */
	ST_OUTBOX_SENT,		/* account_id, since -> count */
	ST_OUTBOX_DEFER,	/* id, lease_token, error, next_at */
	ST_OUTBOX_ADD,		/* account_id, kind, channel, webhook_id, detail, now -> id */
	ST_WEBHOOK_INSERT,	/* account_id, url, events, secret, created -> id */
	ST_WEBHOOK_LIST,	/* account_id -> WEBHOOK */
	ST_WEBHOOK_LOCK,	/* account_id (PostgreSQL: its row FOR UPDATE) */
	ST_WEBHOOK_COUNT,	/* account_id -> count */
	ST_WEBHOOK_DELETE,	/* id, account_id */
	ST_WEBHOOK_PRUNE,	/* tombstones but the newest */
	ST_WEBHOOK_UNQUEUE,	/* webhook_id: its pending rows */
	ST_DELIVERIES,		/* webhook_id, account_id, max -> DELIVERY */
	ST_EMAIL_GET,		/* account_id -> email, verified_at, token_kind, token_expires */
	ST_EMAIL_SET,		/* account_id, email, verified_at, token_hash, token_kind,
				 * token_expires */
	ST_EMAIL_TOKEN,		/* token_hash, now -> account_id, token_kind, email */
	ST_EMAIL_USED,		/* account_id, verified_at (NULL: as it was), token_hash:
				   changes 1 only for the redemption that still finds the token */
	ST_RESET_ISSUE,		/* account_id, token_hash, expires, now: a reset token unless one
				   is still valid (changes 0) */
	ST_EMAIL_FIND,		/* lower-cased email, password_only -> account_id (verified
				   addresses; password_only: of accounts with a password) */
	ST_EMAIL_TAKEN,		/* lower-cased email, account_id -> count of other accounts
				   that have it verified */
	ST_RESET_END,		/* account_id: a pending password reset is void */
	ST_TOTP_GET,		/* account_id -> secret_ct, secret_iv, confirmed_at, last_step */
	ST_TOTP_PUT,		/* account_id, secret_ct, secret_iv, now: a new, unconfirmed one */
	ST_TOTP_CONFIRM,	/* account_id, now, step -> account_id (if unconfirmed) */
	ST_TOTP_STEP,		/* account_id, step -> account_id (if step is newer) */
	ST_TOTP_DELETE,		/* account_id */
	ST_RECOVERY_DELETE,	/* account_id */
	ST_RECOVERY_INSERT,	/* account_id, code_hash */
	ST_RECOVERY_USE,	/* account_id, code_hash, now -> id (if unused) */
	ST_RECOVERY_LEFT,	/* account_id -> count of unused codes */
	/* the audit trail (lib/audit.c, docs/ADMIN.md "Audit trail") */
	ST_AUDIT_INSERT,	/* at, kind, account_id, api_key_id, operator, client, owner_id,
				 * object_id, receipt_id, outcome, detail */
	ST_AUDIT_SECRET,	/* at, kind, account_id, api_key_id, operator, client, owner_id,
				 * secret id, outcome, detail: its receipt id from secret_notify */
	ST_AUDIT_KEY_USED,	/* key id, now, client: apikey.used, if the key's last use
				 * was before this UTC day (before ST_KEY_USED) */
	ST_AUDIT_WEBHOOK_FAIL,	/* outbox id, lease token, now, error: webhook.failing, if the
				 * row is a webhook's */
	ST_AUDIT_ANON,		/* at, kind, client, secret id, outcome, detail: by nobody,
				 * of an anonymous secret (most views) */
	ST_AUDIT_LIST,		/* since, until, kind, account (actor or owner), receipt,
				 * before id, max (NULL: any; account: the owner) -> AUDIT
				 * (newest first) */
	ST_AUDIT_PRUNE,		/* before, max: of the max oldest rows, those older than before */
	ST_AUDIT_EXPIRED,	/* now, cut expires_at, cut id: secret.expired of the
				 * step's active rows (PostgreSQL: in ST_CLEAN_ROWS) */
	ST_AUDIT_CLEAN,		/* now, cut expires_at, cut id: secret.removed of the
				 * step's rows (PostgreSQL: in ST_CLEAN_ROWS) */
	ST_AUDIT_RQ_CLEAN,	/* now, max: request.removed of ST_RQ_CLEAN's rows
				 * (PostgreSQL: in ST_RQ_CLEAN) */
	ST_AUDIT_LAST,		/* -> the largest event id (0: none) */
	ST_AUDIT_SINCE,		/* after id, at, kind, kind, object (NULL: any) -> AUDIT:
				 * the rows a set-based statement wrote (audit_syslog) */
	/* GET /api/metrics (lib/metrics.c): a few aggregates, no row read one by one */
	ST_M_SECRETS,		/* now -> state, past expiry (0/1), count */
	ST_M_REQUESTS,		/* now -> state, past expiry (0/1), count */
	ST_M_ACCOUNTS,		/* -> accounts, API keys valid, API keys revoked */
	ST_M_OUTBOX,		/* -> pending, oldest occurred_at (NULL: none) */
	ST_M_DBSIZE,		/* -> bytes */
	ST__MAX
};

/*
 * The SQL of each statement (lib/store_sql.c). A dialect that speaks one
 * otherwise has its own text for it in its table (struct bl_store_ops);
 * BL_SQL_NONE there: nothing to run.
 */
extern const char *const bl_sql[ST__MAX];
#define BL_SQL_NONE	""

/*
 * The schema's version, for both backends: each applies its schema file
 * (schema.sql, schema-pg.sql) to a database older than this and then records
 * this number (PRAGMA user_version, burnlink_schema). The schema files carry
 * no number of their own. docs/HACKING.md, "A new column".
 */
#define BL_SCHEMA_VERSION	8
#define BL_STR_(x)	#x
#define BL_STR(x)	BL_STR_(x)	/* a number's digits as a string literal */
/*
 * The columns a new secret writes (ST_INSERT_SECRET), after secret_hash ($1),
 * each with its parameter, in the order of secret_parms() in lib/secret.c
 * (which fails to compile when it has another number of them): a new column
 * a new secret writes is a line here, and the statement follows.
 */
#define BL_NEW_COLS(X) \
	X("receipt_hash", "$2") X("created_at", "$3") X("expires_at", "$4") \
	X("max_views", "$5") X("deletable", "$6") X("pass_hash", "$7") \
	X("server_side", "$8") X("account_id", "$9") X("text_ct", "$10") \
	X("text_iv", "$11") X("key_commit", "$12") X("key_slot", "$13") \
	X("lookup_at", BL_NEW_AT)
/* lookup_at's parameter: what the keys carry (BL_KEY_AT()); SQLite's id follows it */
#define BL_NEW_AT	"$14"
#define BL_NEW_NAME_(column, parm)	", " column
#define BL_NEW_PARM_(column, parm)	", " parm
#define BL_NEW_ONE_(column, parm)	+ 1
#define BL_NEW_COLUMNS	"secret_hash" BL_NEW_COLS(BL_NEW_NAME_)
#define BL_NEW_VALUES	"$1" BL_NEW_COLS(BL_NEW_PARM_)
enum { BL_NEW_NCOLS = 1 BL_NEW_COLS(BL_NEW_ONE_) };

/*
 * The columns of a secret's row that every lookup reads, in order after id
 * (bl_secret_row() in lib/secret.c reads them by these indexes): X(NAME,
 * "column"). A new column is one line here; its index BL_COL_<NAME>,
 * BL_ROW_COLUMNS (the SELECT list of every statement that reads a secret) and
 * BL_ROW_NCOLS (where the columns after them start) follow.
 */
#define BL_ROW_COLS(X) \
	X(STATE, "state") X(CREATED, "created_at") X(EXPIRES, "expires_at") \
	X(MAX_VIEWS, "max_views") X(VIEW_COUNT, "view_count") \
	X(LAST_VIEWED, "last_viewed_at") X(DELETABLE, "deletable") \
	X(PASS_HASH, "pass_hash") X(ACCOUNT, "account_id") X(KEY_COMMIT, "key_commit") \
	X(KEY_SLOT, "key_slot")
#define BL_COL_INDEX_(name, column)	BL_COL_##name,
#define BL_COL_SQL_(name, column)	", " column
enum bl_row_col {
	BL_COL_ID,
	BL_ROW_COLS(BL_COL_INDEX_)
	BL_ROW_NCOLS		/* the columns of BL_ROW_COLUMNS */
};
#define BL_ROW_COLUMNS	"id" BL_ROW_COLS(BL_COL_SQL_)
#define BL_ROW_TEXT	(BL_ROW_NCOLS + 1)	/* text_ct after ROW and the flag (ST_LOCK_TEXT) */
#define BL_ROW_HAS_FILES (BL_ROW_TEXT + 2)	/* after text_iv: 1 if it has attachments */
/* The rows of one cleanup step (secrets AS s): past their expiry ($1), up to the cut ($2, $3). */
#define BL_CLEAN_STEP "s.expires_at <= $1 AND (s.expires_at < $2 OR " \
	"(s.expires_at = $2 AND s.id <= $3))"
/* The columns of an audit row (ST_AUDIT_LIST), read by lib/audit.c in this order. */
#define BL_AUDIT_COLUMNS "id, at, kind, account_id, api_key_id, operator, client, " \
	"owner_id, object_id, receipt_id, outcome, detail"
#define BL_AUDIT_INTO "INSERT INTO audit_events (at, kind, account_id, api_key_id, " \
	"operator, client, owner_id, object_id, receipt_id, outcome, detail) "
#define BL_RQ_COLUMNS "id, state, created_at, expires_at, answered_at, read_at, " \
	"allow_files, public_key, answer_id, answer_key"

/* One statement parameter (sqlbox's struct sqlbox_parm): its type, and NULL or a value. */
enum bl_ptype {
	BL_P_INT,
	BL_P_BOOL,
	BL_P_BLOB,
	BL_P_TEXT
};

struct bl_parm {
	enum bl_ptype	 type;
	int		 null;
	int64_t		 i;
	const void	*p;
	size_t		 len;
};

#define P_INT(v)		{ BL_P_INT, 0, (v), NULL, 0 }
#define P_INT_OR_NULL(c, v)	{ BL_P_INT, !(c), (v), NULL, 0 }
#define P_BOOL(v)		{ BL_P_BOOL, 0, (v) != 0, NULL, 0 }
#define P_BLOB(b, n)		{ BL_P_BLOB, 0, 0, (b), (n) }
#define P_BLOB_OR_NULL(c, b, n)	{ BL_P_BLOB, !(c), 0, (b), (n) }
#define P_TEXT(s)		{ BL_P_TEXT, 0, 0, (s), strlen(s) }
/* A function, so that s is evaluated once and may be a conditional (c ? t : NULL). */
#define P_TEXT_OR_NULL(s)	bl_parm_text_or_null(s)
static inline struct bl_parm
bl_parm_text_or_null(const char *s)
{
	struct bl_parm	 p = { BL_P_TEXT, s == NULL, 0, s, s != NULL ? strlen(s) : 0 };

	return p;
}

/*
 * A parameter list and its length, for bl_st_run() and friends. A list longer
 * than BL_MAX_PARMS (what a backend binds at most) does not compile, on
 * either backend.
 */
#define BL_MAX_PARMS	16
#define BL_NPARMS_(...)	(sizeof((const struct bl_parm[]){ __VA_ARGS__ }) / sizeof(struct bl_parm))
#ifdef __clang__
/*
 * clang does not take the size of a compound literal with run-time members
 * as a constant: its builds (the fuzzers, tests/fuzz) go without the check,
 * which every gcc build (the programs, make check) keeps.
 */
#define PARMS(...)	(const struct bl_parm[]){ __VA_ARGS__ }, (int)BL_NPARMS_(__VA_ARGS__)
#else
#define PARMS(...)	(const struct bl_parm[]){ __VA_ARGS__ }, \
	(int)(BL_NPARMS_(__VA_ARGS__) + 0 * sizeof(struct { _Static_assert( \
	BL_NPARMS_(__VA_ARGS__) <= BL_MAX_PARMS, "more parameters than BL_MAX_PARMS"); int n_; }))
#endif
#define NO_PARMS	NULL, 0

/*
 * One result row, handed to a row callback; its columns are read through
 * bl_col_*(). A callback returns 0 for the next row, 1 to stop, -1 on
 * failure (out of memory: the statement fails with BL_ERR_INTERNAL).
 */
struct bl_row {
	const struct bl_store_ops	*ops;
	void				*h;	/* the backend's statement or result */
	int				 i;	/* the row's index in it */
};
typedef int	(*bl_row_fn)(void *, const struct bl_row *);

/*
 * A database backend (SQLite's sqlite3_io_methods, slowcgi's struct loggers):
 * its SQL dialect and the primitives in which backends really differ. Each
 * function takes the backend's handle.
 */
struct bl_store_ops {
	const char *const *sql;		/* [ST__MAX]: where the dialect differs, else NULL */
	enum bl_err	 (*open)(void **, const struct bl_config *, char *err, size_t errlen);
	void		 (*close)(void *);
	int		 (*idle)(void *);	/* readied for the next request; -1: close it */
	const char	*(*error)(void *);	/* the last failure's reason, for the log */
	void		 (*persistent)(int);	/* process-wide: connections are kept */
	enum bl_err	 (*begin)(void *);	/* a write transaction */
	enum bl_err	 (*commit)(void *);	/* rolls back itself if the commit fails */
	void		 (*rollback)(void *);
	/*
	 * Runs a statement: binds every parameter and checks each bind (a
	 * failed bind is an error, never a statement run without it), calls
	 * fn for each row, and sets *changes (if not NULL) to the rows
	 * changed. A unique key already taken is BL_ERR_EXISTS.
	 */
	enum bl_err	 (*run)(void *, enum bl_stmt, const char *sql,
			    const struct bl_parm *, int, bl_row_fn, void *, int64_t *changes);
	/*
	 * Runs a statement whose rows and changes the caller does not read
	 * (NULL: run() at once): the backend may send it with the
	 * transaction's next statement or its end, whose failure is then also
	 * this one's (bl_st_later()).
	 */
	enum bl_err	 (*run_later)(void *, enum bl_stmt, const char *sql,
			    const struct bl_parm *, int);
	int64_t		 (*col_int)(const struct bl_row *, int, int64_t null);
	/* *p NULL for SQL NULL; -1 if the value could not be read (out of memory) */
	int		 (*col_blob)(const struct bl_row *, int, const void **p, size_t *len);
	/* deleted content leaves the files now (NULL: nothing to do) */
	enum bl_err	 (*purge)(void *);
	/*
	 * Group commit (FastCGI, lib/fcgi.c); NULL where each transaction
	 * commits as it ends. batching() says whether a write may wait for the
	 * batch's commit; batch_flush() commits what is done so far (lost: a
	 * deferred write failed, the batch fails).
	 */
	void		 (*batch)(void *);
	int		 (*batching)(void *);
	void		 (*batch_flush)(void *, int lost);
	enum bl_err	 (*batch_commit)(void *);
	/*
	 * cron/cleanup's many short transactions (NULL: nothing to do): first,
	 * readies the connection for them; then, between two of them, does
	 * what the commits left without holding the write lock
	 * (lib/store_sqlite.c's sq_bulk() says what).
	 */
	enum bl_err	 (*bulk)(void *, int first);
	/*
	 * Crypto-shredding (lib/keyslots.c; NULL: content is stored as it
	 * comes, PostgreSQL). key_new() puts a new random key for a secret
	 * created at owner in a slot (its number, from 1, in *slot; 0: none);
	 * key_get() reads it back (NOT_FOUND: wiped, torn or another's: the
	 * content is gone); key_shred() wipes it inside the transaction that
	 * deletes the content, before that transaction commits, and durably
	 * then, but in a FastCGI responder durably within WIPE_SYNC_MS or once
	 * it has nothing to do (settle()) (slot 0: content stored unsealed was
	 * deleted, which then leaves the files the old way); key_expire() wipes
	 * the slots of every secret expired at now (cron/cleanup).
	 */
	enum bl_err	 (*key_new)(void *, int64_t expires_ms, int64_t owner,
			    unsigned char key[32], int64_t *slot);
	enum bl_err	 (*key_get)(void *, int64_t slot, int64_t owner, unsigned char key[32]);
	enum bl_err	 (*key_shred)(void *, int64_t slot, int64_t owner);
	enum bl_err	 (*key_expire)(void *, int64_t now_ms);
	/* A FastCGI responder with nothing to do: the wipes' sync left for later (NULL: none). */
	void		 (*settle)(void *);
};

/* keyslots.c: the slot file of the SQLite backend (crypto-shredding). */
struct bl_keyslots;
struct bl_keyslots *bl_keyslots_new(const char *db_path);
void		 bl_keyslots_free(struct bl_keyslots *);
const char	*bl_keyslots_error(const struct bl_keyslots *);
enum bl_err	 bl_keyslots_claim(struct bl_keyslots *, int64_t expires_ms, int64_t owner,
		    unsigned char key[32], int64_t *slot);
enum bl_err	 bl_keyslots_get(struct bl_keyslots *, int64_t slot, int64_t owner,
		    unsigned char key[32]);
enum bl_err	 bl_keyslots_wipe(struct bl_keyslots *, int64_t slot, int64_t owner);
enum bl_err	 bl_keyslots_expire(struct bl_keyslots *, int64_t now_ms, int64_t *wiped);
enum bl_err	 bl_keyslots_sync(struct bl_keyslots *);
enum bl_err	 bl_keyslots_sync_due(struct bl_keyslots *, int64_t window_ms);
int		 bl_keyslots_unsynced(const struct bl_keyslots *);

/*
 * The rate-limit counters: a count per bucket (an HMAC-SHA-256) and window
 * (start and end in Unix seconds). Every failure is RATE_LIMIT_UNAVAILABLE.
 */
struct bl_counter_ops {
	enum bl_err	 (*open)(void **, const struct bl_config *);
	enum bl_err	 (*add)(void *, const unsigned char[BL_HASH_BYTES], int64_t start,
			    int64_t expires, int64_t *count);
	enum bl_err	 (*get)(void *, const unsigned char[BL_HASH_BYTES], int64_t start,
			    int64_t *count);
	enum bl_err	 (*set)(void *, const unsigned char[BL_HASH_BYTES], int64_t start,
			    int64_t expires, int64_t count);
	enum bl_err	 (*clean)(void *, int64_t now, int64_t *removed);
	/*
	 * The metrics' counters (lib/metrics.c): BL_METRIC_SLOTS totals that
	 * only grow, apart from the windows (clean() leaves them): bump() adds
	 * by to each of the n totals in slots (one lock, or one statement per
	 * two), totals() reads them all; occupancy() the live windows and how
	 * many fit (-1: no fixed capacity).
	 */
	enum bl_err	 (*bump)(void *, const unsigned *slots, int n, int64_t by);
	enum bl_err	 (*totals)(void *, int64_t out[BL_METRIC_SLOTS]);
	enum bl_err	 (*occupancy)(void *, int64_t now, int64_t *used, int64_t *capacity);
	int		 (*idle)(void *);
	const char	*(*error)(void *);
	void		 (*close)(void *);
};

/* The backends. */
extern const struct bl_store_ops	 bl_sqlite_ops;		/* store_sqlite.c */
extern const struct bl_counter_ops	 bl_counters_file_ops;	/* counters.c */
#ifdef BL_HAVE_PG
extern const struct bl_store_ops	 bl_pg_ops;		/* store_pg.c */
extern const struct bl_counter_ops	 bl_counters_pg_ops;
#endif

/*
 * store.c: what the units above the backends (secret.c, account_store.c)
 * run statements with. bl_st_one() reads the first row with fn and is
 * NOT_FOUND when there is none; bl_st_alone() runs a statement as a
 * transaction of its own; bl_st_later() runs one whose result nobody reads,
 * perhaps with the next (its failure may come back from the next call);
 * bl_st_end() commits when e is BL_OK, else rolls back, and returns e or
 * the commit's failure. bl_st_refuse() ends a
 * transaction that refuses with e (a row's state) but keeps what it changed
 * on the way (changed: an expiry it recorded): e, or the commit's failure.
 */
enum bl_err	 bl_st_run(struct bl_store *, enum bl_stmt, const struct bl_parm *, int,
		    bl_row_fn, void *, int64_t *changes);
enum bl_err	 bl_st_one(struct bl_store *, enum bl_stmt, const struct bl_parm *, int,
		    bl_row_fn, void *);
enum bl_err	 bl_st_alone(struct bl_store *, enum bl_stmt, const struct bl_parm *, int,
		    bl_row_fn, void *);
enum bl_err	 bl_st_later(struct bl_store *, enum bl_stmt, const struct bl_parm *, int);
enum bl_err	 bl_st_begin(struct bl_store *);
enum bl_err	 bl_st_end(struct bl_store *, enum bl_err);
enum bl_err	 bl_st_refuse(struct bl_store *, enum bl_err, int changed);
enum bl_err	 bl_st_purge(struct bl_store *);
enum bl_err	 bl_st_bulk(struct bl_store *, int first);
enum bl_err	 bl_st_key_new(struct bl_store *, int64_t expires_ms, int64_t owner,
		    unsigned char key[32], int64_t *slot);
enum bl_err	 bl_st_key_get(struct bl_store *, int64_t slot, int64_t owner, unsigned char key[32]);
enum bl_err	 bl_st_key_shred(struct bl_store *, int64_t slot, int64_t owner);
enum bl_err	 bl_st_key_expire(struct bl_store *, int64_t now_ms);
int		 bl_st_deferrable(const struct bl_store *);
void		 bl_schema_newer(char *, size_t, int found, int known);
void		 bl_st_defer(struct bl_store *, enum bl_err (*)(struct bl_store *, void *),
		    void (*)(void *), void *);
void		 bl_st_set_who(struct bl_store *, const struct bl_audit_who *);
const struct bl_audit_who *bl_st_who(const struct bl_store *);
int		 bl_st_after_commit(struct bl_store *, const char *line);
void		 bl_st_event(struct bl_store *, int kind, int64_t n);
int64_t		 bl_st_events_take(struct bl_store *, int64_t *counts);
int64_t		 bl_col_int(const struct bl_row *, int, int64_t null);
int		 bl_col_blob(const struct bl_row *, int, const void **, size_t *);
void		 bl_col_text(const struct bl_row *, int, char *, size_t);
int		 bl_col_item(const struct bl_row *, int, struct bl_item *);
int		 bl_row_id(void *, const struct bl_row *);

/*
 * secret.c: a secret row as the statements return it, and the parts of the
 * lifecycle a secret request's answer (lib/request.c) runs inside its own
 * transaction: store a secret (its id in *id), take one view of an active
 * one, end an active one (content deleted).
 */
int		 bl_secret_row(void *, const struct bl_row *);
enum bl_err	 bl_secret_put(struct bl_store *, const struct bl_new_secret *, int64_t *id);
enum bl_err	 bl_secret_take(struct bl_store *, int64_t id, int64_t now_ms,
		    struct bl_secret *, struct bl_content *);
enum bl_err	 bl_secret_end(struct bl_store *, int64_t id, int64_t now_ms, enum bl_state);

#endif /* BL_STORE_H */
