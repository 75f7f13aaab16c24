/* store_sqlite.c: the storage unit over SQLite; the only place that speaks SQL. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <sqlite3.h>

#include "internal.h"
#include "store.h"
#include "schema.h"	/* generated from schema.sql */

#define SCHEMA_VERSION		3
#define BUSY_TIMEOUT_MS		5000
/*
 * WAL policy of the secrets database. A connection that closes does not
 * checkpoint: with SQLite's default, the last connection to close checkpoints
 * and deletes the -wal and -shm files (two fsyncs and two unlinks on every
 * request, and a directory fsync when the next one creates them). The files
 * stay in place instead. A process that opens the database while no other one
 * has it open rebuilds the WAL index by reading the whole WAL, so the WAL is
 * kept short: the connection whose commit brings it to WAL_PAGES pages checkpoints
 * and truncates it (wal_hook()); a PASSIVE checkpoint would not do, since a
 * rebuilt index no longer knows which frames were copied back. Commits that
 * delete content checkpoint and truncate at once, waiting up to
 * CHECKPOINT_WAIT_MS for readers (checkpoint()), so no deleted ciphertext
 * stays in the WAL.
 *
 * A FastCGI responder (bl_store_persistent()) keeps its connection, and with
 * it the WAL index, from one request to the next, so the index is not
 * rebuilt and the WAL may be longer: it is checkpointed at WAL_PAGES_KEPT
 * pages, with RESTART rather than TRUNCATE, so the next commits overwrite the
 * file from its start instead of growing it (an fdatasync that must also
 * record a new file size commits the file system's journal too: measured
 * here, a 4 KiB O_DSYNC append 0.19 ms, an overwrite 0.13 ms). Deletions
 * still truncate at once.
 */
#define WAL_PAGES		64
#define WAL_BYTES		(WAL_PAGES * 4096 + 65536)
#define WAL_PAGES_KEPT		1000
#define WAL_BYTES_KEPT		(WAL_PAGES_KEPT * 4096 + 65536)
#define CHECKPOINT_WAIT_MS	50
/*
 * Each connection's page cache (PRAGMA cache_size; negative: KiB), 256 KiB
 * instead of SQLite's 2 MiB. A request touches a few pages, except a large
 * secret's overflow pages: with the default, a 2 MiB secret held 2 MiB more at
 * the peak (measured: create 15.1 -> 13.3 MiB, retrieve 15.7 -> 13.9 MiB); a
 * large write now spills to the WAL before its commit instead.
 */
#define CACHE_SIZE		(-256)

enum stmt {
	ST_INSERT_SECRET,
	ST_INSERT_FILE,
	ST_LOOKUP,
	ST_BY_ID,
	ST_SELECT_TEXT,
	ST_SELECT_FILES,
	ST_DELETE_FILES,
	ST_SET_STATE,
	ST_VIEW,
	ST_CLEAN_FILES,
	ST_CLEAN_ROWS,
	ST_KEY_USED,
	ST_ACCOUNT_INSERT,
	ST_ACCOUNT_GET,
	ST_ACCOUNT_LIST,
	ST_KEY_INSERT,
	ST_KEY_FIND,
	ST_KEY_GET,
	ST_KEY_LIST,
	ST_KEY_REVOKE,
	ST_PASSWORD_GET,
	ST_PASSWORD_SET,
	ST_SESSION_INSERT,
	ST_SESSION_FIND,
	ST_SESSION_TOUCH,
	ST_SESSION_DELETE,
	ST_SESSION_END_ALL,
	ST_SESSION_PRUNE,
	ST_ACCOUNT_SECRETS,
	ST_ACCOUNT_BY_EMAIL,
	ST__MAX
};

#define ACCOUNT_COLUMNS "a.id, a.name, a.created_at, " \
	"(SELECT count(*) FROM api_keys k WHERE k.account_id = a.id AND " \
	"k.revoked_at IS NULL), (SELECT count(*) FROM secrets s WHERE " \
	"s.account_id = a.id), (SELECT count(*) FROM secrets s WHERE " \
	"s.account_id = a.id AND s.state = 0) FROM accounts a"
#define KEY_COLUMNS "id, account_id, prefix, label, created_at, last_used_at, " \
	"revoked_at FROM api_keys"

#define ROW_COLUMNS "id, state, created_at, expires_at, max_views, view_count, " \
	"last_viewed_at, deletable, pass_hash, account_id"

/* Every statement, bound with ? only. */
static const char *const stmts[ST__MAX] = {
	[ST_INSERT_SECRET] = "INSERT INTO secrets (secret_hash, receipt_hash, "
	    "created_at, expires_at, max_views, deletable, pass_hash, server_side, "
	    "account_id, text_ct, text_iv) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
	[ST_INSERT_FILE] = "INSERT INTO attachments (secret_id, idx, name, name_iv, "
	    "mime, mime_iv, data, data_iv) VALUES (?,?,?,?,?,?,?,?)",
	[ST_LOOKUP] = "SELECT " ROW_COLUMNS ", receipt_hash = ?1 FROM secrets "
	    "WHERE secret_hash = ?1 OR receipt_hash = ?1",
	[ST_BY_ID] = "SELECT " ROW_COLUMNS ", 0 FROM secrets WHERE id = ?",
	[ST_SELECT_TEXT] = "SELECT text_ct, text_iv FROM secrets WHERE id = ?",
	[ST_SELECT_FILES] = "SELECT name, name_iv, mime, mime_iv, data, data_iv "
	    "FROM attachments WHERE secret_id = ? ORDER BY idx",
	[ST_DELETE_FILES] = "DELETE FROM attachments WHERE secret_id = ?",
	[ST_SET_STATE] = "UPDATE secrets SET state = ?, text_ct = NULL, "
	    "text_iv = NULL WHERE id = ?",
	[ST_VIEW] = "UPDATE secrets SET view_count = view_count + 1, "
	    "last_viewed_at = ? WHERE id = ?",
	[ST_CLEAN_FILES] = "DELETE FROM attachments WHERE secret_id IN "
	    "(SELECT id FROM secrets WHERE expires_at <= ?)",
	[ST_CLEAN_ROWS] = "DELETE FROM secrets WHERE expires_at <= ?",
	[ST_KEY_USED] = "UPDATE api_keys SET last_used_at = ? WHERE id = ?",
	[ST_ACCOUNT_INSERT] = "INSERT INTO accounts (name, created_at) VALUES (?,?)",
	[ST_ACCOUNT_GET] = "SELECT " ACCOUNT_COLUMNS " WHERE a.id = ? OR a.name = ?",
	[ST_ACCOUNT_LIST] = "SELECT " ACCOUNT_COLUMNS " ORDER BY a.id",
	[ST_KEY_INSERT] = "INSERT INTO api_keys (account_id, key_hash, prefix, label, "
	    "created_at) VALUES (?,?,?,?,?)",
	[ST_KEY_FIND] = "SELECT " KEY_COLUMNS " WHERE key_hash = ?",
	[ST_KEY_GET] = "SELECT " KEY_COLUMNS " WHERE id = ?",
	[ST_KEY_LIST] = "SELECT " KEY_COLUMNS " WHERE ?1 = 0 OR account_id = ?1 "
	    "ORDER BY id",
	[ST_KEY_REVOKE] = "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND "
	    "revoked_at IS NULL",
	[ST_PASSWORD_GET] = "SELECT pass_hash FROM account_passwords WHERE account_id = ?",
	[ST_PASSWORD_SET] = "INSERT INTO account_passwords (account_id, pass_hash, "
	    "changed_at) VALUES (?,?,?) ON CONFLICT (account_id) DO UPDATE SET "
	    "pass_hash = excluded.pass_hash, changed_at = excluded.changed_at",
	[ST_SESSION_INSERT] = "INSERT INTO sessions (session_hash, account_id, "
	    "created_at, seen_at) VALUES (?,?,?,?3)",
	[ST_SESSION_FIND] = "SELECT id, account_id, created_at, seen_at FROM sessions "
	    "WHERE session_hash = ?",
	[ST_SESSION_TOUCH] = "UPDATE sessions SET seen_at = ? WHERE id = ?",
	[ST_SESSION_DELETE] = "DELETE FROM sessions WHERE id = ?",
	[ST_SESSION_END_ALL] = "DELETE FROM sessions WHERE account_id = ?",
	[ST_SESSION_PRUNE] = "DELETE FROM sessions WHERE seen_at <= ? OR created_at <= ?",
	[ST_ACCOUNT_SECRETS] = "SELECT " ROW_COLUMNS ", 0 FROM secrets WHERE "
	    "account_id = ? ORDER BY created_at DESC, id DESC LIMIT ?",
	[ST_ACCOUNT_BY_EMAIL] = "SELECT " ACCOUNT_COLUMNS " WHERE lower(a.name) = ? "
	    "ORDER BY a.id LIMIT 1",
};

struct sqlite_store {
	sqlite3		*db;
	struct bl_counters *counters;
	int		 counters_check;	/* kept from an earlier request */
	sqlite3_stmt	*st[ST__MAX];
	char		*limits_path;	/* a copy: a kept store outlives its request */
	char		 err[256];
	int		 content_freed;	/* a commit removed content: checkpoint */
	int		 batch;		/* write transactions join one (group commit) */
	struct deferred	*deferred;	/* ... and small inserts wait for its commit */
	int		 ndeferred;
	int		 batch_open;	/* that transaction is open */
	int		 batch_lost;	/* ... and SQLite rolled it back */
	int		 busy_ms;	/* how long a lock is waited for */
	int64_t		 busy_start;	/* when the current wait began (ms) */
};

/*
 * In a batch, a small new secret is copied and inserted when the batch
 * commits: the request's parsing, checks and encryption then run without the
 * write lock, which another responder may want meanwhile, and the lock is
 * held for the inserts and the one commit alone. If an insert fails then, the
 * whole batch is refused (fcgi.c answers 503 in place of each success).
 */
#define DEFER_MAX_BYTES	65536
#define DEFER_MAX	16

struct deferred {
	struct bl_new_secret	 n;
	struct bl_content	 c;
};

static int
item_copy(struct bl_item *to, const struct bl_item *from)
{
	*to = *from;
	to->buf = NULL;
	if (from->len > 0) {
		if ((to->buf = malloc(from->len)) == NULL)
			return -1;
		memcpy(to->buf, from->buf, from->len);
	}
	return 0;
}

static void
deferred_free(struct deferred *d)
{
	size_t	 i;

	bl_free_wipe(d->c.text.buf, d->c.text.len);
	for (i = 0; i < d->c.nfiles; i++) {
		bl_free_wipe(d->c.files[i].name.buf, d->c.files[i].name.len);
		bl_free_wipe(d->c.files[i].mime.buf, d->c.files[i].mime.len);
		bl_free_wipe(d->c.files[i].data.buf, d->c.files[i].data.len);
	}
	free(d->c.files);
	bl_wipe(d, sizeof(*d));
}

/* 1 if n was copied for the batch's commit, 0 to insert it now. */
static int
defer(struct sqlite_store *s, const struct bl_new_secret *n)
{
	const struct bl_content	*c = n->content;
	struct deferred		*d;
	size_t			 i, bytes = c->has_text ? c->text.len : 0;

	for (i = 0; i < c->nfiles; i++)
		bytes += c->files[i].name.len + c->files[i].mime.len + c->files[i].data.len;
	if (!s->batch || s->batch_lost || bytes > DEFER_MAX_BYTES)
		return 0;
	if (s->deferred == NULL &&
	    (s->deferred = calloc(DEFER_MAX, sizeof(*s->deferred))) == NULL)
		return 0;
	if (s->ndeferred >= DEFER_MAX)
		return 0;
	d = &s->deferred[s->ndeferred];
	memset(d, 0, sizeof(*d));
	d->n = *n;
	d->n.content = &d->c;
	d->c.has_text = c->has_text;
	if ((c->has_text && item_copy(&d->c.text, &c->text) != 0) ||
	    (c->nfiles > 0 && (d->c.files = calloc(c->nfiles, sizeof(*d->c.files))) == NULL)) {
		deferred_free(d);
		return 0;
	}
	for (i = 0; i < c->nfiles; i++) {
		d->c.nfiles = i + 1;
		if (item_copy(&d->c.files[i].name, &c->files[i].name) != 0 ||
		    item_copy(&d->c.files[i].mime, &c->files[i].mime) != 0 ||
		    item_copy(&d->c.files[i].data, &c->files[i].data) != 0) {
			deferred_free(d);
			return 0;
		}
	}
	s->ndeferred++;
	return 1;
}

static enum bl_err	 insert(struct sqlite_store *, const struct bl_new_secret *);

/* Maps an SQLite result to an error, keeping a message for the log. */
static enum bl_err
fail(struct sqlite_store *s, sqlite3 *db, int rc, const char *what)
{
	snprintf(s->err, sizeof(s->err), "%s: %s (%d)", what,
	    db != NULL ? sqlite3_errmsg(db) : sqlite3_errstr(rc), rc);
	switch (rc & 0xff) {
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return BL_ERR_STORE_BUSY;
	case SQLITE_NOMEM:
		return BL_ERR_INTERNAL;
	default:
		return BL_ERR_STORE_UNAVAILABLE;
	}
}

const char *
sqlite_store_error(const struct sqlite_store *s)
{
	return s->err;
}

static int	 busy_wait(void *, int);

/*
 * 1 if a statement that found the database busy outside a transaction may run
 * again (after a short wait, within the busy time limit). SQLite returns
 * SQLITE_BUSY without calling the busy handler in a few WAL cases, e.g. while
 * another connection rebuilds the WAL index (SQLITE_BUSY_RECOVERY).
 */
static int
busy_again(struct sqlite_store *s, sqlite3 *db, int rc, int *n)
{
	if ((rc & 0xff) != SQLITE_BUSY || !sqlite3_get_autocommit(db))
		return 0;
	return busy_wait(s, (*n)++);
}

static enum bl_err
exec(struct sqlite_store *s, sqlite3 *db, const char *sql)
{
	int	 rc, n = 0;

	while ((rc = sqlite3_exec(db, sql, NULL, NULL, NULL)) != SQLITE_OK)
		if (!busy_again(s, db, rc, &n))
			return fail(s, db, rc, sql);
	return BL_OK;
}

static int
user_version(struct sqlite_store *s, sqlite3 *db)
{
	sqlite3_stmt	*st;
	int		 v = -1, rc, n = 0;

	while ((rc = sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL)) !=
	    SQLITE_OK)
		if (!busy_again(s, db, rc, &n))
			return -1;
	while ((rc = sqlite3_step(st)) != SQLITE_ROW && busy_again(s, db, rc, &n))
		sqlite3_reset(st);
	if (rc == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return v;
}

/*
 * The VFS of the secrets database: the default one, except that a WAL file
 * that already exists is opened without SQLITE_OPEN_CREATE. SQLite syncs the
 * directory on the first sync of a WAL it opened with CREATE, in case the file
 * is new: one more fsync in every process that writes. The kept WAL's
 * directory entry was synced when it was created. (Should the file vanish
 * between the check and the open, it is opened with CREATE after all.)
 */
#define KEEPWAL_VFS	"burnlink-keepwal"
static sqlite3_vfs	 keepwal_vfs;
static int		(*base_open)(sqlite3_vfs *, const char *, sqlite3_file *, int, int *);

static int
keepwal_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out)
{
	struct stat	 st;
	int		 rc;

	if ((flags & SQLITE_OPEN_WAL) && (flags & SQLITE_OPEN_CREATE) && name != NULL &&
	    lstat(name, &st) == 0 && S_ISREG(st.st_mode)) {
		rc = base_open(vfs, name, f, flags & ~SQLITE_OPEN_CREATE, out);
		if (rc != SQLITE_CANTOPEN)
			return rc;
	}
	return base_open(vfs, name, f, flags, out);
}

/* Registers keepwal_vfs once per process; its name, or NULL for the default. */
static const char *
keepwal(void)
{
	sqlite3_vfs	*base;

	if (base_open == NULL) {
		if ((base = sqlite3_vfs_find(NULL)) == NULL)
			return NULL;
		keepwal_vfs = *base;
		keepwal_vfs.zName = KEEPWAL_VFS;
		keepwal_vfs.pNext = NULL;
		keepwal_vfs.xOpen = keepwal_open;
		base_open = base->xOpen;
		if (sqlite3_vfs_register(&keepwal_vfs, 0) != SQLITE_OK) {
			base_open = NULL;
			return NULL;
		}
	}
	return KEEPWAL_VFS;
}

/*
 * Waits for a lock in short steps, up to s->busy_ms. SQLite's own busy handler
 * sleeps up to 100 ms between tries, which under concurrent writers leaves
 * the lock idle while the waiters sleep. A writer holds the lock for its
 * commit's fdatasync (0.1-0.4 ms), so the first 40 tries are 50 us apart (the
 * programs set a 1 us timer slack, bl_sandbox(), so that is what they sleep),
 * then 0.5 ms. Returns 0 to give up.
 */
static int
busy_wait(void *arg, int n)
{
	struct sqlite_store	*s = arg;
	struct timespec	 ts;
	int64_t		 now = bl_now_ms();

	if (n == 0)
		s->busy_start = now;
	if (now - s->busy_start >= s->busy_ms)
		return 0;
	ts.tv_sec = 0;
	ts.tv_nsec = (n < 40 ? 50L : 500L) * 1000;
	nanosleep(&ts, NULL);
	return 1;
}

static int	 persistent;	/* a FastCGI responder: connections are kept */

void
sqlite_store_persistent(int on)
{
	persistent = on;
}

/*
 * After each commit: once the WAL holds WAL_PAGES pages, copies them back and
 * truncates it, without waiting for other connections (a busy WAL is tried
 * again at the next commit; what could be copied back meanwhile is).
 */
static int
wal_hook(void *arg, sqlite3 *db, const char *name, int pages)
{
	struct sqlite_store	*s = arg;
	int		 saved = s->busy_ms;

	if (pages >= (persistent ? WAL_PAGES_KEPT : WAL_PAGES)) {
		s->busy_ms = 0;
		sqlite3_wal_checkpoint_v2(db, name, persistent ?
		    SQLITE_CHECKPOINT_RESTART : SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
		s->busy_ms = saved;
	}
	return SQLITE_OK;
}

/*
 * Process-wide settings, before SQLite's first use. No bulk allocation of page
 * cache pages: SQLite otherwise allocates and links 20 of them (~86 KiB) when a
 * connection first reads, each page touched, while a request reads a few
 * (measured: 45 of a metadata request's 157 page faults). No memory
 * statistics: nothing reads them, and keeping them takes a mutex per malloc.
 */
static void
configure(void)
{
	static int	 done;

	if (done)
		return;
	done = 1;
	sqlite3_config(SQLITE_CONFIG_PAGECACHE, NULL, 0, 0);
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

/*
 * Opens the secrets database with the connection settings every request
 * needs, and applies the schema if the file is older than SCHEMA_VERSION
 * (once, in one transaction, re-checked under the write lock).
 */
static enum bl_err
open_db(struct sqlite_store *s, const char *path, sqlite3 **out)
{
	sqlite3		*db = NULL;
	enum bl_err	 e;
	int		 rc, v;
	char		 pragmas[256];

	configure();
	rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
	    SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW, keepwal());
	if (rc != SQLITE_OK) {
		e = fail(s, db, rc, path);
		goto err;
	}
	sqlite3_extended_result_codes(db, 1);
	sqlite3_busy_handler(db, busy_wait, s);
	sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	snprintf(pragmas, sizeof(pragmas), "PRAGMA synchronous=FULL;"
	    "PRAGMA secure_delete=ON;PRAGMA trusted_schema=OFF;"
	    "PRAGMA journal_size_limit=%d;PRAGMA cache_size=%d;",
	    persistent ? WAL_BYTES_KEPT : WAL_BYTES,
	    CACHE_SIZE);
	if ((e = exec(s, db, pragmas)) != BL_OK)
		goto err;
	sqlite3_wal_hook(db, wal_hook, s);
	if ((v = user_version(s, db)) < 0) {
		e = fail(s, db, sqlite3_errcode(db), path);
		goto err;
	}
	if (v < SCHEMA_VERSION) {
		if ((e = exec(s, db, "PRAGMA journal_mode=WAL")) != BL_OK ||
		    (e = exec(s, db, "BEGIN IMMEDIATE")) != BL_OK)
			goto err;
		if (user_version(s, db) < SCHEMA_VERSION &&
		    (e = exec(s, db, bl_schema_sql)) != BL_OK) {
			sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
			goto err;
		}
		if ((e = exec(s, db, "COMMIT")) != BL_OK) {
			sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
			goto err;
		}
	}
	*out = db;
	return BL_OK;
err:
	sqlite3_close(db);
	return e;
}

/*
 * A store for the counters alone (the rate limiter): the secrets database is
 * never opened, so a request can be counted before it is validated. The
 * counters file itself opens on first use.
 */
enum bl_err
sqlite_store_open_counters(struct sqlite_store **out, const struct bl_config *cfg)
{
	if ((*out = calloc(1, sizeof(**out))) == NULL)
		return BL_ERR_INTERNAL;
	if (((*out)->limits_path = strdup(cfg->limits_path)) == NULL) {
		free(*out);
		*out = NULL;
		return BL_ERR_INTERNAL;
	}
	(*out)->busy_ms = BUSY_TIMEOUT_MS;
	umask(077);
	return BL_OK;
}

/* Opens the secrets database (the counters store opens on first use). */
enum bl_err
sqlite_store_open(struct sqlite_store **out, const struct bl_config *cfg, char *err, size_t errlen)
{
	struct sqlite_store	*s;
	enum bl_err	 e;

	*out = NULL;
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return BL_ERR_INTERNAL;
	if ((s->limits_path = strdup(cfg->limits_path)) == NULL) {
		free(s);
		return BL_ERR_INTERNAL;
	}
	s->busy_ms = BUSY_TIMEOUT_MS;
	umask(077);
	if ((e = open_db(s, cfg->db_path, &s->db)) != BL_OK) {
		snprintf(err, errlen, "%s", s->err);
		free(s->limits_path);
		free(s);
		return e;
	}
	*out = s;
	return BL_OK;
}

/*
 * Removes what a burn or last view left in the WAL: copies it back (where
 * secure_delete has overwritten it) and truncates the WAL, waiting briefly for
 * readers; if they hold it longer, the next such commit or cleanup does it.
 */
static void
checkpoint(struct sqlite_store *s)
{
	s->busy_ms = CHECKPOINT_WAIT_MS;
	sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
	s->busy_ms = BUSY_TIMEOUT_MS;
}

void
sqlite_store_close(struct sqlite_store *s)
{
	int	 i;

	if (s == NULL)
		return;
	if (s->content_freed)
		checkpoint(s);
	for (i = 0; i < s->ndeferred; i++)
		deferred_free(&s->deferred[i]);
	free(s->deferred);
	for (i = 0; i < ST__MAX; i++)
		sqlite3_finalize(s->st[i]);
	sqlite3_close(s->db);
	bl_counters_close(s->counters);
	free(s->limits_path);
	free(s);
}

/*
 * Readies a store kept open for the next request (FastCGI): the checkpoint a
 * deletion asked for is done now, every statement is reset and unbound (no
 * pointer into the finished request stays bound) and the error text cleared.
 * 0 if the store can be kept; -1 if a transaction is still open (it should
 * never be), in which case the caller closes it.
 */
int
sqlite_store_idle(struct sqlite_store *s)
{
	int	 i;

	if (s->content_freed && !s->batch) {
		checkpoint(s);
		s->content_freed = 0;
	}
	for (i = 0; i < ST__MAX; i++)
		if (s->st[i] != NULL) {
			sqlite3_reset(s->st[i]);
			sqlite3_clear_bindings(s->st[i]);
		}
	s->err[0] = '\0';
	s->busy_ms = BUSY_TIMEOUT_MS;
	s->counters_check = 1;		/* a kept store: see open_limits() */
	if (s->db != NULL && !sqlite3_get_autocommit(s->db) && !s->batch_open)
		return -1;
	return 0;
}

/* The prepared statement for id, reset and unbound; NULL on failure. */
static sqlite3_stmt *
stmt(struct sqlite_store *s, enum stmt id)
{
	sqlite3	*db = s->db;
	int	 rc;

	if (s->st[id] == NULL) {
		rc = sqlite3_prepare_v3(db, stmts[id], -1, SQLITE_PREPARE_PERSISTENT,
		    &s->st[id], NULL);
		if (rc != SQLITE_OK) {
			fail(s, db, rc, "prepare");
			return NULL;
		}
	} else {
		sqlite3_reset(s->st[id]);
		sqlite3_clear_bindings(s->st[id]);
	}
	return s->st[id];
}

/* Steps a statement that returns no rows; BL_OK when done. */
static enum bl_err
run(struct sqlite_store *s, sqlite3_stmt *st)
{
	int	 rc;

	if (st == NULL)
		return BL_ERR_STORE_UNAVAILABLE;
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return fail(s, sqlite3_db_handle(st), rc, "step");
	return BL_OK;
}

static int
bind_item(sqlite3_stmt *st, int col, const struct bl_item *it)
{
	int	 rc;

	rc = sqlite3_bind_blob64(st, col, it->len ? (const void *)it->buf : "",
	    it->len, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = it->enc ? sqlite3_bind_blob(st, col + 1, it->iv, BL_IV_BYTES,
		    SQLITE_STATIC) : sqlite3_bind_null(st, col + 1);
	return rc;
}

/*
 * A write transaction. In a batch (sqlite_store_batch()), the first one opens
 * the batch's transaction and each one is a savepoint inside it: what it did
 * is durable only when the batch commits.
 */
static enum bl_err
begin(struct sqlite_store *s)
{
	enum bl_err	 e;

	if (!s->batch)
		return exec(s, s->db, "BEGIN IMMEDIATE");
	if (s->batch_lost)
		return BL_ERR_STORE_UNAVAILABLE;
	if (!s->batch_open) {
		if ((e = exec(s, s->db, "BEGIN IMMEDIATE")) != BL_OK)
			return e;
		s->batch_open = 1;
	}
	return exec(s, s->db, "SAVEPOINT op");
}

static enum bl_err
commit(struct sqlite_store *s, enum bl_err e)
{
	if (s->batch_open) {
		if (e == BL_OK && (e = exec(s, s->db, "RELEASE op")) == BL_OK)
			return BL_OK;
		sqlite3_exec(s->db, "ROLLBACK TO op; RELEASE op", NULL, NULL, NULL);
		/* Some errors (I/O, disk full) roll back the whole transaction. */
		if (sqlite3_get_autocommit(s->db)) {
			s->batch_open = 0;
			s->batch_lost = 1;
		}
		return e;
	}
	if (e == BL_OK && (e = exec(s, s->db, "COMMIT")) == BL_OK)
		return BL_OK;
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return e;
}

/*
 * Group commit, for a FastCGI responder that answers several waiting requests
 * at once (lib/fcgi.c): from here on, their write transactions join one, and
 * sqlite_store_batch_commit() commits it with one fdatasync; their answers
 * are held until then. SQLite holds the write lock through a commit's sync,
 * so one commit per request caps writes at one per fdatasync.
 */
void
sqlite_store_batch(struct sqlite_store *s)
{
	if (s->batch)
		return;
	s->batch = 1;
	s->batch_open = s->batch_lost = 0;
}

/*
 * Commits what the batch has written so far and lets the write lock go; the
 * batch goes on (the next write opens a new transaction). For a request about
 * to spend long without the database (a passphrase's scrypt). A failure here
 * fails the whole batch at sqlite_store_batch_commit().
 */
void
sqlite_store_batch_flush(struct sqlite_store *s)
{
	int	 i;

	if (!s->batch)
		return;
	for (i = 0; i < s->ndeferred; i++) {
		if (!s->batch_lost && insert(s, &s->deferred[i].n) != BL_OK)
			s->batch_lost = 1;
		deferred_free(&s->deferred[i]);
	}
	s->ndeferred = 0;
	if (!s->batch_open)
		return;
	if (s->batch_lost || exec(s, s->db, "COMMIT") != BL_OK) {
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		s->batch_lost = 1;
	}
	s->batch_open = 0;
}

/* Commits the batch durably, then does the checkpoint a deletion asked for. */
enum bl_err
sqlite_store_batch_commit(struct sqlite_store *s)
{
	enum bl_err	 e;

	sqlite_store_batch_flush(s);
	e = s->batch_lost ? BL_ERR_STORE_UNAVAILABLE : BL_OK;
	s->batch = s->batch_lost = 0;
	if (e == BL_OK && s->content_freed)
		checkpoint(s);
	s->content_freed = 0;
	return e;
}

/* Stores a new secret and its attachments in one durable transaction. */
enum bl_err
sqlite_store_insert(struct sqlite_store *s, const struct bl_new_secret *n)
{
	if (defer(s, n))
		return BL_OK;
	return insert(s, n);
}

static enum bl_err
insert(struct sqlite_store *s, const struct bl_new_secret *n)
{
	const struct bl_content	*c = n->content;
	sqlite3_stmt		*st;
	sqlite3_int64		 id;
	enum bl_err		 e;
	size_t			 i;
	int			 rc = SQLITE_OK;

	if ((e = begin(s)) != BL_OK)
		return e;
	if ((st = stmt(s, ST_INSERT_SECRET)) == NULL) {
		e = BL_ERR_STORE_UNAVAILABLE;
		goto out;
	}
	rc |= sqlite3_bind_blob(st, 1, n->secret_hash, BL_HASH_BYTES, SQLITE_STATIC);
	rc |= sqlite3_bind_blob(st, 2, n->receipt_hash, BL_HASH_BYTES, SQLITE_STATIC);
	rc |= sqlite3_bind_int64(st, 3, n->created_ms);
	rc |= sqlite3_bind_int64(st, 4, n->expires_ms);
	rc |= n->max_views < 0 ? sqlite3_bind_null(st, 5) :
	    sqlite3_bind_int64(st, 5, n->max_views);
	rc |= sqlite3_bind_int(st, 6, n->deletable);
	rc |= n->has_pass ? sqlite3_bind_blob(st, 7, n->pass_hash, BL_PASSHASH_BYTES,
	    SQLITE_STATIC) : sqlite3_bind_null(st, 7);
	rc |= sqlite3_bind_int(st, 8, n->server_side);
	rc |= n->account_id > 0 ? sqlite3_bind_int64(st, 9, n->account_id) :
	    sqlite3_bind_null(st, 9);
	if (c->has_text)
		rc |= bind_item(st, 10, &c->text);
	if (rc != SQLITE_OK) {
		e = fail(s, s->db, rc, "bind");
		goto out;
	}
	if ((e = run(s, st)) != BL_OK)
		goto out;
	id = sqlite3_last_insert_rowid(s->db);
	for (i = 0; i < c->nfiles; i++) {
		if ((st = stmt(s, ST_INSERT_FILE)) == NULL) {
			e = BL_ERR_STORE_UNAVAILABLE;
			goto out;
		}
		rc = sqlite3_bind_int64(st, 1, id);
		rc |= sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
		rc |= bind_item(st, 3, &c->files[i].name);
		rc |= bind_item(st, 5, &c->files[i].mime);
		rc |= bind_item(st, 7, &c->files[i].data);
		if (rc != SQLITE_OK) {
			e = fail(s, s->db, rc, "bind");
			goto out;
		}
		if ((e = run(s, st)) != BL_OK)
			goto out;
	}
	if (n->api_key_id > 0) {
		if ((st = stmt(s, ST_KEY_USED)) == NULL) {
			e = BL_ERR_STORE_UNAVAILABLE;
			goto out;
		}
		sqlite3_bind_int64(st, 1, n->created_ms);
		sqlite3_bind_int64(st, 2, n->api_key_id);
		e = run(s, st);
	}
out:
	if (s->st[ST_INSERT_SECRET] != NULL)
		sqlite3_clear_bindings(s->st[ST_INSERT_SECRET]);
	if (s->st[ST_INSERT_FILE] != NULL)
		sqlite3_clear_bindings(s->st[ST_INSERT_FILE]);
	return commit(s, e);
}

/* Reads the row at the statement's cursor. */
static void
read_row(sqlite3_stmt *st, struct bl_secret *r)
{
	memset(r, 0, sizeof(*r));
	r->id = sqlite3_column_int64(st, 0);
	r->state = (enum bl_state)sqlite3_column_int(st, 1);
	r->created_ms = sqlite3_column_int64(st, 2);
	r->expires_ms = sqlite3_column_int64(st, 3);
	r->max_views = sqlite3_column_type(st, 4) == SQLITE_NULL ? -1 :
	    sqlite3_column_int64(st, 4);
	r->view_count = sqlite3_column_int64(st, 5);
	r->last_viewed_ms = sqlite3_column_type(st, 6) == SQLITE_NULL ? -1 :
	    sqlite3_column_int64(st, 6);
	r->deletable = sqlite3_column_int(st, 7);
	if (sqlite3_column_bytes(st, 8) == BL_PASSHASH_BYTES) {
		r->has_pass = 1;
		memcpy(r->pass_hash, sqlite3_column_blob(st, 8), BL_PASSHASH_BYTES);
	}
	r->account_id = sqlite3_column_int64(st, 9);
	r->by_receipt = sqlite3_column_int(st, 10);
}

/* Loads the row with id (inside a transaction); NOT_FOUND if gone. */
static enum bl_err
load(struct sqlite_store *s, int64_t id, struct bl_secret *r)
{
	sqlite3_stmt	*st;
	int		 rc, by_receipt = r->by_receipt;

	if ((st = stmt(s, ST_BY_ID)) == NULL)
		return BL_ERR_STORE_UNAVAILABLE;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		read_row(st, r);
		r->by_receipt = by_receipt;
	}
	sqlite3_reset(st);
	if (rc == SQLITE_DONE)
		return BL_ERR_NOT_FOUND;
	if (rc != SQLITE_ROW)
		return fail(s, s->db, rc, "select");
	return BL_OK;
}

/* Moves a row to state, deleting its content in the same transaction. */
static enum bl_err
set_state(struct sqlite_store *s, struct bl_secret *r, enum bl_state state)
{
	sqlite3_stmt	*st;
	enum bl_err	 e;

	if ((st = stmt(s, ST_DELETE_FILES)) == NULL)
		return BL_ERR_STORE_UNAVAILABLE;
	sqlite3_bind_int64(st, 1, r->id);
	if ((e = run(s, st)) != BL_OK)
		return e;
	if ((st = stmt(s, ST_SET_STATE)) == NULL)
		return BL_ERR_STORE_UNAVAILABLE;
	sqlite3_bind_int(st, 1, state);
	sqlite3_bind_int64(st, 2, r->id);
	if ((e = run(s, st)) != BL_OK)
		return e;
	r->state = state;
	s->content_freed = 1;
	return BL_OK;
}

/*
 * Inside a write transaction: re-reads the row and ends an active row whose
 * expiry has passed. Returns BL_OK if the row is active, else its state's error.
 */
static enum bl_err
check_active(struct sqlite_store *s, int64_t id, int64_t now, struct bl_secret *r, int *changed)
{
	enum bl_err	 e;

	*changed = 0;
	if ((e = load(s, id, r)) != BL_OK)
		return e;
	if (r->state == BL_ST_ACTIVE && r->expires_ms <= now) {
		if ((e = set_state(s, r, BL_ST_EXPIRED)) != BL_OK)
			return e;
		*changed = 1;
	}
	return r->state == BL_ST_ACTIVE ? BL_OK : bl_state_err(r->state);
}

/* Ends the transaction of a request that found the row not active: keeps an
 * expiry that check_active() recorded, and returns the row's state error. */
static enum bl_err
end_inactive(struct sqlite_store *s, enum bl_err e, int changed)
{
	enum bl_err	 ce;

	if (!changed)
		return commit(s, e);
	ce = commit(s, BL_OK);
	return ce != BL_OK ? ce : e;
}

/*
 * Finds a secret by the hash of its secret key or receipt key. An active row
 * past its expiry is moved to expired (content deleted) on the way.
 */
enum bl_err
sqlite_store_lookup(struct sqlite_store *s, const unsigned char hash[BL_HASH_BYTES],
    int64_t now, struct bl_secret *r)
{
	sqlite3_stmt	*st;
	enum bl_err	 e;
	int		 rc, changed, n = 0;

	if ((st = stmt(s, ST_LOOKUP)) == NULL)
		return BL_ERR_STORE_UNAVAILABLE;
	/* A bind that failed (out of memory) would look up NULL: a false 404. */
	if ((rc = sqlite3_bind_blob(st, 1, hash, BL_HASH_BYTES, SQLITE_TRANSIENT)) != SQLITE_OK)
		return fail(s, s->db, rc, "bind");
	while ((rc = sqlite3_step(st)) != SQLITE_ROW && rc != SQLITE_DONE &&
	    busy_again(s, s->db, rc, &n))
		sqlite3_reset(st);
	if (rc == SQLITE_ROW)
		read_row(st, r);
	sqlite3_reset(st);
	if (rc == SQLITE_DONE)
		return BL_ERR_NOT_FOUND;
	if (rc != SQLITE_ROW)
		return fail(s, s->db, rc, "lookup");
	if (r->state != BL_ST_ACTIVE || r->expires_ms > now)
		return BL_OK;
	if ((e = begin(s)) != BL_OK)
		return e;
	e = check_active(s, r->id, now, r, &changed);
	if (e != BL_ERR_NOT_FOUND && e != BL_ERR_STORE_BUSY && e != BL_ERR_STORE_UNAVAILABLE &&
	    e != BL_ERR_INTERNAL)
		e = BL_OK;
	return commit(s, e);
}

/* Copies a BLOB column into a new buffer. */
static int
col_item(sqlite3_stmt *st, int col, struct bl_item *it)
{
	const void	*p = sqlite3_column_blob(st, col);
	size_t		 n = (size_t)sqlite3_column_bytes(st, col);

	if ((it->buf = malloc(n + 1)) == NULL)
		return -1;
	if (n > 0)
		memcpy(it->buf, p, n);
	it->buf[n] = '\0';
	it->len = n;
	it->enc = 0;
	if (sqlite3_column_bytes(st, col + 1) == BL_IV_BYTES) {
		memcpy(it->iv, sqlite3_column_blob(st, col + 1), BL_IV_BYTES);
		it->enc = 1;
	}
	return 0;
}

/* Reads the text and attachments of row id into c. */
static enum bl_err
read_content(struct sqlite_store *s, int64_t id, struct bl_content *c)
{
	sqlite3_stmt	*st;
	struct bl_file	*nf;
	enum bl_err	 e = BL_OK;
	int		 rc;

	memset(c, 0, sizeof(*c));
	if ((st = stmt(s, ST_SELECT_TEXT)) == NULL)
		return BL_ERR_STORE_UNAVAILABLE;
	sqlite3_bind_int64(st, 1, id);
	if ((rc = sqlite3_step(st)) != SQLITE_ROW)
		e = fail(s, s->db, rc, "select text");
	else if (sqlite3_column_type(st, 0) != SQLITE_NULL) {
		c->has_text = 1;
		if (col_item(st, 0, &c->text) != 0)
			e = BL_ERR_INTERNAL;
	}
	sqlite3_reset(st);
	if (e != BL_OK)
		return e;
	if ((st = stmt(s, ST_SELECT_FILES)) == NULL) {
		bl_content_free(c);
		return BL_ERR_STORE_UNAVAILABLE;
	}
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && c->nfiles < BL_MAX_FILES) {
		if ((nf = realloc(c->files, (c->nfiles + 1) * sizeof(*nf))) == NULL) {
			e = BL_ERR_INTERNAL;
			break;
		}
		c->files = nf;
		memset(&nf[c->nfiles], 0, sizeof(*nf));
		c->nfiles++;
		if (col_item(st, 0, &nf[c->nfiles - 1].name) != 0 ||
		    col_item(st, 2, &nf[c->nfiles - 1].mime) != 0 ||
		    col_item(st, 4, &nf[c->nfiles - 1].data) != 0) {
			e = BL_ERR_INTERNAL;
			break;
		}
	}
	if (e == BL_OK && rc != SQLITE_DONE && rc != SQLITE_ROW)
		e = fail(s, s->db, rc, "select files");
	sqlite3_reset(st);
	if (e != BL_OK)
		bl_content_free(c);
	return e;
}

/*
 * Consumes one view of secret id in one BEGIN IMMEDIATE transaction: re-checks
 * that it is active, reads its content, counts the view, and on the last view
 * deletes the content (the row stays as an exhausted tombstone).
 */
enum bl_err
sqlite_store_consume(struct sqlite_store *s, int64_t id, int64_t now, struct bl_secret *r,
    struct bl_content *c)
{
	sqlite3_stmt	*st;
	enum bl_err	 e;
	int		 changed;

	memset(c, 0, sizeof(*c));
	if ((e = begin(s)) != BL_OK)
		return e;
	r->by_receipt = 0;
	if ((e = check_active(s, id, now, r, &changed)) != BL_OK)
		return end_inactive(s, e, changed);
	if ((e = read_content(s, id, c)) != BL_OK)
		return commit(s, e);
	if ((st = stmt(s, ST_VIEW)) == NULL) {
		e = BL_ERR_STORE_UNAVAILABLE;
		goto out;
	}
	sqlite3_bind_int64(st, 1, now);
	sqlite3_bind_int64(st, 2, id);
	if ((e = run(s, st)) != BL_OK)
		goto out;
	r->view_count++;
	r->last_viewed_ms = now;
	if (r->max_views >= 0 && r->view_count >= r->max_views)
		e = set_state(s, r, BL_ST_EXHAUSTED);
out:
	if ((e = commit(s, e)) != BL_OK)
		bl_content_free(c);
	return e;
}

/* Burns secret id: content deleted, state burned, in one transaction. */
enum bl_err
sqlite_store_burn(struct sqlite_store *s, int64_t id, int64_t now)
{
	struct bl_secret	 r;
	enum bl_err		 e;
	int			 changed;

	if ((e = begin(s)) != BL_OK)
		return e;
	memset(&r, 0, sizeof(r));
	if ((e = check_active(s, id, now, &r, &changed)) != BL_OK)
		return end_inactive(s, e, changed);
	e = set_state(s, &r, BL_ST_BURNED);
	return commit(s, e);
}

/* Keeps the counters' error for the log; RATE_LIMIT_UNAVAILABLE on failure. */
static enum bl_err
counted(struct sqlite_store *s, enum bl_err e)
{
	if (e == BL_OK)
		return BL_OK;
	snprintf(s->err, sizeof(s->err), "%s: %s", s->limits_path,
	    bl_counters_error(s->counters));
	return BL_ERR_RATE_LIMIT_UNAVAILABLE;
}

/* Opens the counters file on first use (lib/counters.c). */
static enum bl_err
open_limits(struct sqlite_store *s)
{
	enum bl_err	 e;

	/*
	 * A store kept from an earlier request (FastCGI) first checks that the
	 * file is still the one at the path: an operator resets the counters by
	 * deleting it.
	 */
	if (s->counters != NULL && s->counters_check) {
		s->counters_check = 0;
		if (bl_counters_stale(s->counters, s->limits_path)) {
			bl_counters_close(s->counters);
			s->counters = NULL;
		}
	}
	if (s->counters != NULL)
		return BL_OK;
	if ((e = counted(s, bl_counters_open(&s->counters, s->limits_path))) != BL_OK) {
		bl_counters_close(s->counters);
		s->counters = NULL;
	}
	return e;
}

/*
 * Adds one to the counter of bucket in the window starting at window_start
 * (Unix seconds), kept until expires; returns the new count in *count. Any
 * failure is RATE_LIMIT_UNAVAILABLE: the caller refuses the request.
 */
enum bl_err
sqlite_store_count(struct sqlite_store *s, const unsigned char bucket[BL_HASH_BYTES],
    int64_t window_start, int64_t expires, int64_t *count)
{
	if (open_limits(s) != BL_OK)
		return BL_ERR_RATE_LIMIT_UNAVAILABLE;
	return counted(s, bl_counters_add(s->counters, bucket, window_start, expires,
	    count));
}

/* Reads the count of bucket in the window starting at window_start (0 if none). */
enum bl_err
sqlite_store_counter_get(struct sqlite_store *s, const unsigned char bucket[BL_HASH_BYTES],
    int64_t window_start, int64_t *count)
{
	*count = 0;
	if (open_limits(s) != BL_OK)
		return BL_ERR_RATE_LIMIT_UNAVAILABLE;
	return counted(s, bl_counters_get(s->counters, bucket, window_start, count));
}

/* Sets the count of bucket in a window (an operator's correction); 0 removes it. */
enum bl_err
sqlite_store_counter_set(struct sqlite_store *s, const unsigned char bucket[BL_HASH_BYTES],
    int64_t window_start, int64_t expires, int64_t count)
{
	if (open_limits(s) != BL_OK)
		return BL_ERR_RATE_LIMIT_UNAVAILABLE;
	return counted(s, bl_counters_set(s->counters, bucket, window_start, expires,
	    count));
}

/* Copies a TEXT column into a fixed buffer of size n (truncating). */
static void
col_text(sqlite3_stmt *st, int col, char *buf, size_t n)
{
	const unsigned char	*p = sqlite3_column_text(st, col);

	snprintf(buf, n, "%s", p != NULL ? (const char *)p : "");
}

static int64_t
col_time(sqlite3_stmt *st, int col)
{
	return sqlite3_column_type(st, col) == SQLITE_NULL ? -1 :
	    sqlite3_column_int64(st, col);
}

static void
read_account(sqlite3_stmt *st, struct bl_account *a)
{
	memset(a, 0, sizeof(*a));
	a->id = sqlite3_column_int64(st, 0);
	col_text(st, 1, a->name, sizeof(a->name));
	a->created_ms = sqlite3_column_int64(st, 2);
	a->keys_active = sqlite3_column_int64(st, 3);
	a->secrets = sqlite3_column_int64(st, 4);
	a->secrets_active = sqlite3_column_int64(st, 5);
}

static void
read_key(sqlite3_stmt *st, struct bl_api_key *k)
{
	memset(k, 0, sizeof(*k));
	k->id = sqlite3_column_int64(st, 0);
	k->account_id = sqlite3_column_int64(st, 1);
	col_text(st, 2, k->prefix, sizeof(k->prefix));
	col_text(st, 3, k->label, sizeof(k->label));
	k->created_ms = sqlite3_column_int64(st, 4);
	k->last_used_ms = col_time(st, 5);
	k->revoked_ms = col_time(st, 6);
}

/* Creates an account; BL_ERR_EXISTS if the name is taken. */
enum bl_err
sqlite_store_account_create(struct sqlite_store *s, const char *name, int64_t now, int64_t *id)
{
	sqlite3_stmt	*st;
	int		 rc;

	if ((st = stmt(s, ST_ACCOUNT_INSERT)) == NULL)
		return BL_ERR_STORE_UNAVAILABLE;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, now);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc == SQLITE_CONSTRAINT_UNIQUE)
		return BL_ERR_EXISTS;
	if (rc != SQLITE_DONE)
		return fail(s, s->db, rc, "insert account");
	*id = sqlite3_last_insert_rowid(s->db);
	return BL_OK;
}

/* Finds an account by id, or by name when name is not NULL; NOT_FOUND if none. */
enum bl_err
sqlite_store_account_get(struct sqlite_store *s, int64_t id, const char *name, struct bl_account *a)
{
	sqlite3_stmt	*st;
	int		 rc;

	if ((st = stmt(s, ST_ACCOUNT_GET)) == NULL)
		return BL_ERR_STORE_UNAVAILABLE;
	sqlite3_bind_int64(st, 1, name != NULL ? -1 : id);
	if (name != NULL)
		sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		read_account(st, a);
	sqlite3_reset(st);
	if (rc == SQLITE_DONE)
		return BL_ERR_NOT_FOUND;
	return rc == SQLITE_ROW ? BL_OK : fail(s, s->db, rc, "select account");
}

/* Calls cb for every account in id order; stops early when cb returns non-zero. */
enum bl_err
sqlite_store_account_list(struct sqlite_store *s, int (*cb)(void *, const struct bl_account *),
    void *arg)
{
	sqlite3_stmt		*st;
	struct bl_account	 a;
	int			 rc;

	if ((st = stmt(s, ST_ACCOUNT_LIST)) == NULL)
		return BL_ERR_STORE_UNAVAILABLE;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		read_account(st, &a);
		if (cb(arg, &a) != 0) {
			rc = SQLITE_DONE;
			break;
		}
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? BL_OK : fail(s, s->db, rc, "list accounts");
}

/* Stores a new key (account_id, prefix, label, created_ms of k); sets k->id. */
enum bl_err
sqlite_store_key_insert(struct sqlite_store *s, const unsigned char hash[BL_HASH_BYTES],
    struct bl_api_key *k)
{
	sqlite3_stmt	*st;
	int		 rc;

	if ((st = stmt(s, ST_KEY_INSERT)) == NULL)
		return BL_ERR_STORE_UNAVAILABLE;
	sqlite3_bind_int64(st, 1, k->account_id);
	sqlite3_bind_blob(st, 2, hash, BL_HASH_BYTES, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, k->prefix, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, k->label, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 5, k->created_ms);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return fail(s, s->db, rc, "insert key");
	k->id = sqlite3_last_insert_rowid(s->db);
	return BL_OK;
}

/* Reads one key by statement id and a bound value; NOT_FOUND if none. */
static enum bl_err
key_one(struct sqlite_store *s, enum stmt id, const unsigned char *hash, int64_t kid,
    struct bl_api_key *k)
{
	sqlite3_stmt	*st;
	int		 rc;

	if ((st = stmt(s, id)) == NULL)
		return BL_ERR_STORE_UNAVAILABLE;
	if (hash != NULL)
		sqlite3_bind_blob(st, 1, hash, BL_HASH_BYTES, SQLITE_TRANSIENT);
	else
		sqlite3_bind_int64(st, 1, kid);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		read_key(st, k);
	sqlite3_reset(st);
	if (rc == SQLITE_DONE)
		return BL_ERR_NOT_FOUND;
	return rc == SQLITE_ROW ? BL_OK : fail(s, s->db, rc, "select key");
}

/* Finds a key by the SHA-256 of the whole key (revoked ones too). */
enum bl_err
sqlite_store_key_find(struct sqlite_store *s, const unsigned char hash[BL_HASH_BYTES],
    struct bl_api_key *k)
{
	return key_one(s, ST_KEY_FIND, hash, 0, k);
}

enum bl_err
sqlite_store_key_get(struct sqlite_store *s, int64_t id, struct bl_api_key *k)
{
	return key_one(s, ST_KEY_GET, NULL, id, k);
}

/* Calls cb for every key of account_id (0: of all accounts), in id order. */
enum bl_err
sqlite_store_key_list(struct sqlite_store *s, int64_t account_id,
    int (*cb)(void *, const struct bl_api_key *), void *arg)
{
	sqlite3_stmt		*st;
	struct bl_api_key	 k;
	int			 rc;

	if ((st = stmt(s, ST_KEY_LIST)) == NULL)
		return BL_ERR_STORE_UNAVAILABLE;
	sqlite3_bind_int64(st, 1, account_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		read_key(st, &k);
		if (cb(arg, &k) != 0) {
			rc = SQLITE_DONE;
			break;
		}
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? BL_OK : fail(s, s->db, rc, "list keys");
}

/* Marks key id revoked (it stays in the table); NOT_FOUND if it was not valid. */
enum bl_err
sqlite_store_key_revoke(struct sqlite_store *s, int64_t id, int64_t now)
{
	sqlite3_stmt	*st;
	enum bl_err	 e;

	if ((st = stmt(s, ST_KEY_REVOKE)) == NULL)
		return BL_ERR_STORE_UNAVAILABLE;
	sqlite3_bind_int64(st, 1, now);
	sqlite3_bind_int64(st, 2, id);
	if ((e = run(s, st)) != BL_OK)
		return e;
	return sqlite3_changes(s->db) == 1 ? BL_OK : BL_ERR_NOT_FOUND;
}

/*
 * Hourly cleanup: removes every row whose expiry has passed with its
 * attachments, prunes ended counter windows, then checkpoints both WALs so the
 * removed content leaves the files too.
 */
enum bl_err
sqlite_store_cleanup(struct sqlite_store *s, int64_t now, struct bl_cleanup_stats *stats)
{
	sqlite3_stmt	*st;
	enum bl_err	 e;
	int		 rc;

	memset(stats, 0, sizeof(*stats));
	if ((e = begin(s)) != BL_OK)
		return e;
	if ((st = stmt(s, ST_CLEAN_FILES)) == NULL)
		return commit(s, BL_ERR_STORE_UNAVAILABLE);
	sqlite3_bind_int64(st, 1, now);
	if ((e = run(s, st)) != BL_OK)
		return commit(s, e);
	if ((st = stmt(s, ST_CLEAN_ROWS)) == NULL)
		return commit(s, BL_ERR_STORE_UNAVAILABLE);
	sqlite3_bind_int64(st, 1, now);
	if ((e = run(s, st)) != BL_OK)
		return commit(s, e);
	stats->removed = sqlite3_changes(s->db);
	if ((e = commit(s, BL_OK)) != BL_OK)
		return e;
	if ((rc = sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_TRUNCATE,
	    NULL, NULL)) != SQLITE_OK)
		return fail(s, s->db, rc, "checkpoint");
	if ((e = open_limits(s)) != BL_OK)
		return e;
	return counted(s, bl_counters_clean(s->counters, now / 1000, &stats->counters));
}

/*
 * Accounts with a password, and browser sessions (lib/account.c). Each call
 * is one statement, or one transaction where it says so.
 */

/* Creates an account and its password in one transaction; BL_ERR_EXISTS if the name is taken. */
enum bl_err
sqlite_store_account_signup(struct sqlite_store *s, const char *name,
    const unsigned char hash[BL_PASSHASH_BYTES], int64_t now, int64_t *id)
{
	sqlite3_stmt	*st;
	enum bl_err	 e;

	if ((e = begin(s)) != BL_OK)
		return e;
	if ((e = sqlite_store_account_create(s, name, now, id)) != BL_OK)
		return commit(s, e);
	if ((st = stmt(s, ST_PASSWORD_SET)) == NULL)
		return commit(s, BL_ERR_STORE_UNAVAILABLE);
	sqlite3_bind_int64(st, 1, *id);
	sqlite3_bind_blob(st, 2, hash, BL_PASSHASH_BYTES, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, now);
	return commit(s, run(s, st));
}

/*
 * Finds the account whose name, with ASCII letters lower-cased, is email (which
 * the caller lower-cased); the oldest if several. NOT_FOUND if none.
 */
enum bl_err
sqlite_store_account_by_email(struct sqlite_store *s, const char *email, struct bl_account *a)
{
	sqlite3_stmt	*st;
	int		 rc;

	if ((st = stmt(s, ST_ACCOUNT_BY_EMAIL)) == NULL)
		return BL_ERR_STORE_UNAVAILABLE;
	sqlite3_bind_text(st, 1, email, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		read_account(st, a);
	sqlite3_reset(st);
	if (rc == SQLITE_DONE)
		return BL_ERR_NOT_FOUND;
	return rc == SQLITE_ROW ? BL_OK : fail(s, s->db, rc, "select account");
}

/* The password hash of an account; NOT_FOUND if it has none (no sign-in). */
enum bl_err
sqlite_store_password_get(struct sqlite_store *s, int64_t account_id,
    unsigned char hash[BL_PASSHASH_BYTES])
{
	sqlite3_stmt	*st;
	int		 rc;

	if ((st = stmt(s, ST_PASSWORD_GET)) == NULL)
		return BL_ERR_STORE_UNAVAILABLE;
	sqlite3_bind_int64(st, 1, account_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_bytes(st, 0) == BL_PASSHASH_BYTES)
		memcpy(hash, sqlite3_column_blob(st, 0), BL_PASSHASH_BYTES);
	else if (rc == SQLITE_ROW)
		rc = SQLITE_DONE;	/* a malformed hash lets no one in */
	sqlite3_reset(st);
	if (rc == SQLITE_DONE)
		return BL_ERR_NOT_FOUND;
	return rc == SQLITE_ROW ? BL_OK : fail(s, s->db, rc, "select password");
}

/*
 * Sets an account's password and ends every session of the account, in one
 * transaction.
 */
enum bl_err
sqlite_store_password_set(struct sqlite_store *s, int64_t account_id,
    const unsigned char hash[BL_PASSHASH_BYTES], int64_t now)
{
	sqlite3_stmt	*st;
	enum bl_err	 e;

	if ((e = begin(s)) != BL_OK)
		return e;
	if ((st = stmt(s, ST_PASSWORD_SET)) == NULL)
		return commit(s, BL_ERR_STORE_UNAVAILABLE);
	sqlite3_bind_int64(st, 1, account_id);
	sqlite3_bind_blob(st, 2, hash, BL_PASSHASH_BYTES, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, now);
	if ((e = run(s, st)) != BL_OK)
		return commit(s, e);
	if ((st = stmt(s, ST_SESSION_END_ALL)) == NULL)
		return commit(s, BL_ERR_STORE_UNAVAILABLE);
	sqlite3_bind_int64(st, 1, account_id);
	return commit(s, run(s, st));
}

/* Stores a new session (by the SHA-256 of its id) for an account, seen now. */
enum bl_err
sqlite_store_session_insert(struct sqlite_store *s, const unsigned char hash[BL_HASH_BYTES],
    int64_t account_id, int64_t now)
{
	sqlite3_stmt	*st;

	if ((st = stmt(s, ST_SESSION_INSERT)) == NULL)
		return BL_ERR_STORE_UNAVAILABLE;
	sqlite3_bind_blob(st, 1, hash, BL_HASH_BYTES, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, account_id);
	sqlite3_bind_int64(st, 3, now);
	return run(s, st);
}

/* Finds a session by the SHA-256 of its id (expired ones too); NOT_FOUND if none. */
enum bl_err
sqlite_store_session_find(struct sqlite_store *s, const unsigned char hash[BL_HASH_BYTES],
    struct bl_session *out)
{
	sqlite3_stmt	*st;
	int		 rc;

	if ((st = stmt(s, ST_SESSION_FIND)) == NULL)
		return BL_ERR_STORE_UNAVAILABLE;
	sqlite3_bind_blob(st, 1, hash, BL_HASH_BYTES, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		out->id = sqlite3_column_int64(st, 0);
		out->account_id = sqlite3_column_int64(st, 1);
		out->created_ms = sqlite3_column_int64(st, 2);
		out->seen_ms = sqlite3_column_int64(st, 3);
	}
	sqlite3_reset(st);
	if (rc == SQLITE_DONE)
		return BL_ERR_NOT_FOUND;
	return rc == SQLITE_ROW ? BL_OK : fail(s, s->db, rc, "select session");
}

/* Records a request of session id at now. */
enum bl_err
sqlite_store_session_touch(struct sqlite_store *s, int64_t id, int64_t now)
{
	sqlite3_stmt	*st;

	if ((st = stmt(s, ST_SESSION_TOUCH)) == NULL)
		return BL_ERR_STORE_UNAVAILABLE;
	sqlite3_bind_int64(st, 1, now);
	sqlite3_bind_int64(st, 2, id);
	return run(s, st);
}

/* Ends session id (sign-out); BL_OK also when it was already gone. */
enum bl_err
sqlite_store_session_delete(struct sqlite_store *s, int64_t id)
{
	sqlite3_stmt	*st;

	if ((st = stmt(s, ST_SESSION_DELETE)) == NULL)
		return BL_ERR_STORE_UNAVAILABLE;
	sqlite3_bind_int64(st, 1, id);
	return run(s, st);
}

/* Removes the sessions last seen at or before seen_before or created at or before created_before. */
enum bl_err
sqlite_store_session_prune(struct sqlite_store *s, int64_t seen_before, int64_t created_before)
{
	sqlite3_stmt	*st;

	if ((st = stmt(s, ST_SESSION_PRUNE)) == NULL)
		return BL_ERR_STORE_UNAVAILABLE;
	sqlite3_bind_int64(st, 1, seen_before);
	sqlite3_bind_int64(st, 2, created_before);
	return run(s, st);
}

/* One secret row by its id (no content, no state change); NOT_FOUND if none. */
enum bl_err
sqlite_store_secret_get(struct sqlite_store *s, int64_t id, struct bl_secret *r)
{
	memset(r, 0, sizeof(*r));
	return load(s, id, r);
}

/*
 * Calls cb for the newest max secret rows of an account (active ones and the
 * tombstones cleanup has not removed yet), newest first; stops early when cb
 * returns non-zero. The rows are as stored: an active row past its expiry is
 * still active here.
 */
enum bl_err
sqlite_store_account_secrets(struct sqlite_store *s, int64_t account_id, int64_t max,
    int (*cb)(void *, const struct bl_secret *), void *arg)
{
	sqlite3_stmt		*st;
	struct bl_secret	 r;
	int			 rc;

	if ((st = stmt(s, ST_ACCOUNT_SECRETS)) == NULL)
		return BL_ERR_STORE_UNAVAILABLE;
	sqlite3_bind_int64(st, 1, account_id);
	sqlite3_bind_int64(st, 2, max);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		read_row(st, &r);
		if (cb(arg, &r) != 0) {
			rc = SQLITE_DONE;
			break;
		}
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? BL_OK : fail(s, s->db, rc, "list secrets");
}
