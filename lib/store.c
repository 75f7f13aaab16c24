/* store.c (layer: storage): the store handle over the backend BURNLINK_DB names, and the one way statements are run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "store.h"

/*
 * In a batch (group commit, lib/fcgi.c), a write may be deferred to the
 * batch's commit (secret.c defers small inserts): the request's parsing,
 * checks and encryption then run without the write lock, which another
 * responder may want meanwhile. At most DEFER_MAX wait at once.
 */
#define DEFER_MAX	16

struct deferred {
	enum bl_err	 (*run)(struct bl_store *, void *);
	void		 (*free)(void *);
	void		*arg;
};

/*
 * An open store: the database (secrets, accounts) behind its backend, or the
 * rate-limit counters behind theirs; exactly one of the two is set.
 */
struct bl_store {
	const struct bl_store_ops	*ops;
	void				*db;
	const struct bl_counter_ops	*cops;
	void				*counters;
	struct deferred			 deferred[DEFER_MAX];
	int				 ndeferred;
	/*
	 * The audit trail (lib/audit.c): who acts (the context's), and the
	 * syslog lines of the events written, sent once their transaction
	 * (or, in a batch, the batch) has committed: lines[0, len), the
	 * current transaction's from mark.
	 */
	const struct bl_audit_who	*who;
	char				*lines;
	size_t				 len, cap, mark;
	/*
	 * burnlink_events_total (lib/metrics.c, bl_st_events_take()): the
	 * events written by kind in the current transaction (ev_tx), those
	 * committed and not yet counted (ev_done; in a FastCGI batch, joined
	 * to the batch's transaction), and those a batch's deferred writes
	 * committed after their answers went out (ev_late).
	 */
	uint32_t			 ev_tx[64], ev_done[64], ev_late[64];
	int				 in_tx;
};

/*
 * 1 if db names a PostgreSQL database: a URI (postgresql://..., postgres://...)
 * or "postgres:" followed by a libpq keyword/value conninfo
 * ("postgres:host=/run/postgresql dbname=burnlink"). Anything else is a
 * SQLite file.
 */
int
bl_store_is_pg(const char *db)
{
	return db != NULL && (strncmp(db, "postgresql://", 13) == 0 ||
	    strncmp(db, "postgres:", 9) == 0);
}

/*
 * 1 if the program may need sockets to reach its store, which the seccomp
 * filter (lib/sandbox.c) then allows: BURNLINK_DB names PostgreSQL, or, for a
 * FastCGI responder (whose requests each name their database), this build
 * can reach PostgreSQL.
 */
int
bl_store_needs_net(int fcgi)
{
#ifdef BL_HAVE_PG
	return fcgi || bl_store_is_pg(getenv("BURNLINK_DB"));
#else
	(void)fcgi;
	return 0;
#endif
}

/* This process keeps its connections from one request to the next (FastCGI). */
void
bl_store_persistent(int on)
{
	bl_sqlite_ops.persistent(on);
#ifdef BL_HAVE_PG
	if (bl_pg_ops.persistent != NULL)
		bl_pg_ops.persistent(on);
#endif
}

/* A handle on one of the two stores, opened. */
static enum bl_err
handle(struct bl_store **out, const struct bl_store_ops *ops,
    const struct bl_counter_ops *cops, const struct bl_config *cfg, char *err, size_t errlen)
{
	struct bl_store	*s;
	enum bl_err	 e;

	*out = NULL;
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return BL_ERR_INTERNAL;
	s->ops = ops;
	s->cops = cops;
	e = ops != NULL ? ops->open(&s->db, cfg, err, errlen) : cops->open(&s->counters, cfg);
	if (e != BL_OK) {
		free(s);
		return e;
	}
	*out = s;
	return BL_OK;
}

/* Opens the store of cfg->db_path: PostgreSQL for a conninfo, else SQLite. */
enum bl_err
bl_store_open(struct bl_store **out, const struct bl_config *cfg, char *err, size_t errlen)
{
	*out = NULL;
	if (!bl_store_is_pg(cfg->db_path))
		return handle(out, &bl_sqlite_ops, NULL, cfg, err, errlen);
#ifdef BL_HAVE_PG
	return handle(out, &bl_pg_ops, NULL, cfg, err, errlen);
#else
	snprintf(err, errlen, "BURNLINK_DB names a PostgreSQL database, but these "
	    "programs were built without PostgreSQL support (build with make PG=1)");
	return BL_ERR_STORE_UNAVAILABLE;
#endif
}

/*
 * The rate limiter's store of cfg's database: the counters alone, so that a
 * request can be counted before it is validated (they open on first use).
 */
enum bl_err
bl_store_open_counters(struct bl_store **out, const struct bl_config *cfg)
{
	*out = NULL;
	if (!bl_store_is_pg(cfg->db_path))
		return handle(out, NULL, &bl_counters_file_ops, cfg, NULL, 0);
#ifdef BL_HAVE_PG
	return handle(out, NULL, &bl_counters_pg_ops, cfg, NULL, 0);
#else
	return BL_ERR_RATE_LIMIT_UNAVAILABLE;
#endif
}

/* Drops the writes still deferred (a batch that never committed them). */
static void
drop_deferred(struct bl_store *s)
{
	int	 i;

	for (i = 0; i < s->ndeferred; i++)
		s->deferred[i].free(s->deferred[i].arg);
	s->ndeferred = 0;
}

/* Sends the audit lines of what committed to syslog (audit_syslog), one datagram each. */
static void
lines_send(struct bl_store *s)
{
	char		 head[64], *p, *end, *msg = NULL;
	struct tm	 tm;
	time_t		 t = time(NULL);
	size_t		 n, hn;
	int		 fd = s->who != NULL ? s->who->syslog_fd : -1;

	if (fd >= 0 && s->len > 0 && gmtime_r(&t, &tm) != NULL &&
	    (msg = malloc(s->len + sizeof(head))) != NULL) {
		hn = strftime(head, sizeof(head), "%b %e %H:%M:%S", &tm);
		snprintf(head + hn, sizeof(head) - hn, " burnlink[%ld]: ", (long)getpid());
		for (p = s->lines, end = s->lines + s->len; p < end; p += n + 1) {
			n = strlen(p);
			hn = (size_t)snprintf(msg, s->len + sizeof(head), "<%d>%s%s",
			    s->who->syslog | 6 /* LOG_INFO */, head, p);
			if (write(fd, msg, hn) < 0)
				break;	/* a full or absent log daemon never fails an action */
		}
	}
	free(msg);
	s->len = s->mark = 0;
}

/*
 * Queues line (one JSON object) for syslog once the current transaction has
 * committed; 0, or -1 out of memory. Nothing when audit_syslog is off.
 */
int
bl_st_after_commit(struct bl_store *s, const char *line)
{
	size_t	 n = strlen(line) + 1;
	char	*p;

	if (s->who == NULL || s->who->syslog_fd < 0)
		return 0;
	if (s->len + n > s->cap) {
		if ((p = realloc(s->lines, s->cap * 2 + n)) == NULL)
			return -1;
		s->lines = p;
		s->cap = s->cap * 2 + n;
	}
	memcpy(s->lines + s->len, line, n);
	s->len += n;
	return 0;
}

/*
 * Notes n events of kind written in the current transaction, counted once
 * it commits (bl_st_end()); a statement run outside bl_st_begin()/bl_st_end()
 * commits alone: its events count at once.
 */
void
bl_st_event(struct bl_store *s, int kind, int64_t n)
{
	if (kind > 0 && kind < 64 && n > 0)
		(s->in_tx ? s->ev_tx : s->ev_done)[kind] += (uint32_t)n;
}

/*
 * Adds to counts[64] the committed events not yet counted and forgets them;
 * returns how many of them the current request's transactions wrote (not a
 * batch's deferred writes'), 0 when they wrote none.
 */
int64_t
bl_st_events_take(struct bl_store *s, int64_t *counts)
{
	int64_t	 own = 0;
	int	 i;

	for (i = 0; i < 64; i++) {
		own += s->ev_done[i];
		counts[i] += (int64_t)s->ev_done[i] + s->ev_late[i];
	}
	memset(s->ev_done, 0, sizeof(s->ev_done));
	memset(s->ev_late, 0, sizeof(s->ev_late));
	return own;
}

/* The actor of the events written through s (lib/audit.c); NULL: none set. */
void
bl_st_set_who(struct bl_store *s, const struct bl_audit_who *who)
{
	s->who = who;
}

const struct bl_audit_who *
bl_st_who(const struct bl_store *s)
{
	return s->who;
}

void
bl_store_close(struct bl_store *s)
{
	if (s == NULL)
		return;
	drop_deferred(s);
	free(s->lines);
	if (s->ops != NULL)
		s->ops->close(s->db);
	if (s->cops != NULL)
		s->cops->close(s->counters);
	free(s);
}

/*
 * A kept store whose responder has no request waiting (FastCGI): what was
 * left for such a moment (SQLite: the wiped keys' sync, lib/store_sqlite.c).
 */
void
bl_store_settle(struct bl_store *s)
{
	if (s != NULL && s->ops != NULL && s->ops->settle != NULL)
		s->ops->settle(s->db);
}

/* Readies a store kept for the next request (FastCGI); -1: close it instead. */
int
bl_store_idle(struct bl_store *s)
{
	return s->ops != NULL ? s->ops->idle(s->db) : s->cops->idle(s->counters);
}

/*
 * The error text of a database whose schema is newer than the programs' (a
 * rollback after an upgrade): both versions and the way out. It is the hint
 * of the 503 SCHEMA_TOO_NEW answer (docs/API.md), so it names no path.
 */
void
bl_schema_newer(char *err, size_t len, int found, int known)
{
	snprintf(err, len, "The database's schema is version %d, newer than the version %d "
	    "these programs know: they were replaced by an older release. Install the "
	    "release that upgraded the database again, or restore the backup made "
	    "before the upgrade (INSTALL section 12, Upgrades).", found, known);
}

const char *
bl_store_error(const struct bl_store *s)
{
	return s->ops != NULL ? s->ops->error(s->db) : s->cops->error(s->counters);
}

/*
 * Group commit (FastCGI, lib/fcgi.c): the store's write transactions join one
 * until bl_store_batch_commit(); bl_store_batch_flush() runs the deferred
 * writes and commits what is done so far, letting the write lock go.
 *
 * How many flushes made everything their batch had written durable (the
 * commit succeeded, synchronous=FULL): lib/fcgi.c compares it around each
 * request, so that a later failure of the batch does not take back answers
 * whose writes a flush made durable. One per process: a responder serves one
 * request at a time, and a store may be closed and opened within a batch.
 */
static unsigned long	 durable_flushes;

unsigned long
bl_store_batch_durable(void)
{
	return durable_flushes;
}

void
bl_store_batch(struct bl_store *s)
{
	if (s->ops->batch != NULL)
		s->ops->batch(s->db);
}

void
bl_store_batch_flush(struct bl_store *s)
{
	uint32_t	 saved[64];
	int		 i, lost = 0;

	if (s->ops->batch_flush == NULL)
		return;
	for (i = 0; i < s->ndeferred; i++)
		if (!lost && s->deferred[i].run(s, s->deferred[i].arg) != BL_OK)
			lost = 1;
	/*
	 * The deferred writes' events are counted later (ev_late), except
	 * their secret.created: their answers counted it already (event_of()).
	 */
	memcpy(saved, s->ev_done, sizeof(saved));
	memset(s->ev_done, 0, sizeof(s->ev_done));
	drop_deferred(s);
	s->ops->batch_flush(s->db, lost);
	for (i = 0; i < 64; i++)
		if (!lost && i != BL_EV_SECRET_CREATED)
			s->ev_late[i] += s->ev_done[i];
	memcpy(s->ev_done, saved, sizeof(saved));
	if (lost)
		s->len = s->mark = 0;
	else
		lines_send(s);
	/* Still batching: not lost, so the flush committed all it held. */
	if (s->ops->batching != NULL && s->ops->batching(s->db))
		durable_flushes++;
}

/* Commits the batch durably; a failure fails every request of it. */
enum bl_err
bl_store_batch_commit(struct bl_store *s)
{
	bl_store_batch_flush(s);
	return s->ops->batch_commit != NULL ? s->ops->batch_commit(s->db) : BL_OK;
}

/* 1 if a write may now wait for the batch's commit (bl_st_defer()). */
int
bl_st_deferrable(const struct bl_store *s)
{
	return s->ops->batching != NULL && s->ops->batching(s->db) &&
	    s->ndeferred < DEFER_MAX;
}

/* Defers run(s, arg) to the batch's commit; the store frees arg then (or on close). */
void
bl_st_defer(struct bl_store *s, enum bl_err (*run)(struct bl_store *, void *),
    void (*fr)(void *), void *arg)
{
	struct deferred	*d = &s->deferred[s->ndeferred++];

	d->run = run;
	d->free = fr;
	d->arg = arg;
}

/* The SQL of statement id in the store's dialect ("": BL_SQL_NONE). */
static const char *
sql_of(const struct bl_store *s, enum bl_stmt id)
{
	return s->ops->sql != NULL && s->ops->sql[id] != NULL ? s->ops->sql[id] : bl_sql[id];
}

/* Runs statement id in the store's dialect. */
enum bl_err
bl_st_run(struct bl_store *s, enum bl_stmt id, const struct bl_parm *p, int n,
    bl_row_fn fn, void *arg, int64_t *changes)
{
	const char	*sql = sql_of(s, id);

	if (changes != NULL)
		*changes = 0;
	if (*sql == '\0')
		return BL_OK;	/* BL_SQL_NONE */
	return s->ops->run(s->db, id, sql, p, n, fn, arg, changes);
}

/*
 * Runs statement id, whose rows and changes the caller will not read, where
 * the backend likes: at once, or sent with the transaction's next statement
 * (its failure then that statement's, or the commit's).
 */
enum bl_err
bl_st_later(struct bl_store *s, enum bl_stmt id, const struct bl_parm *p, int n)
{
	const char	*sql = sql_of(s, id);

	if (*sql == '\0')
		return BL_OK;	/* BL_SQL_NONE */
	if (s->ops->run_later != NULL)
		return s->ops->run_later(s->db, id, sql, p, n);
	return s->ops->run(s->db, id, sql, p, n, NULL, NULL, NULL);
}

struct one {
	bl_row_fn	 fn;
	void		*arg;
	int		 found;
};

static int
one_row(void *arg, const struct bl_row *row)
{
	struct one	*o = arg;

	o->found = 1;
	return o->fn(o->arg, row) < 0 ? -1 : 1;
}

enum bl_err
bl_st_one(struct bl_store *s, enum bl_stmt id, const struct bl_parm *p, int n,
    bl_row_fn fn, void *arg)
{
	struct one	 o = { fn, arg, 0 };
	enum bl_err	 e;

	if ((e = bl_st_run(s, id, p, n, one_row, &o, NULL)) != BL_OK)
		return e;
	return o.found ? BL_OK : BL_ERR_NOT_FOUND;
}

/*
 * Runs statement id as a transaction of its own, as bl_st_run() with fn
 * called for every row (it returns 0 to read on): alone on a backend
 * without group commit (one round trip on PostgreSQL, which BEGIN and
 * COMMIT would make three); on one with it, between bl_st_begin() and
 * bl_st_end(), which in a FastCGI batch make it a savepoint of the batch's
 * transaction, durable when the batch commits. Every row is read before
 * the statement ends, so that a commit's failure is its failure.
 */
enum bl_err
bl_st_alone(struct bl_store *s, enum bl_stmt id, const struct bl_parm *p, int n,
    bl_row_fn fn, void *arg)
{
	enum bl_err	 e;

	if (s->ops->batch == NULL || *sql_of(s, id) == '\0')
		return bl_st_run(s, id, p, n, fn, arg, NULL);
	if ((e = bl_st_begin(s)) != BL_OK)
		return e;
	return bl_st_end(s, bl_st_run(s, id, p, n, fn, arg, NULL));
}

enum bl_err
bl_st_begin(struct bl_store *s)
{
	enum bl_err	 e;

	s->mark = s->len;
	memset(s->ev_tx, 0, sizeof(s->ev_tx));
	if ((e = s->ops->begin(s->db)) == BL_OK)
		s->in_tx = 1;
	return e;
}

/*
 * Ends the transaction; the audit lines of a commit go to syslog then (in a
 * batch, with the batch's commit), those of a rollback are dropped.
 */
enum bl_err
bl_st_end(struct bl_store *s, enum bl_err e)
{
	int	 i;

	s->in_tx = 0;
	if (e != BL_OK) {
		s->len = s->mark;
		memset(s->ev_tx, 0, sizeof(s->ev_tx));
		s->ops->rollback(s->db);
		return e;
	}
	if ((e = s->ops->commit(s->db)) != BL_OK) {	/* it rolled back itself */
		s->len = s->mark;
		memset(s->ev_tx, 0, sizeof(s->ev_tx));
		return e;
	}
	for (i = 0; i < 64; i++)
		s->ev_done[i] += s->ev_tx[i];
	memset(s->ev_tx, 0, sizeof(s->ev_tx));
	if (s->ops->batching == NULL || !s->ops->batching(s->db))
		lines_send(s);
	return e;
}

enum bl_err
bl_st_refuse(struct bl_store *s, enum bl_err e, int changed)
{
	enum bl_err	 ce;

	if (!changed)
		return bl_st_end(s, e);
	ce = bl_st_end(s, BL_OK);
	return ce != BL_OK ? ce : e;
}

enum bl_err
bl_st_purge(struct bl_store *s)
{
	return s->ops->purge != NULL ? s->ops->purge(s->db) : BL_OK;
}

/* Readies the store for a cleanup's steps, or goes between two (struct bl_store_ops, bulk). */
enum bl_err
bl_st_bulk(struct bl_store *s, int first)
{
	return s->ops->bulk != NULL ? s->ops->bulk(s->db, first) : BL_OK;
}

/*
 * Crypto-shredding (struct bl_store_ops, key_*): where the backend has none,
 * a new secret gets slot 0 (stored unsealed), a shred of slot 0 or any on
 * such a backend does nothing, and there is no key to get.
 */
enum bl_err
bl_st_key_new(struct bl_store *s, int64_t expires_ms, int64_t owner, unsigned char key[32],
    int64_t *slot)
{
	*slot = 0;
	return s->ops->key_new != NULL ? s->ops->key_new(s->db, expires_ms, owner, key, slot) :
	    BL_OK;
}

enum bl_err
bl_st_key_get(struct bl_store *s, int64_t slot, int64_t owner, unsigned char key[32])
{
	return s->ops->key_get != NULL ? s->ops->key_get(s->db, slot, owner, key) :
	    BL_ERR_NOT_FOUND;
}

enum bl_err
bl_st_key_shred(struct bl_store *s, int64_t slot, int64_t owner)
{
	return s->ops->key_shred != NULL ? s->ops->key_shred(s->db, slot, owner) : BL_OK;
}

enum bl_err
bl_st_key_expire(struct bl_store *s, int64_t now_ms)
{
	return s->ops->key_expire != NULL ? s->ops->key_expire(s->db, now_ms) : BL_OK;
}

/* An integer column (null if SQL NULL). */
int64_t
bl_col_int(const struct bl_row *row, int col, int64_t null)
{
	return row->ops->col_int(row, col, null);
}

int
bl_col_blob(const struct bl_row *row, int col, const void **p, size_t *len)
{
	return row->ops->col_blob(row, col, p, len);
}

/* Copies a text column into a fixed buffer of size n (truncating). */
void
bl_col_text(const struct bl_row *row, int col, char *buf, size_t n)
{
	const void	*p;
	size_t		 len;

	if (row->ops->col_blob(row, col, &p, &len) != 0 || p == NULL)
		len = 0;
	if (len >= n)
		len = n - 1;
	if (len > 0)
		memcpy(buf, p, len);
	buf[len] = '\0';
}

/* Copies a content column and its IV (the column after it) into a new item; -1 on failure. */
int
bl_col_item(const struct bl_row *row, int col, struct bl_item *it)
{
	const void	*p, *iv;
	size_t		 n, ivlen;

	memset(it, 0, sizeof(*it));
	if (row->ops->col_blob(row, col, &p, &n) != 0 ||
	    row->ops->col_blob(row, col + 1, &iv, &ivlen) != 0 ||
	    (it->buf = malloc(n + 1)) == NULL)
		return -1;
	if (n > 0)
		memcpy(it->buf, p, n);
	it->buf[n] = '\0';
	it->len = n;
	if (iv != NULL && ivlen == BL_IV_BYTES) {
		memcpy(it->iv, iv, BL_IV_BYTES);
		it->enc = 1;
	}
	return 0;
}

/* Row callback: the id an INSERT ... RETURNING id gives back. */
int
bl_row_id(void *arg, const struct bl_row *row)
{
	*(int64_t *)arg = bl_col_int(row, 0, 0);
	return 0;
}

/*
 * The rate-limit counters (lib/limit.c): their own interface, the SQLite
 * counters file (counters.c) or the PostgreSQL table (store_pg.c).
 */
enum bl_err
bl_counter_add(struct bl_store *s, const unsigned char bucket[BL_HASH_BYTES],
    int64_t window_start, int64_t expires, int64_t *count)
{
	return s->cops->add(s->counters, bucket, window_start, expires, count);
}

enum bl_err
bl_counter_get(struct bl_store *s, const unsigned char bucket[BL_HASH_BYTES],
    int64_t window_start, int64_t *count)
{
	return s->cops->get(s->counters, bucket, window_start, count);
}

enum bl_err
bl_counter_set(struct bl_store *s, const unsigned char bucket[BL_HASH_BYTES],
    int64_t window_start, int64_t expires, int64_t count)
{
	return s->cops->set(s->counters, bucket, window_start, expires, count);
}

enum bl_err
bl_counter_clean(struct bl_store *s, int64_t now, int64_t *removed)
{
	return s->cops->clean(s->counters, now, removed);
}

/* The metrics' totals (lib/metrics.c): kept by the counters' backend. */
enum bl_err
bl_counter_bump(struct bl_store *s, const unsigned *slots, int n, int64_t by)
{
	return s->cops->bump(s->counters, slots, n, by);
}

enum bl_err
bl_counter_totals(struct bl_store *s, int64_t out[BL_METRIC_SLOTS])
{
	return s->cops->totals(s->counters, out);
}

enum bl_err
bl_counter_occupancy(struct bl_store *s, int64_t now, int64_t *used, int64_t *capacity)
{
	return s->cops->occupancy(s->counters, now, used, capacity);
}

/* Row callback of ST_M_SECRETS and ST_M_REQUESTS: state, past expiry (0/1), count. */
struct gauge_rows {
	int64_t	*by;
	int	 nstates;
	int	 expired;	/* the state an active row past its expiry counts as */
};

static int
gauge_by_state(void *arg, const struct bl_row *row)
{
	struct gauge_rows	*g = arg;
	int64_t			 state = bl_col_int(row, 0, 0);

	if (bl_col_int(row, 1, 0) != 0)
		state = g->expired;
	if (state >= 0 && state < g->nstates)
		g->by[state] += bl_col_int(row, 2, 0);
	return 0;
}

static int
gauge_accounts(void *arg, const struct bl_row *row)
{
	struct bl_gauges	*g = arg;

	g->accounts = bl_col_int(row, 0, 0);
	g->keys_valid = bl_col_int(row, 1, 0);
	g->keys_revoked = bl_col_int(row, 2, 0);
	return 0;
}

static int
gauge_outbox(void *arg, const struct bl_row *row)
{
	struct bl_gauges	*g = arg;

	g->outbox_pending = bl_col_int(row, 0, 0);
	g->outbox_oldest_ms = bl_col_int(row, 1, -1);
	return 0;
}

static int
gauge_int(void *arg, const struct bl_row *row)
{
	*(int64_t *)arg = bl_col_int(row, 0, 0);
	return 0;
}

/*
 * Reads the gauges: five aggregate statements, each a read of its own (no
 * write transaction: SQLite's BEGIN IMMEDIATE would hold writers off).
 */
enum bl_err
bl_store_gauges(struct bl_store *s, int64_t now_ms, struct bl_gauges *g)
{
	struct gauge_rows	 sec = { g->secrets, 4, 1 }, rq = { g->requests, 5, 3 };
	enum bl_err		 e;

	memset(g, 0, sizeof(*g));
	g->outbox_oldest_ms = -1;
	if ((e = bl_st_run(s, ST_M_SECRETS, PARMS(P_INT(now_ms)), gauge_by_state, &sec,
	    NULL)) == BL_OK &&
	    (e = bl_st_run(s, ST_M_REQUESTS, PARMS(P_INT(now_ms)), gauge_by_state, &rq,
	    NULL)) == BL_OK &&
	    (e = bl_st_run(s, ST_M_ACCOUNTS, NO_PARMS, gauge_accounts, g, NULL)) == BL_OK &&
	    (e = bl_st_run(s, ST_M_OUTBOX, NO_PARMS, gauge_outbox, g, NULL)) == BL_OK)
		e = bl_st_run(s, ST_M_DBSIZE, NO_PARMS, gauge_int, &g->db_bytes, NULL);
	return e;
}
