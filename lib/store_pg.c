/* store_pg.c (layer: storage): the PostgreSQL backend (libpq): its SQL dialect, its primitives and its counters (lib/store.h). */
/* Built with make PG=1 only (BL_HAVE_PG); any other build compiles this file to nothing. */
#ifdef BL_HAVE_PG
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "internal.h"
#include "store.h"
#include "schema-pg.h"	/* bl_schema_pg_sql, generated from schema-pg.sql */

/*
 * Concurrency: every change to a secret runs in one READ COMMITTED
 * transaction that first locks the secret's row (SELECT ... FOR UPDATE),
 * re-checks its state and expiry under that lock, and only then reads,
 * counts or deletes. Racing retrievals of one secret, from any number of web
 * servers, queue on the row lock; each one that gets it sees the row as the
 * previous one committed it, so a maxViews: 5 secret is read exactly 5
 * times. SERIALIZABLE would give the same result by aborting all but one of
 * the racers (40001) and retrying them, which costs more round trips under
 * exactly the contention that matters, and a retry loop in every caller; a
 * row lock blocks instead of failing, and only requests for the same secret
 * ever wait on each other. Rate-limit counters are one atomic upsert
 * (INSERT ... ON CONFLICT DO UPDATE ... RETURNING) in an UNLOGGED table.
 */

#define SCHEMA_LOCK	"7809451926"	/* pg_advisory_xact_lock key: applying the schema */
#define MAX_ARGS	BL_MAX_PARMS	/* the most a statement takes: PARMS() checks it */

/* Type OIDs of the parameters (catalog/pg_type_d.h is a server header). */
#define OID_BOOL	16
#define OID_BYTEA	17
#define OID_INT8	20
#define OID_TEXT	25

/*
 * The dialect: where PostgreSQL is told more than lib/store_sql.c says. A
 * statement runs as one unnamed extended query, or prepared once per
 * connection where that connection serves many requests (run_text()).
 */
static const char *const dialect[ST__MAX] = {
	[ST_M_DBSIZE] = "SELECT pg_database_size(current_database())",
	/* the row lock of a change (see above) */
	[ST_LOCK] = "SELECT " BL_ROW_COLUMNS ", false FROM secrets WHERE id = $1 "
	    "FOR UPDATE",
	[ST_LOCK_TEXT] = "SELECT " BL_ROW_COLUMNS ", false, text_ct, text_iv, EXISTS "
	    "(SELECT 1 FROM attachments WHERE secret_id = $1) FROM secrets WHERE id = $1 "
	    "FOR UPDATE",
	/*
	 * A view that changes only the counts (lib/secret.c), found by the
	 * key's hash, checked, counted and read in one round trip, the row
	 * locked only inside the server, against five the whole way (the
	 * lookup, BEGIN, the row locked, the count with the COMMIT). SQLite,
	 * whose statements cost no round trip, runs more instructions for it
	 * (RETURNING, the subquery) than the statements it replaces, and runs
	 * none.
	 */
	/* its audit row (lib/audit.c) in the same statement: $3 the client */
	/* $4: what the key carries, or 0: a row stored before version 8 (ST_LOOKUP) */
	[ST_VIEW_TAKE] = "WITH v AS (UPDATE secrets SET view_count = view_count + 1, "
	    "last_viewed_at = $2 WHERE lookup_at IN ($4, 0) AND secret_hash = $1 AND "
	    "state = 0 AND expires_at > $2 AND pass_hash IS NULL AND account_id IS NULL AND "
	    "(max_views IS NULL OR view_count + 1 < max_views) AND NOT EXISTS "
	    "(SELECT 1 FROM attachments WHERE secret_id = secrets.id) "
	    "RETURNING " BL_ROW_COLUMNS ", text_ct, text_iv), a AS (" BL_AUDIT_INTO
	    "SELECT $2, 'secret.viewed', NULL, NULL, NULL, $3, NULL, v.id, NULL, 'ok', "
	    "CASE WHEN v.max_views IS NULL THEN NULL ELSE 'views_left=' || "
	    "(v.max_views - v.view_count) END FROM v) "
	    "SELECT " BL_ROW_COLUMNS ", false, text_ct, text_iv, false FROM v",
	/* the attachments go by the foreign key's cascade */
	[ST_CLEAN_FILES] = BL_SQL_NONE,
	/*
	 * One cleanup at a time across the hosts of a database: a session-level
	 * advisory lock (the key is arbitrary: "bl" "cl" in ASCII), released when
	 * the cleanup's connection ends.
	 */
	[ST_CLEAN_LOCK] = "SELECT pg_try_advisory_lock(1651270252)",
	/* Rows another host's cleanup (or a request) holds are left for the next run. */
	/* content is not sealed here (docs/SECURITY.md, "Gone for good"): no keys to wipe */
	[ST_CLEAN_SLOTS] = BL_SQL_NONE,
	[ST_CLEAN_ROWS] = "DELETE FROM secrets WHERE id IN (SELECT id FROM secrets s "
	    "WHERE " BL_CLEAN_STEP " FOR UPDATE SKIP LOCKED)",
	[ST_RQ_LOCK] = "SELECT " BL_RQ_COLUMNS ", false FROM requests WHERE id = $1 "
	    "FOR UPDATE",
	[ST_RQ_CLEAN] = "DELETE FROM requests WHERE id IN (SELECT id FROM requests "
	    "WHERE expires_at <= $1 LIMIT $2 FOR UPDATE SKIP LOCKED)",
	/*
	 * Two concurrent POST /api/webhooks of an account: the second waits for
	 * the first's commit, then counts (READ COMMITTED sees its row).
	 */
	[ST_WEBHOOK_LOCK] = "SELECT id FROM accounts WHERE id = $1 FOR UPDATE",
	/*
	 * Two overlapping notify runs: rows another run is claiming are skipped.
	 * The rows are chosen once, in a CTE (materialized, as every CTE with
	 * FOR UPDATE): an IN (subquery ... LIMIT) may be evaluated again for a
	 * row rechecked after a concurrent update and so lease more than $4.
	 */
	[ST_OUTBOX_CLAIM] = "WITH due AS (SELECT id FROM outbox WHERE state = 0 AND "
	    "next_at <= $1 AND lease_until <= $1 AND ($5 = 0 OR kind LIKE 'account.%') "
	    "ORDER BY CASE WHEN kind LIKE 'account.%' THEN 0 ELSE 1 END, id LIMIT $4 "
	    "FOR UPDATE SKIP LOCKED) "
	    "UPDATE outbox o SET lease_until = $2, lease_token = $3, attempts = o.attempts + 1 "
	    "FROM due WHERE o.id = due.id",
};

/*
 * The rate-limit counters: one atomic upsert per count in an UNLOGGED table
 * (schema-pg.sql), their own statements (struct bl_counter_ops).
 */
enum ctr_stmt {
	CT_ADD,
	CT_GET,
	CT_SET,
	CT_DEL,
	CT_CLEAN,
	CT_BUMP,
	CT_BUMP2,
	CT_TOTALS,
	CT_LIVE,
	CT__MAX
};

static const char *const ctr_sql[CT__MAX] = {
	[CT_ADD] = "INSERT INTO counters (bucket, window_start, expires, count) "
	    "VALUES ($1,$2,$3,1) ON CONFLICT (bucket, window_start) DO UPDATE SET "
	    "count = counters.count + 1 RETURNING count",
	[CT_GET] = "SELECT count FROM counters WHERE bucket = $1 AND window_start = $2",
	[CT_SET] = "INSERT INTO counters (bucket, window_start, expires, count) "
	    "VALUES ($1,$2,$3,$4) ON CONFLICT (bucket, window_start) DO UPDATE SET "
	    "count = excluded.count, expires = excluded.expires",
	[CT_DEL] = "DELETE FROM counters WHERE bucket = $1 AND window_start = $2",
	[CT_CLEAN] = "DELETE FROM counters WHERE expires <= $1",
	/* the metrics' totals: window 0, never ending (metric_bucket()) */
	[CT_BUMP] = "INSERT INTO counters (bucket, window_start, expires, count) "
	    "VALUES ($1,0,9223372036854775807,$2) ON CONFLICT (bucket, window_start) DO UPDATE SET "
	    "count = counters.count + excluded.count",
	[CT_BUMP2] = "INSERT INTO counters (bucket, window_start, expires, count) "
	    "VALUES ($1,0,9223372036854775807,$3), ($2,0,9223372036854775807,$3) "
	    "ON CONFLICT (bucket, window_start) DO UPDATE SET "
	    "count = counters.count + excluded.count",
	[CT_TOTALS] = "SELECT bucket, count FROM counters WHERE window_start = 0",
	[CT_LIVE] = "SELECT count(*) FROM counters WHERE window_start > 0 AND expires > $1",
};

/*
 * One connection to a database. A request holds two store handles, the rate
 * limiter's and the secrets' (internal.h); with PostgreSQL both name one
 * database, so they share the process's connection instead of paying for a
 * second. The programs serve one request at a time (CGI, or FastCGI in a
 * loop), so a count of the handles using it is all the sharing needs.
 */
struct pg_conn {
	PGconn		*conn;
	char		*conninfo;
	int		 users;
	int		 kept;		/* idle since an earlier request (FastCGI) */
	int		 direct;	/* to the backend itself, not through a pooler */
	/* the statements prepared on this session, with their parameters' types */
	unsigned char	 prepared[ST__MAX + CT__MAX];
	Oid		 prep_types[ST__MAX + CT__MAX][MAX_ARGS];
	/* a statement sent with the next one (pg_run_later()), and its parameters */
	const char	*later;
	int		 later_key;	/* its statement, as run_text() names it */
	int		 nlater;
	struct bl_parm	 later_p[2];
	/* the last WARNING the server sent during the current statement (on_notice()) */
	int		 warned;
	char		 warning[200];
};

static struct pg_conn	*shared;	/* this process's connection, if open */
static int		 persistent;	/* a FastCGI responder: connections are kept */

struct pg_store {
	struct pg_conn	*c;		/* NULL until first use (counters) */
	char		*conninfo;	/* BURNLINK_DB as given */
	char		 err[400];	/* a log line's worth: lib/log.c */
	char		 sqlstate[6];	/* of the last failure, "" if none */
	int		 unreachable;	/* the last connection attempt failed or was lost */
};

static enum bl_err	 connect_db(struct pg_store *);
static int		 reconnected(struct pg_store *);

/*
 * libpq's notice receiver: a WARNING is kept for committed() (a NOTICE, the
 * schema's "already exists, skipping", is not wanted: apply_schema()).
 */
static void
on_notice(void *arg, const PGresult *res)
{
	struct pg_conn	*c = arg;
	const char	*sev = PQresultErrorField(res, PG_DIAG_SEVERITY_NONLOCALIZED);
	const char	*msg = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);

	if (sev == NULL || strcmp(sev, "WARNING") != 0)
		return;
	c->warned = 1;
	snprintf(c->warning, sizeof(c->warning), "%s", msg != NULL ? msg : "");
}

/*
 * BL_OK, or STORE_UNAVAILABLE if the statement just run ended its
 * transaction (a COMMIT, or a statement run on its own) and the server sent
 * a WARNING meanwhile. PostgreSQL answers a wait for a synchronous standby
 * that was cancelled (pg_cancel_backend(), a statement_timeout) with a
 * WARNING ("canceling wait for synchronous replication") and a successful
 * COMMIT: committed on the primary, perhaps not on the standby a failover
 * promotes (INSTALL, "PostgreSQL, highly available"). The request then
 * answers 503 as for a connection lost at the COMMIT: what it wrote may
 * exist after all (a create, a view counted), but nothing is reported done,
 * or served, that a failover could undo.
 */
static enum bl_err
committed(struct pg_store *s)
{
	if (!s->c->warned || PQtransactionStatus(s->c->conn) != PQTRANS_IDLE)
		return BL_OK;
	snprintf(s->err, sizeof(s->err), "commit: the server warned: %s", s->c->warning);
	s->sqlstate[0] = '\0';
	return BL_ERR_STORE_UNAVAILABLE;
}

/*
 * Keeps the reason of a failure (first line of the message and the SQLSTATE;
 * never the DETAIL, which can quote values) and maps it to an error: a lost
 * connection is STORE_UNAVAILABLE, a lock wait past lock_timeout, a deadlock
 * or a serialization failure is STORE_BUSY.
 */
static enum bl_err
fail(struct pg_store *s, const PGresult *res, const char *what)
{
	const char	*msg = res != NULL ? PQresultErrorMessage(res) : "";
	const char	*state = res != NULL ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;

	if ((msg == NULL || *msg == '\0') && s->c != NULL)
		msg = PQerrorMessage(s->c->conn);
	if (msg == NULL)
		msg = "";
	snprintf(s->sqlstate, sizeof(s->sqlstate), "%s", state != NULL ? state : "");
	snprintf(s->err, sizeof(s->err), "%s: %.*s%s%s%s", what, (int)strcspn(msg, "\n"),
	    msg, state != NULL ? " (SQLSTATE " : "", state != NULL ? state : "",
	    state != NULL ? ")" : "");
	if (s->c == NULL || PQstatus(s->c->conn) != CONNECTION_OK)
		return BL_ERR_STORE_UNAVAILABLE;
	if (state != NULL && (strcmp(state, "55P03") == 0 || strcmp(state, "40001") == 0 ||
	    strcmp(state, "40P01") == 0 || strcmp(state, "57014") == 0 ||
	    strncmp(state, "53", 2) == 0))
		return BL_ERR_STORE_BUSY;
	return BL_ERR_STORE_UNAVAILABLE;
}

static const char *
pg_error(void *arg)
{
	return ((struct pg_store *)arg)->err;
}

/* n parameters as the binary protocol sends them; -1 (s->err set) if one cannot be. */
struct pg_args {
	const char	*vals[MAX_ARGS];
	int		 lens[MAX_ARGS], fmts[MAX_ARGS];
	Oid		 types[MAX_ARGS];
	unsigned char	 ints[MAX_ARGS][8];
};

static int
args(struct pg_store *s, const struct bl_parm *a, int n, struct pg_args *g)
{
	int		 i, k;
	static const Oid oid[] = {
		[BL_P_INT] = OID_INT8, [BL_P_BOOL] = OID_BOOL,
		[BL_P_BLOB] = OID_BYTEA, [BL_P_TEXT] = OID_TEXT,
	};
	const char	**vals = g->vals;
	int		*lens = g->lens, *fmts = g->fmts;
	Oid		*types = g->types;
	unsigned char	(*ints)[8] = g->ints;

	if (n > MAX_ARGS) {
		snprintf(s->err, sizeof(s->err), "%d parameters, at most %d", n, MAX_ARGS);
		return -1;
	}
	for (i = 0; i < n; i++) {
		types[i] = oid[a[i].type];
		fmts[i] = 1;
		vals[i] = NULL;
		lens[i] = 0;
		if (a[i].null)
			continue;
		if (a[i].type == BL_P_INT || a[i].type == BL_P_BOOL) {
			uint64_t v = (uint64_t)a[i].i;
			lens[i] = a[i].type == BL_P_INT ? 8 : 1;
			for (k = lens[i] - 1; k >= 0; k--, v >>= 8)
				ints[i][k] = (unsigned char)(v & 0xff);
			vals[i] = (const char *)ints[i];
		} else {
			if (a[i].len > 0x7fffffff) {
				snprintf(s->err, sizeof(s->err), "parameter %d: too long", i + 1);
				return -1;
			}
			vals[i] = a[i].len > 0 ? a[i].p : "";
			lens[i] = (int)a[i].len;
		}
	}
	return 0;
}

/*
 * A statement whose result nobody reads (bl_st_later(): the view count) is
 * kept, inside a transaction, and sent with the next statement or the
 * COMMIT in one libpq pipeline, one round trip. Under a row lock (a view of
 * one secret) that is one round trip fewer held; a failure of the kept
 * statement is the failure of the one it went with, and a ROLLBACK drops it
 * unsent. Kept: one at a time, at most two integer parameters.
 */
static int
keepable(const struct pg_store *s, const struct bl_parm *p, int n)
{
	int	 i;

	if (s->c == NULL || s->c->later != NULL || n > 2 ||
	    PQtransactionStatus(s->c->conn) != PQTRANS_INTRANS)
		return 0;
	for (i = 0; i < n; i++)
		if (p[i].type != BL_P_INT || p[i].null)
			return 0;
	return 1;
}

static int	 named(struct pg_store *, int, int, const struct pg_args *, char *, size_t);
static void	 mark_prepared(struct pg_store *, int, int, const struct pg_args *);

/*
 * In pipeline mode, sends statement key (text, n parameters) as run_text()
 * runs it: by name where it runs by name, prepared first (one result more in
 * *results) when it is not yet, which *prepare then says. 0, or -1.
 */
static int
send_text(struct pg_store *s, int key, const char *text, int n, const struct pg_args *g,
    int *results, int *prepare)
{
	PGconn	*conn = s->c->conn;
	char	 name[16];
	int	 how = named(s, key, n, g, name, sizeof(name));

	*prepare = how == 2;
	*results += how == 2 ? 2 : 1;
	if (how == 0)
		return PQsendQueryParams(conn, text, n, g->types, g->vals, g->lens, g->fmts,
		    1) == 1 ? 0 : -1;
	if (how == 2 && PQsendPrepare(conn, name, text, n, g->types) != 1)
		return -1;
	return PQsendQueryPrepared(conn, name, n, g->vals, g->lens, g->fmts, 1) == 1 ? 0 : -1;
}

/*
 * Sends the kept statement and then text (statement key, n parameters) in
 * one pipeline; the result of text in *out on success. The first failure is
 * returned (the ones after it are aborted by the server).
 */
static enum bl_err
pipelined(struct pg_store *s, int key, const char *text, const struct pg_args *g, int n,
    PGresult **out)
{
	PGconn		*conn = s->c->conn;
	struct pg_args	 lg;
	PGresult	*res, *bad = NULL;
	ExecStatusType	 st;
	enum bl_err	 e = BL_OK;
	int		 i, nres = 0, lkey = s->c->later_key, lprep = 0, prep = 0;

	*out = NULL;
	if (args(s, s->c->later_p, s->c->nlater, &lg) != 0) {
		s->c->later = NULL;
		return BL_ERR_INTERNAL;
	}
	if (PQenterPipelineMode(conn) != 1 ||
	    send_text(s, lkey, s->c->later, s->c->nlater, &lg, &nres, &lprep) != 0 ||
	    send_text(s, key, text, n, g, &nres, &prep) != 0 || PQpipelineSync(conn) != 1) {
		s->c->later = NULL;
		e = fail(s, NULL, "pipeline");
		PQexitPipelineMode(conn);
		return e;
	}
	s->c->later = NULL;
	/* nres results (text's last), each followed by NULL, then the sync. */
	for (i = 0; i < nres; i++) {
		while ((res = PQgetResult(conn)) != NULL) {
			st = PQresultStatus(res);
			if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && bad == NULL &&
			    st != PGRES_PIPELINE_ABORTED)
				bad = res;
			else if (i == nres - 1 && bad == NULL && *out == NULL)
				*out = res;
			else
				PQclear(res);
		}
	}
	if (bad == NULL && lprep)
		mark_prepared(s, lkey, s->c->nlater, &lg);
	if (bad == NULL && prep)
		mark_prepared(s, key, n, g);
	while ((res = PQgetResult(conn)) != NULL && PQresultStatus(res) != PGRES_PIPELINE_SYNC)
		PQclear(res);
	PQclear(res);
	PQexitPipelineMode(conn);
	if (bad != NULL || *out == NULL) {
		e = fail(s, bad, "query");
		PQclear(bad);
		PQclear(*out);
		*out = NULL;
		return strcmp(s->sqlstate, "23505") == 0 ? BL_ERR_EXISTS : e;
	}
	return BL_OK;
}

/*
 * How statement key (see run_text()) with these parameters runs on s's
 * connection: 0 unnamed, 1 by its name (in name), 2 by its name once it is
 * prepared.
 */
static int
named(struct pg_store *s, int key, int n, const struct pg_args *g, char *name, size_t len)
{
	struct pg_conn	*c = s->c;

	if (key < 0 || !persistent || !c->direct ||
	    (c->prepared[key] && memcmp(c->prep_types[key], g->types, (size_t)n * sizeof(Oid))))
		return 0;
	snprintf(name, len, "bl_%d", key);
	return c->prepared[key] ? 1 : 2;
}

/* Records statement key as prepared on s's session, with its parameters' types. */
static void
mark_prepared(struct pg_store *s, int key, int n, const struct pg_args *g)
{
	s->c->prepared[key] = 1;
	memcpy(s->c->prep_types[key], g->types, (size_t)n * sizeof(Oid));
}

/*
 * Runs text once. On a connection kept from one request to the next
 * (FastCGI) and made straight to the server, statement key (a bl_stmt, or
 * ST__MAX + a ctr_stmt; -1 for none) is prepared under a name the first time
 * and then only bound and run: the server parses and plans it once per
 * session instead of on every request (25-30 % more FastCGI requests a second
 * in `make bench BACKEND=postgres`, docs/PERFORMANCE.md). Not through a
 * pooler: PgBouncer in transaction mode hands each transaction to whichever
 * server connection is free, where the name is unknown (session()).
 */
static PGresult *
run_text(struct pg_store *s, int key, const char *text, int n, const struct pg_args *g)
{
	struct pg_conn	*c = s->c;
	PGresult	*res;
	char		 name[16];
	int		 how = named(s, key, n, g, name, sizeof(name));

	if (how == 0)
		return PQexecParams(c->conn, text, n, g->types, g->vals, g->lens, g->fmts, 1);
	if (how == 2) {
		res = PQprepare(c->conn, name, text, n, g->types);
		if (res == NULL || PQresultStatus(res) != PGRES_COMMAND_OK)
			return res;
		PQclear(res);
		mark_prepared(s, key, n, g);
	}
	return PQexecPrepared(c->conn, name, n, g->vals, g->lens, g->fmts, 1);
}

/*
 * Runs sql (statement key, see run_text()) with n parameters, each converted
 * for the binary protocol (a value that cannot be sent is an error); results
 * come back in binary. On success returns BL_OK and the result in *out (the
 * caller clears it). A unique key already taken is BL_ERR_EXISTS.
 */
static enum bl_err
q(struct pg_store *s, int key, const char *text, const struct bl_parm *a, int n,
    PGresult **out)
{
	struct pg_args	 g;
	PGresult	*res;
	ExecStatusType	 st;
	enum bl_err	 e;

	*out = NULL;
	if (args(s, a, n, &g) != 0)
		return BL_ERR_INTERNAL;
	if ((e = connect_db(s)) != BL_OK)
		return e;
	s->c->warned = 0;
	if (s->c->later != NULL) {
		if ((e = pipelined(s, key, text, &g, n, out)) == BL_OK &&
		    (e = committed(s)) != BL_OK) {
			PQclear(*out);
			*out = NULL;
		}
		return e;
	}
	res = run_text(s, key, text, n, &g);
	st = res != NULL ? PQresultStatus(res) : PGRES_FATAL_ERROR;
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && reconnected(s)) {
		PQclear(res);
		res = run_text(s, key, text, n, &g);
		st = res != NULL ? PQresultStatus(res) : PGRES_FATAL_ERROR;
	}
	s->c->kept = 0;
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
		e = fail(s, res, "query");
		PQclear(res);
		return strcmp(s->sqlstate, "23505") == 0 ? BL_ERR_EXISTS : e;
	}
	if ((e = committed(s)) != BL_OK) {
		PQclear(res);
		return e;
	}
	*out = res;
	return BL_OK;
}

/* Runs a statement with no parameters (BEGIN, COMMIT, ...) in the simple protocol. */
static enum bl_err
exec(struct pg_store *s, const char *text)
{
	PGresult	*res;
	ExecStatusType	 st;
	enum bl_err	 e;

	if ((e = connect_db(s)) != BL_OK)
		return e;
	if (s->c->later != NULL) {
		/* one statement in the extended protocol: BEGIN, COMMIT, SET ... */
		if ((e = q(s, -1, text, NULL, 0, &res)) == BL_OK)
			PQclear(res);
		return e;
	}
	s->c->warned = 0;
	res = PQexec(s->c->conn, text);
	st = res != NULL ? PQresultStatus(res) : PGRES_FATAL_ERROR;
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && reconnected(s)) {
		PQclear(res);
		res = PQexec(s->c->conn, text);
		st = res != NULL ? PQresultStatus(res) : PGRES_FATAL_ERROR;
	}
	s->c->kept = 0;
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
		e = fail(s, res, text);
	else
		e = committed(s);
	PQclear(res);
	return e;
}

static enum bl_err
pg_begin(void *arg)
{
	return exec(arg, "BEGIN");
}

static void
pg_rollback(void *arg)
{
	struct pg_store	*s = arg;

	if (s->c != NULL) {
		s->c->later = NULL;		/* never sent */
		PQclear(PQexec(s->c->conn, "ROLLBACK"));
	}
}

static enum bl_err
pg_commit(void *arg)
{
	enum bl_err	 e;

	if ((e = exec(arg, "COMMIT")) != BL_OK)
		pg_rollback(arg);
	return e;
}

/* Runs statement id (lib/store.h), calling fn for each row of its result. */
static enum bl_err
pg_run(void *arg, enum bl_stmt id, const char *sql, const struct bl_parm *p, int n,
    bl_row_fn fn, void *fnarg, int64_t *changes)
{
	struct pg_store	*s = arg;
	struct bl_row	 row;
	PGresult	*res;
	enum bl_err	 e;
	int		 k;

	if ((e = q(s, (int)id, sql, p, n, &res)) != BL_OK)
		return e;
	row.ops = &bl_pg_ops;
	row.h = res;
	for (row.i = 0; fn != NULL && row.i < PQntuples(res); row.i++)
		if ((k = fn(fnarg, &row)) != 0) {
			e = k < 0 ? BL_ERR_INTERNAL : BL_OK;
			break;
		}
	if (changes != NULL)
		*changes = strtoll(PQcmdTuples(res), NULL, 10);
	PQclear(res);
	return e;
}

/* Runs statement id, whose result nobody reads: kept for the next one if keepable(). */
static enum bl_err
pg_run_later(void *arg, enum bl_stmt id, const char *sql, const struct bl_parm *p, int n)
{
	struct pg_store	*s = arg;

	if (!keepable(s, p, n))
		return pg_run(arg, id, sql, p, n, NULL, NULL, NULL);
	s->c->later = sql;
	s->c->later_key = (int)id;
	s->c->nlater = n;
	memcpy(s->c->later_p, p, (size_t)n * sizeof(*p));
	return BL_OK;
}

/* An integer column of any width (bool, int2, int4, int8) in binary; null if NULL. */
static int64_t
pg_col_int(const struct bl_row *row, int col, int64_t null)
{
	const PGresult		*res = row->h;
	const unsigned char	*p;
	uint64_t		 v = 0;
	int			 n, i;

	if (PQgetisnull(res, row->i, col))
		return null;
	p = (const unsigned char *)PQgetvalue(res, row->i, col);
	n = PQgetlength(res, row->i, col);
	if (n < 1 || n > 8)
		return null;
	for (i = 0; i < n; i++)
		v = v << 8 | p[i];
	if (n < 8 && (p[0] & 0x80))
		v |= ~(uint64_t)0 << (n * 8);	/* sign-extend int2 and int4 */
	return (int64_t)v;
}

static int
pg_col_blob(const struct bl_row *row, int col, const void **p, size_t *len)
{
	const PGresult	*res = row->h;

	*p = NULL;
	*len = 0;
	if (!PQgetisnull(res, row->i, col)) {
		*p = PQgetvalue(res, row->i, col);
		*len = (size_t)PQgetlength(res, row->i, col);
	}
	return 0;
}

/*
 * The version of the schema (0 when there is none yet), with the session's
 * settings made in the same round trip (a lock wait longer than 5 s is
 * STORE_BUSY, as SQLite's busy timeout) and whether the connection reaches
 * the server itself, not a pooler (run_text()).
 */
static enum bl_err
session(struct pg_store *s, int *version)
{
	PGresult	*res;
	const char	*state;
	enum bl_err	 e = BL_OK;

	*version = 0;
	/* A new session: nothing prepared on it yet. */
	s->c->direct = 0;
	memset(s->c->prepared, 0, sizeof(s->c->prepared));
	res = PQexec(s->c->conn, "SET lock_timeout = '5s'; "
	    "SELECT version, pg_backend_pid() FROM burnlink_schema");
	if (res != NULL && PQresultStatus(res) == PGRES_TUPLES_OK) {
		if (PQntuples(res) == 1) {
			*version = atoi(PQgetvalue(res, 0, 0));
			/*
			 * libpq learnt a process id when it connected; a pooler
			 * sends one of its own, never the server's.
			 */
			s->c->direct = atoi(PQgetvalue(res, 0, 1)) == PQbackendPID(s->c->conn);
		}
	} else if ((state = res != NULL ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL) ==
	    NULL || strcmp(state, "42P01") != 0)	/* 42P01: no such table yet */
		e = fail(s, res, "schema version");
	PQclear(res);
	return e;
}

/*
 * Applies schema-pg.sql in one transaction. The advisory lock makes the
 * first requests of several hosts take turns; the file is idempotent, so the
 * ones that come second change nothing. A role without CREATE (the
 * least-privilege role of INSTALL) cannot do this: the owner runs cron/cleanup
 * or burnlink-admin once first.
 */
static enum bl_err
apply_schema(struct pg_store *s)
{
	enum bl_err	 e;

	/*
	 * SET LOCAL: the file's IF NOT EXISTS steps raise NOTICEs ("already
	 * exists, skipping") that libpq would print to the web server's error
	 * log; warnings and errors still reach the program.
	 */
	if ((e = exec(s, "BEGIN; SET LOCAL client_min_messages = warning; "
	    "SELECT pg_advisory_xact_lock(" SCHEMA_LOCK ")")) != BL_OK)
		return e;
	if ((e = exec(s, bl_schema_pg_sql)) != BL_OK ||
	    (e = exec(s, "INSERT INTO burnlink_schema (id, version) VALUES (1, "
	    BL_STR(BL_SCHEMA_VERSION) ") ON CONFLICT (id) DO UPDATE SET version = "
	    "excluded.version")) != BL_OK) {
		if (strcmp(s->sqlstate, "42501") == 0)
			snprintf(s->err, sizeof(s->err), "the database has no burnlink "
			    "schema (version %d) and this role may not create it: run "
			    "cron/cleanup once as the database's owner", BL_SCHEMA_VERSION);
		pg_rollback(s);
		return e;
	}
	return pg_commit(s);
}

/*
 * The reason a connection failed, on one line in s->err. libpq says why each
 * host of a multi-host BURNLINK_DB failed, a line each ("Connection refused",
 * "session is read-only": a standby, INSTALL), with indented hints below
 * them; every host's line is kept, the hints left out.
 */
static void
connect_error(struct pg_store *s, const char *m)
{
	size_t	 n, used;
	int	 w;

	used = (size_t)snprintf(s->err, sizeof(s->err), "connect");
	for (; *m != '\0' && used < sizeof(s->err); m += n + (m[n] == '\n')) {
		n = strcspn(m, "\n");
		if (n == 0 || *m == '\t' || *m == ' ')
			continue;
		w = snprintf(s->err + used, sizeof(s->err) - used, "%s%.*s",
		    used == 7 ? ": " : "; ", (int)n, m);
		used += w > 0 ? (size_t)w : sizeof(s->err);
	}
}

/*
 * Connects s to the database BURNLINK_DB names, or to the process's open
 * connection when that is to the same database: a postgresql:// URI, or
 * "postgres:" and a keyword/value conninfo. Connection parameters it does not
 * set default to a 5-second connect timeout (a host, INSTALL), no GSSAPI
 * encryption (which would probe for Kerberos credentials on every TCP
 * connection), and bounds on a TCP connection whose server vanished without
 * a word (powered off, cut off: a failover): what is sent and not
 * acknowledged for 10 s, or an answer awaited over a link that stopped
 * answering keepalive probes (after 10 s idle, every 5 s), ends the
 * connection, which a request then reports as STORE_UNAVAILABLE, instead of
 * the kernel's retransmissions holding it for some 15 minutes (a FastCGI
 * responder's kept connection, and every request queued behind it). A new
 * connection applies the schema if the database has none yet.
 */
static enum bl_err
connect_db(struct pg_store *s)
{
	const char	*kw[] = { "connect_timeout", "gssencmode", "tcp_user_timeout",
			    "keepalives_idle", "keepalives_interval",
			    "fallback_application_name", "dbname", NULL };
	const char	*val[] = { "5", "disable", "10000", "10", "5", "burnlink", NULL, NULL };
	const char	*conninfo = s->conninfo;
	struct pg_conn	*c;
	enum bl_err	 e;
	int		 version;

	if (s->c != NULL)
		return BL_OK;
	s->unreachable = 0;
	if (shared != NULL && strcmp(shared->conninfo, s->conninfo) == 0) {
		shared->users++;
		s->c = shared;
		return BL_OK;
	}
	if (strncmp(conninfo, "postgres:", 9) == 0 && strncmp(conninfo, "postgres://", 11) != 0)
		conninfo += 9;
	val[6] = conninfo;
	if ((c = calloc(1, sizeof(*c))) == NULL || (c->conninfo = strdup(s->conninfo)) == NULL) {
		free(c);
		snprintf(s->err, sizeof(s->err), "out of memory");
		return BL_ERR_INTERNAL;
	}
	c->users = 1;
	s->c = c;
	if ((c->conn = PQconnectdbParams(kw, val, 1)) == NULL) {
		snprintf(s->err, sizeof(s->err), "cannot allocate a PostgreSQL connection");
		e = BL_ERR_INTERNAL;
		goto fail;
	}
	if (PQstatus(c->conn) != CONNECTION_OK) {
		connect_error(s, PQerrorMessage(c->conn));
		e = BL_ERR_STORE_UNAVAILABLE;
		goto fail;
	}
	PQsetNoticeReceiver(c->conn, on_notice, c);
	if ((e = session(s, &version)) != BL_OK)
		goto fail;
	/* Never served by programs older than it (a rollback): docs/API.md, Upgrades. */
	if (version > BL_SCHEMA_VERSION) {
		bl_schema_newer(s->err, sizeof(s->err), version, BL_SCHEMA_VERSION);
		e = BL_ERR_SCHEMA_TOO_NEW;
		goto fail;
	}
	if (version < BL_SCHEMA_VERSION &&
	    ((e = apply_schema(s)) != BL_OK || (e = session(s, &version)) != BL_OK))
		goto fail;
	if (shared == NULL)
		shared = c;
	return BL_OK;
fail:
	s->unreachable = c->conn != NULL && PQstatus(c->conn) != CONNECTION_OK;
	PQfinish(c->conn);
	free(c->conninfo);
	free(c);
	s->c = NULL;
	return e;
}

/* A handle on the database of cfg, not connected yet. */
static struct pg_store *
handle(const struct bl_config *cfg)
{
	struct pg_store	*s;

	if ((s = calloc(1, sizeof(*s))) == NULL)
		return NULL;
	if ((s->conninfo = strdup(cfg->db_path)) == NULL) {
		free(s);
		return NULL;
	}
	return s;
}

static void	 pg_close(void *);

/* Opens the store: connects now, so that a database out of reach is reported here. */
static enum bl_err
pg_open(void **out, const struct bl_config *cfg, char *err, size_t errlen)
{
	struct pg_store	*s;
	enum bl_err	 e;

	if ((*out = s = handle(cfg)) == NULL)
		return BL_ERR_INTERNAL;
	if ((e = connect_db(s)) != BL_OK) {
		snprintf(err, errlen, "%s", s->err);
		pg_close(s);
		*out = NULL;
	}
	return e;
}

static void
pg_close(void *arg)
{
	struct pg_store	*s = arg;

	if (s == NULL)
		return;
	if (s->c != NULL && --s->c->users == 0) {
		PQfinish(s->c->conn);
		if (shared == s->c)
			shared = NULL;
		free(s->c->conninfo);
		free(s->c);
	}
	free(s->conninfo);
	free(s);
}

/*
 * Readies a handle kept for the next request (FastCGI): 0 if it can be kept,
 * -1 if its connection is in a transaction (it should never be) or was lost
 * (the database restarted): the caller closes it, and the next request
 * connects anew.
 */
static int
pg_idle(void *arg)
{
	struct pg_store	*s = arg;

	s->err[0] = '\0';
	s->sqlstate[0] = '\0';
	if (s->c == NULL)
		return 0;
	if (PQstatus(s->c->conn) != CONNECTION_OK ||
	    PQtransactionStatus(s->c->conn) != PQTRANS_IDLE)
		return -1;
	s->c->kept = 1;
	return 0;
}

/*
 * 1 if the first statement of a request failed because the connection kept
 * from an earlier request was gone (the database restarted meanwhile) and a
 * new one is made: the caller runs the statement again. The server ended the
 * old connection while it was idle, so the statement never ran there. A
 * connection lost in the middle of a request is never retried.
 */
static int
reconnected(struct pg_store *s)
{
	int	 version;

	if (!s->c->kept || PQstatus(s->c->conn) == CONNECTION_OK)
		return 0;
	s->c->kept = 0;
	PQreset(s->c->conn);
	return PQstatus(s->c->conn) == CONNECTION_OK && session(s, &version) == BL_OK;
}

/*
 * Group commit is for SQLite (lib/fcgi.c): PostgreSQL already flushes the WAL
 * of concurrent commits together, and each transaction here commits as it
 * ends. Deleted content is reclaimed by autovacuum (INSTALL): nothing to purge.
 */
static void
pg_persistent(int on)
{
	persistent = on;
}

const struct bl_store_ops bl_pg_ops = {
	dialect, pg_open, pg_close, pg_idle, pg_error, pg_persistent, pg_begin, pg_commit,
	pg_rollback, pg_run, pg_run_later, pg_col_int, pg_col_blob, NULL, NULL, NULL, NULL, NULL, NULL,
	/* content stored as it comes: docs/SECURITY.md, "Gone for good" */
	NULL, NULL, NULL, NULL, NULL
};

/* The rate limiter's handle: it connects on its first count (errors then are the limiter's). */
static enum bl_err
ctr_open(void **out, const struct bl_config *cfg)
{
	return (*out = handle(cfg)) == NULL ? BL_ERR_INTERNAL : BL_OK;
}

/*
 * Runs a counters statement: *count is the one integer it returns (0 if no
 * row), or for CT_CLEAN the rows it removed. CT_ADD must return its row. A
 * database that cannot be reached, or a connection lost (a failover, INSTALL)
 * is STORE_UNAVAILABLE, the failure of the whole database that the request
 * would meet next, and short (Retry-After: 5); any other failure is the
 * limiter's, RATE_LIMIT_UNAVAILABLE.
 */
static enum bl_err
ctr_run(struct pg_store *s, enum ctr_stmt id, const struct bl_parm *p, int n, int64_t *count)
{
	struct bl_row	 row = { &bl_pg_ops, NULL, 0 };
	PGresult	*res;
	enum bl_err	 e = BL_OK;

	if (count != NULL)
		*count = 0;
	/* A database newer than the programs is that, not a limiter out of order. */
	if ((e = q(s, ST__MAX + (int)id, ctr_sql[id], p, n, &res)) != BL_OK)
		return e == BL_ERR_SCHEMA_TOO_NEW || (e == BL_ERR_STORE_UNAVAILABLE &&
		    (s->c == NULL ? s->unreachable : PQstatus(s->c->conn) != CONNECTION_OK)) ?
		    e : BL_ERR_RATE_LIMIT_UNAVAILABLE;
	row.h = res;
	if (id == CT_CLEAN)
		*count = strtoll(PQcmdTuples(res), NULL, 10);
	else if (count != NULL && PQntuples(res) == 1)
		*count = pg_col_int(&row, 0, 0);
	else if (id == CT_ADD) {
		snprintf(s->err, sizeof(s->err), "count: no row returned");
		e = BL_ERR_RATE_LIMIT_UNAVAILABLE;
	}
	PQclear(res);
	return e;
}

/*
 * Adds one to the counter of bucket in the window starting at window_start
 * (Unix seconds), kept until expires; returns the new count in *count. The
 * upsert takes the counter row's lock, so web servers counting at once each
 * get their own number.
 */
static enum bl_err
ctr_add(void *arg, const unsigned char bucket[BL_HASH_BYTES], int64_t window_start,
    int64_t expires, int64_t *count)
{
	return ctr_run(arg, CT_ADD, PARMS(P_BLOB(bucket, BL_HASH_BYTES), P_INT(window_start),
	    P_INT(expires)), count);
}

/* Reads the count of bucket in the window starting at window_start (0 if none). */
static enum bl_err
ctr_get(void *arg, const unsigned char bucket[BL_HASH_BYTES], int64_t window_start,
    int64_t *count)
{
	return ctr_run(arg, CT_GET, PARMS(P_BLOB(bucket, BL_HASH_BYTES), P_INT(window_start)),
	    count);
}

/* Sets the count of bucket in a window (an operator's correction); 0 removes it. */
static enum bl_err
ctr_set(void *arg, const unsigned char bucket[BL_HASH_BYTES], int64_t window_start,
    int64_t expires, int64_t count)
{
	if (count > 0)
		return ctr_run(arg, CT_SET, PARMS(P_BLOB(bucket, BL_HASH_BYTES),
		    P_INT(window_start), P_INT(expires), P_INT(count)), NULL);
	return ctr_run(arg, CT_DEL, PARMS(P_BLOB(bucket, BL_HASH_BYTES), P_INT(window_start)),
	    NULL);
}

/* Prunes the ended windows; their number in *removed. */
static enum bl_err
ctr_clean(void *arg, int64_t now, int64_t *removed)
{
	return ctr_run(arg, CT_CLEAN, PARMS(P_INT(now)), removed);
}

/*
 * The bucket of metrics total i: "blmetric", zeros, i in the last two bytes
 * (no HMAC of a window's bucket is expected to be that), in window 0.
 */
static void
metric_bucket(unsigned i, unsigned char b[BL_HASH_BYTES])
{
	memset(b, 0, BL_HASH_BYTES);
	memcpy(b, "blmetric", 8);
	b[BL_HASH_BYTES - 2] = (unsigned char)(i >> 8);
	b[BL_HASH_BYTES - 1] = (unsigned char)i;
}

/*
 * Adds by to each of the n metrics totals in slots (distinct): an upsert per
 * two, never pruned (their expiry never comes).
 */
static enum bl_err
ctr_bump(void *arg, const unsigned *slots, int n, int64_t by)
{
	unsigned char	 a[BL_HASH_BYTES], b[BL_HASH_BYTES];
	enum bl_err	 e = BL_OK;
	int		 i;

	for (i = 0; i < n && e == BL_OK; i += 2) {
		metric_bucket(slots[i], a);
		if (i + 1 == n) {
			e = ctr_run(arg, CT_BUMP, PARMS(P_BLOB(a, BL_HASH_BYTES), P_INT(by)), NULL);
			break;
		}
		metric_bucket(slots[i + 1], b);
		e = ctr_run(arg, CT_BUMP2, PARMS(P_BLOB(a, BL_HASH_BYTES), P_BLOB(b, BL_HASH_BYTES),
		    P_INT(by)), NULL);
	}
	return e;
}

/* Reads every metrics total (the rows of window 0). */
static enum bl_err
ctr_totals(void *arg, int64_t out[BL_METRIC_SLOTS])
{
	struct pg_store	*s = arg;
	struct bl_row	 row = { &bl_pg_ops, NULL, 0 };
	unsigned char	 want[BL_HASH_BYTES];
	const void	*p;
	PGresult	*res;
	size_t		 len;
	unsigned	 i;
	int		 n;

	memset(out, 0, sizeof(int64_t) * BL_METRIC_SLOTS);
	if (q(s, ST__MAX + CT_TOTALS, ctr_sql[CT_TOTALS], NULL, 0, &res) != BL_OK)
		return BL_ERR_RATE_LIMIT_UNAVAILABLE;
	row.h = res;
	metric_bucket(0, want);
	for (n = 0; n < PQntuples(res); n++) {
		row.i = n;
		if (pg_col_blob(&row, 0, &p, &len) != 0 || p == NULL || len != BL_HASH_BYTES ||
		    memcmp(p, want, BL_HASH_BYTES - 2) != 0)
			continue;
		i = (unsigned)((const unsigned char *)p)[BL_HASH_BYTES - 2] << 8 |
		    ((const unsigned char *)p)[BL_HASH_BYTES - 1];
		if (i < BL_METRIC_SLOTS)
			out[i] = pg_col_int(&row, 1, 0);
	}
	PQclear(res);
	return BL_OK;
}

/* The live windows; a table has no fixed capacity (-1). */
static enum bl_err
ctr_occupancy(void *arg, int64_t now, int64_t *used, int64_t *capacity)
{
	*capacity = -1;
	return ctr_run(arg, CT_LIVE, PARMS(P_INT(now)), used);
}

const struct bl_counter_ops bl_counters_pg_ops = {
	ctr_open, ctr_add, ctr_get, ctr_set, ctr_clean, ctr_bump, ctr_totals, ctr_occupancy,
	pg_idle, pg_error, pg_close
};
#endif /* BL_HAVE_PG */
