/* store_pg.c: the storage unit over PostgreSQL (libpq); the only place that speaks its SQL. */
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

#define SCHEMA_VERSION	3		/* the version schema-pg.sql writes */
#define SCHEMA_LOCK	"7809451926"	/* pg_advisory_xact_lock key: applying the schema */
#define MAX_ARGS	11

/* Type OIDs of the parameters (catalog/pg_type_d.h is a server header). */
#define OID_BOOL	16
#define OID_BYTEA	17
#define OID_INT8	20
#define OID_TEXT	25

enum stmt {
	ST_INSERT_SECRET,
	ST_INSERT_FILE,
	ST_LOOKUP,
	ST_LOCK,
	ST_SELECT_FILES,
	ST_DELETE_FILES,
	ST_SET_STATE,
	ST_VIEW,
	ST_CLEAN_ROWS,
	ST_COUNT,
	ST_CLEAN_COUNTERS,
	ST_COUNTER_GET,
	ST_COUNTER_SET,
	ST_COUNTER_DEL,
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
	ST_SECRET_GET,
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

/* Every statement, bound with $n only; each runs as one unnamed extended query. */
static const char *const stmts[ST__MAX] = {
	[ST_INSERT_SECRET] = "INSERT INTO secrets (secret_hash, receipt_hash, "
	    "created_at, expires_at, max_views, deletable, pass_hash, server_side, "
	    "account_id, text_ct, text_iv) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11) "
	    "RETURNING id",
	[ST_INSERT_FILE] = "INSERT INTO attachments (secret_id, idx, name, name_iv, "
	    "mime, mime_iv, data, data_iv) VALUES ($1,$2,$3,$4,$5,$6,$7,$8)",
	[ST_LOOKUP] = "SELECT " ROW_COLUMNS ", receipt_hash = $1 FROM secrets "
	    "WHERE secret_hash = $1 OR receipt_hash = $1",
	[ST_LOCK] = "SELECT " ROW_COLUMNS ", false, text_ct, text_iv FROM secrets "
	    "WHERE id = $1 FOR UPDATE",
	[ST_SELECT_FILES] = "SELECT name, name_iv, mime, mime_iv, data, data_iv "
	    "FROM attachments WHERE secret_id = $1 ORDER BY idx",
	[ST_DELETE_FILES] = "DELETE FROM attachments WHERE secret_id = $1",
	[ST_SET_STATE] = "UPDATE secrets SET state = $2, text_ct = NULL, "
	    "text_iv = NULL WHERE id = $1",
	[ST_VIEW] = "UPDATE secrets SET view_count = view_count + 1, "
	    "last_viewed_at = $2 WHERE id = $1",
	/* Rows another host's cleanup (or a request) holds are left for the next run. */
	[ST_CLEAN_ROWS] = "DELETE FROM secrets WHERE id IN (SELECT id FROM secrets "
	    "WHERE expires_at <= $1 FOR UPDATE SKIP LOCKED)",
	[ST_COUNT] = "INSERT INTO counters (bucket, window_start, expires, count) "
	    "VALUES ($1,$2,$3,1) ON CONFLICT (bucket, window_start) DO UPDATE SET "
	    "count = counters.count + 1 RETURNING count",
	[ST_CLEAN_COUNTERS] = "DELETE FROM counters WHERE expires <= $1",
	[ST_COUNTER_GET] = "SELECT count FROM counters WHERE bucket = $1 AND "
	    "window_start = $2",
	[ST_COUNTER_SET] = "INSERT INTO counters (bucket, window_start, expires, count) "
	    "VALUES ($1,$2,$3,$4) ON CONFLICT (bucket, window_start) DO UPDATE SET "
	    "count = excluded.count, expires = excluded.expires",
	[ST_COUNTER_DEL] = "DELETE FROM counters WHERE bucket = $1 AND window_start = $2",
	[ST_KEY_USED] = "UPDATE api_keys SET last_used_at = $2 WHERE id = $1",
	[ST_ACCOUNT_INSERT] = "INSERT INTO accounts (name, created_at) VALUES ($1,$2) "
	    "RETURNING id",
	[ST_ACCOUNT_GET] = "SELECT " ACCOUNT_COLUMNS " WHERE a.id = $1 OR a.name = $2",
	[ST_ACCOUNT_LIST] = "SELECT " ACCOUNT_COLUMNS " ORDER BY a.id",
	[ST_KEY_INSERT] = "INSERT INTO api_keys (account_id, key_hash, prefix, label, "
	    "created_at) VALUES ($1,$2,$3,$4,$5) RETURNING id",
	[ST_KEY_FIND] = "SELECT " KEY_COLUMNS " WHERE key_hash = $1",
	[ST_KEY_GET] = "SELECT " KEY_COLUMNS " WHERE id = $1",
	[ST_KEY_LIST] = "SELECT " KEY_COLUMNS " WHERE $1 = 0 OR account_id = $1 "
	    "ORDER BY id",
	[ST_KEY_REVOKE] = "UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND "
	    "revoked_at IS NULL",
	[ST_PASSWORD_GET] = "SELECT pass_hash FROM account_passwords WHERE account_id = $1",
	[ST_PASSWORD_SET] = "INSERT INTO account_passwords (account_id, pass_hash, "
	    "changed_at) VALUES ($1,$2,$3) ON CONFLICT (account_id) DO UPDATE SET "
	    "pass_hash = excluded.pass_hash, changed_at = excluded.changed_at",
	[ST_SESSION_INSERT] = "INSERT INTO sessions (session_hash, account_id, "
	    "created_at, seen_at) VALUES ($1,$2,$3,$3)",
	[ST_SESSION_FIND] = "SELECT id, account_id, created_at, seen_at FROM sessions "
	    "WHERE session_hash = $1",
	[ST_SESSION_TOUCH] = "UPDATE sessions SET seen_at = $2 WHERE id = $1",
	[ST_SESSION_DELETE] = "DELETE FROM sessions WHERE id = $1",
	[ST_SESSION_END_ALL] = "DELETE FROM sessions WHERE account_id = $1",
	[ST_SESSION_PRUNE] = "DELETE FROM sessions WHERE seen_at <= $1 OR created_at <= $2",
	[ST_SECRET_GET] = "SELECT " ROW_COLUMNS ", false FROM secrets WHERE id = $1",
	[ST_ACCOUNT_SECRETS] = "SELECT " ROW_COLUMNS ", false FROM secrets WHERE "
	    "account_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2",
	[ST_ACCOUNT_BY_EMAIL] = "SELECT " ACCOUNT_COLUMNS " WHERE lower(a.name) = $1 "
	    "ORDER BY a.id LIMIT 1",
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
};

static struct pg_conn	*shared;	/* this process's connection, if open */

struct pg_store {
	struct pg_conn	*c;		/* NULL until first use (counters) */
	char		*conninfo;	/* BURNLINK_DB as given */
	char		 err[256];
	char		 sqlstate[6];	/* of the last failure, "" if none */
};

static enum bl_err	 connect_db(struct pg_store *);
static int		 reconnected(struct pg_store *);

/* One parameter, sent in binary: an int8, a boolean, bytes (bytea or text), or NULL. */
struct arg {
	unsigned	 type;		/* OID_* */
	int		 null;
	int64_t		 i;
	const void	*p;
	size_t		 len;
};

#define I64(v)		{ OID_INT8, 0, (v), NULL, 0 }
#define BOOL(v)		{ OID_BOOL, 0, (v) != 0, NULL, 0 }
#define BYTES(b, n)	{ OID_BYTEA, 0, 0, (b), (n) }
#define TEXT(s)		{ OID_TEXT, 0, 0, (s), strlen(s) }
#define NUL(t)		{ (t), 1, 0, NULL, 0 }
/* An argument list and its length, for q(). */
#define ARGS(...)	(const struct arg[]){ __VA_ARGS__ }, \
	(int)(sizeof((const struct arg[]){ __VA_ARGS__ }) / sizeof(struct arg))

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

const char *
pg_store_error(const struct pg_store *s)
{
	return s->err;
}

/*
 * Runs statement id with n arguments; results come back in binary. On
 * success returns BL_OK and the result in *out (the caller clears it), or
 * clears it itself when out is NULL.
 */
static enum bl_err
q(struct pg_store *s, enum stmt id, const struct arg *a, int n, PGresult **out)
{
	const char	*vals[MAX_ARGS];
	int		 lens[MAX_ARGS], fmts[MAX_ARGS], i, k;
	Oid		 types[MAX_ARGS];
	unsigned char	 ints[MAX_ARGS][8];
	PGresult	*res;
	ExecStatusType	 st;
	enum bl_err	 e;

	if (out != NULL)
		*out = NULL;
	if (n > MAX_ARGS)
		return BL_ERR_INTERNAL;
	if ((e = connect_db(s)) != BL_OK)
		return e;
	for (i = 0; i < n; i++) {
		types[i] = a[i].type;
		fmts[i] = 1;
		vals[i] = NULL;
		lens[i] = 0;
		if (a[i].null)
			continue;
		if (a[i].type == OID_INT8 || a[i].type == OID_BOOL) {
			uint64_t v = (uint64_t)a[i].i;
			lens[i] = a[i].type == OID_INT8 ? 8 : 1;
			for (k = lens[i] - 1; k >= 0; k--, v >>= 8)
				ints[i][k] = (unsigned char)(v & 0xff);
			vals[i] = (const char *)ints[i];
		} else {
			if (a[i].len > 0x7fffffff)
				return BL_ERR_INTERNAL;
			vals[i] = a[i].len > 0 ? a[i].p : "";
			lens[i] = (int)a[i].len;
		}
	}
	res = PQexecParams(s->c->conn, stmts[id], n, types, vals, lens, fmts, 1);
	st = res != NULL ? PQresultStatus(res) : PGRES_FATAL_ERROR;
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && reconnected(s)) {
		PQclear(res);
		res = PQexecParams(s->c->conn, stmts[id], n, types, vals, lens, fmts, 1);
		st = res != NULL ? PQresultStatus(res) : PGRES_FATAL_ERROR;
	}
	s->c->kept = 0;
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
		e = fail(s, res, "query");
		PQclear(res);
		return e;
	}
	if (out != NULL)
		*out = res;
	else
		PQclear(res);
	return BL_OK;
}

/* Runs a statement with no parameters (BEGIN, COMMIT, ...) in the simple protocol. */
static enum bl_err
exec(struct pg_store *s, const char *sql)
{
	PGresult	*res;
	ExecStatusType	 st;
	enum bl_err	 e;

	if ((e = connect_db(s)) != BL_OK)
		return e;
	res = PQexec(s->c->conn, sql);
	st = res != NULL ? PQresultStatus(res) : PGRES_FATAL_ERROR;
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && reconnected(s)) {
		PQclear(res);
		res = PQexec(s->c->conn, sql);
		st = res != NULL ? PQresultStatus(res) : PGRES_FATAL_ERROR;
	}
	s->c->kept = 0;
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
		e = fail(s, res, sql);
	PQclear(res);
	return e;
}

static enum bl_err
begin(struct pg_store *s)
{
	return exec(s, "BEGIN");
}

/* Commits when e is BL_OK, else rolls back; returns e or the commit's failure. */
static enum bl_err
commit(struct pg_store *s, enum bl_err e)
{
	if (e == BL_OK && (e = exec(s, "COMMIT")) == BL_OK)
		return BL_OK;
	if (s->c != NULL)
		PQclear(PQexec(s->c->conn, "ROLLBACK"));
	return e;
}

/* An integer column of any width (bool, int2, int4, int8) in binary; dflt if NULL. */
static int64_t
col_int(const PGresult *res, int row, int col, int64_t dflt)
{
	const unsigned char	*p;
	uint64_t		 v = 0;
	int			 n, i;

	if (PQgetisnull(res, row, col))
		return dflt;
	p = (const unsigned char *)PQgetvalue(res, row, col);
	n = PQgetlength(res, row, col);
	if (n < 1 || n > 8)
		return dflt;
	for (i = 0; i < n; i++)
		v = v << 8 | p[i];
	if (n < 8 && (p[0] & 0x80))
		v |= ~(uint64_t)0 << (n * 8);	/* sign-extend int2 and int4 */
	return (int64_t)v;
}

/* Copies a text column into a fixed buffer of size n (truncating). */
static void
col_text(const PGresult *res, int row, int col, char *buf, size_t n)
{
	size_t	 len = (size_t)PQgetlength(res, row, col);

	if (len >= n)
		len = n - 1;
	memcpy(buf, PQgetvalue(res, row, col), len);
	buf[len] = '\0';
}

/* Copies a bytea column and the IV column after it into a new item. */
static int
col_item(const PGresult *res, int row, int col, struct bl_item *it)
{
	size_t	 n = (size_t)PQgetlength(res, row, col);

	if ((it->buf = malloc(n + 1)) == NULL)
		return -1;
	if (n > 0)
		memcpy(it->buf, PQgetvalue(res, row, col), n);
	it->buf[n] = '\0';
	it->len = n;
	it->enc = 0;
	if (!PQgetisnull(res, row, col + 1) && PQgetlength(res, row, col + 1) == BL_IV_BYTES) {
		memcpy(it->iv, PQgetvalue(res, row, col + 1), BL_IV_BYTES);
		it->enc = 1;
	}
	return 0;
}

/* Reads a secret row (ROW_COLUMNS and the by-receipt flag). */
static void
read_row(const PGresult *res, int row, struct bl_secret *r)
{
	memset(r, 0, sizeof(*r));
	r->id = col_int(res, row, 0, 0);
	r->state = (enum bl_state)col_int(res, row, 1, 0);
	r->created_ms = col_int(res, row, 2, 0);
	r->expires_ms = col_int(res, row, 3, 0);
	r->max_views = col_int(res, row, 4, -1);
	r->view_count = col_int(res, row, 5, 0);
	r->last_viewed_ms = col_int(res, row, 6, -1);
	r->deletable = (int)col_int(res, row, 7, 1);
	if (!PQgetisnull(res, row, 8) && PQgetlength(res, row, 8) == BL_PASSHASH_BYTES) {
		r->has_pass = 1;
		memcpy(r->pass_hash, PQgetvalue(res, row, 8), BL_PASSHASH_BYTES);
	}
	r->account_id = col_int(res, row, 9, 0);
	r->by_receipt = (int)col_int(res, row, 10, 0);
}

/*
 * The version of the schema (0 when there is none yet), with the session's
 * settings made in the same round trip: a lock wait longer than 5 s is
 * STORE_BUSY, as SQLite's busy timeout.
 */
static enum bl_err
session(struct pg_store *s, int *version)
{
	PGresult	*res;
	const char	*state;
	enum bl_err	 e = BL_OK;

	*version = 0;
	res = PQexec(s->c->conn, "SET lock_timeout = '5s'; SELECT version FROM burnlink_schema");
	if (res != NULL && PQresultStatus(res) == PGRES_TUPLES_OK) {
		if (PQntuples(res) == 1)
			*version = atoi(PQgetvalue(res, 0, 0));
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

	if ((e = exec(s, "BEGIN; SELECT pg_advisory_xact_lock(" SCHEMA_LOCK ")")) != BL_OK)
		return e;
	if ((e = exec(s, bl_schema_pg_sql)) != BL_OK) {
		if (strcmp(s->sqlstate, "42501") == 0)
			snprintf(s->err, sizeof(s->err), "the database has no burnlink "
			    "schema (version %d) and this role may not create it: run "
			    "cron/cleanup once as the database's owner", SCHEMA_VERSION);
		return commit(s, e);
	}
	return commit(s, BL_OK);
}

/*
 * Connects s to the database BURNLINK_DB names, or to the process's open
 * connection when that is to the same database: a postgresql:// URI, or
 * "postgres:" and a keyword/value conninfo. Connection parameters it does not
 * set default to a 5-second connect timeout and no GSSAPI encryption (which
 * would probe for Kerberos credentials on every TCP connection). A new
 * connection applies the schema if the database has none yet.
 */
static enum bl_err
connect_db(struct pg_store *s)
{
	const char	*kw[] = { "connect_timeout", "gssencmode",
			    "fallback_application_name", "dbname", NULL };
	const char	*val[] = { "5", "disable", "burnlink", NULL, NULL };
	const char	*conninfo = s->conninfo, *m;
	struct pg_conn	*c;
	enum bl_err	 e;
	int		 version;

	if (s->c != NULL)
		return BL_OK;
	if (shared != NULL && strcmp(shared->conninfo, s->conninfo) == 0) {
		shared->users++;
		s->c = shared;
		return BL_OK;
	}
	if (strncmp(conninfo, "postgres:", 9) == 0 && strncmp(conninfo, "postgres://", 11) != 0)
		conninfo += 9;
	val[3] = conninfo;
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
		m = PQerrorMessage(c->conn);
		snprintf(s->err, sizeof(s->err), "connect: %.*s", (int)strcspn(m, "\n"), m);
		e = BL_ERR_STORE_UNAVAILABLE;
		goto fail;
	}
	if ((e = session(s, &version)) != BL_OK)
		goto fail;
	if (version < SCHEMA_VERSION &&
	    ((e = apply_schema(s)) != BL_OK || (e = session(s, &version)) != BL_OK))
		goto fail;
	if (shared == NULL)
		shared = c;
	return BL_OK;
fail:
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

/* Opens the store: connects now, so that a database out of reach is reported here. */
enum bl_err
pg_store_open(struct pg_store **out, const struct bl_config *cfg, char *err, size_t errlen)
{
	struct pg_store	*s;
	enum bl_err	 e;

	if ((*out = s = handle(cfg)) == NULL)
		return BL_ERR_INTERNAL;
	if ((e = connect_db(s)) != BL_OK) {
		snprintf(err, errlen, "%s", s->err);
		pg_store_close(s);
		*out = NULL;
	}
	return e;
}

/* The rate limiter's handle: it connects on its first count (errors then are the limiter's). */
enum bl_err
pg_store_open_counters(struct pg_store **out, const struct bl_config *cfg)
{
	return (*out = handle(cfg)) == NULL ? BL_ERR_INTERNAL : BL_OK;
}

void
pg_store_close(struct pg_store *s)
{
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
int
pg_store_idle(struct pg_store *s)
{
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
 * Group commit is for SQLite (lib/fcgi.c): PostgreSQL already flushes the WAL
 * of concurrent commits together, and each transaction here commits as it ends.
 */
void
pg_store_batch(struct pg_store *s)
{
	(void)s;
}

void
pg_store_batch_flush(struct pg_store *s)
{
	(void)s;
}

enum bl_err
pg_store_batch_commit(struct pg_store *s)
{
	(void)s;
	return BL_OK;
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

/* Stores a new secret and its attachments in one transaction. */
enum bl_err
pg_store_insert(struct pg_store *s, const struct bl_new_secret *n)
{
	const struct bl_content	*c = n->content;
	const struct bl_file	*f;
	PGresult		*res = NULL;
	enum bl_err		 e;
	int64_t			 id;
	size_t			 i;

	if ((e = begin(s)) != BL_OK)
		return e;
	{
		const struct arg a[] = {
			BYTES(n->secret_hash, BL_HASH_BYTES),
			BYTES(n->receipt_hash, BL_HASH_BYTES),
			I64(n->created_ms),
			I64(n->expires_ms),
			I64(n->max_views),
			BOOL(n->deletable),
			BYTES(n->pass_hash, BL_PASSHASH_BYTES),
			BOOL(n->server_side),
			I64(n->account_id),
			BYTES(c->text.buf, c->text.len),
			BYTES(c->text.iv, BL_IV_BYTES),
		};
		struct arg	 b[MAX_ARGS];

		memcpy(b, a, sizeof(a));
		b[4].null = n->max_views < 0;
		b[6].null = !n->has_pass;
		b[8].null = n->account_id <= 0;
		b[9].null = !c->has_text;
		b[10].null = !c->has_text || !c->text.enc;
		if ((e = q(s, ST_INSERT_SECRET, b, 11, &res)) != BL_OK)
			goto out;
	}
	id = col_int(res, 0, 0, 0);
	PQclear(res);
	for (i = 0; i < c->nfiles; i++) {
		struct arg	 b[8] = {
			I64(id), I64((int64_t)i),
			BYTES(NULL, 0), BYTES(NULL, 0),
			BYTES(NULL, 0), BYTES(NULL, 0),
			BYTES(NULL, 0), BYTES(NULL, 0),
		};
		const struct bl_item *it[3];
		int k;

		f = &c->files[i];
		it[0] = &f->name;
		it[1] = &f->mime;
		it[2] = &f->data;
		for (k = 0; k < 3; k++) {
			b[2 + 2 * k].p = it[k]->buf;
			b[2 + 2 * k].len = it[k]->len;
			b[3 + 2 * k].p = it[k]->iv;
			b[3 + 2 * k].len = BL_IV_BYTES;
			b[3 + 2 * k].null = !it[k]->enc;
		}
		if ((e = q(s, ST_INSERT_FILE, b, 8, NULL)) != BL_OK)
			goto out;
	}
	if (n->api_key_id > 0)
		e = q(s, ST_KEY_USED, ARGS(I64(n->api_key_id), I64(n->created_ms)), NULL);
out:
	return commit(s, e);
}

/* Moves a locked row to state, deleting its content in the same transaction. */
static enum bl_err
set_state(struct pg_store *s, struct bl_secret *r, enum bl_state state)
{
	enum bl_err	 e;

	if ((e = q(s, ST_DELETE_FILES, ARGS(I64(r->id)), NULL)) != BL_OK ||
	    (e = q(s, ST_SET_STATE, ARGS(I64(r->id), I64(state)), NULL)) != BL_OK)
		return e;
	r->state = state;
	return BL_OK;
}

/*
 * Inside a transaction: locks row id (FOR UPDATE), reads it, and ends an
 * active row whose expiry has passed. Returns BL_OK if the row is active,
 * else its state's error (NOT_FOUND if gone). The locked result, which also
 * holds the text, is left in *res when res is not NULL.
 */
static enum bl_err
check_active(struct pg_store *s, int64_t id, int64_t now, struct bl_secret *r,
    int *changed, PGresult **res)
{
	PGresult	*lr;
	enum bl_err	 e;

	*changed = 0;
	if ((e = q(s, ST_LOCK, ARGS(I64(id)), &lr)) != BL_OK)
		return e;
	if (PQntuples(lr) != 1) {
		PQclear(lr);
		return BL_ERR_NOT_FOUND;
	}
	read_row(lr, 0, r);
	if (res != NULL)
		*res = lr;
	else
		PQclear(lr);
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
end_inactive(struct pg_store *s, enum bl_err e, int changed)
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
pg_store_lookup(struct pg_store *s, const unsigned char hash[BL_HASH_BYTES], int64_t now,
    struct bl_secret *r)
{
	PGresult	*res;
	enum bl_err	 e;
	int		 changed, by_receipt;

	if ((e = q(s, ST_LOOKUP, ARGS(BYTES(hash, BL_HASH_BYTES)), &res)) != BL_OK)
		return e;
	if (PQntuples(res) != 1) {
		PQclear(res);
		return BL_ERR_NOT_FOUND;
	}
	read_row(res, 0, r);
	PQclear(res);
	if (r->state != BL_ST_ACTIVE || r->expires_ms > now)
		return BL_OK;
	by_receipt = r->by_receipt;
	if ((e = begin(s)) != BL_OK)
		return e;
	e = check_active(s, r->id, now, r, &changed, NULL);
	r->by_receipt = by_receipt;
	if (e != BL_ERR_NOT_FOUND && e != BL_ERR_STORE_BUSY && e != BL_ERR_STORE_UNAVAILABLE &&
	    e != BL_ERR_INTERNAL)
		e = BL_OK;
	return commit(s, e);
}

/* Reads the text (from the locked row's result) and the attachments of row id. */
static enum bl_err
read_content(struct pg_store *s, const PGresult *row, int64_t id, struct bl_content *c)
{
	PGresult	*res;
	enum bl_err	 e;
	int		 i, n;

	memset(c, 0, sizeof(*c));
	if (!PQgetisnull(row, 0, 11)) {
		c->has_text = 1;
		if (col_item(row, 0, 11, &c->text) != 0)
			return BL_ERR_INTERNAL;
	}
	if ((e = q(s, ST_SELECT_FILES, ARGS(I64(id)), &res)) != BL_OK)
		goto out;
	n = PQntuples(res);
	if (n > BL_MAX_FILES)
		n = BL_MAX_FILES;
	if (n > 0 && (c->files = calloc((size_t)n, sizeof(*c->files))) == NULL) {
		e = BL_ERR_INTERNAL;
		goto done;
	}
	for (i = 0; i < n; i++) {
		c->nfiles++;
		if (col_item(res, i, 0, &c->files[i].name) != 0 ||
		    col_item(res, i, 2, &c->files[i].mime) != 0 ||
		    col_item(res, i, 4, &c->files[i].data) != 0) {
			e = BL_ERR_INTERNAL;
			break;
		}
	}
done:
	PQclear(res);
out:
	if (e != BL_OK)
		bl_content_free(c);
	return e;
}

/*
 * Consumes one view of secret id in one transaction: locks the row, re-checks
 * that it is active, reads its content, counts the view, and on the last view
 * deletes the content (the row stays as an exhausted tombstone).
 */
enum bl_err
pg_store_consume(struct pg_store *s, int64_t id, int64_t now, struct bl_secret *r,
    struct bl_content *c)
{
	PGresult	*row = NULL;
	enum bl_err	 e;
	int		 changed;

	memset(c, 0, sizeof(*c));
	if ((e = begin(s)) != BL_OK)
		return e;
	if ((e = check_active(s, id, now, r, &changed, &row)) != BL_OK) {
		PQclear(row);
		return end_inactive(s, e, changed);
	}
	e = read_content(s, row, id, c);
	PQclear(row);
	if (e != BL_OK)
		return commit(s, e);
	if ((e = q(s, ST_VIEW, ARGS(I64(id), I64(now)), NULL)) != BL_OK)
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
pg_store_burn(struct pg_store *s, int64_t id, int64_t now)
{
	struct bl_secret	 r;
	enum bl_err		 e;
	int			 changed;

	if ((e = begin(s)) != BL_OK)
		return e;
	memset(&r, 0, sizeof(r));
	if ((e = check_active(s, id, now, &r, &changed, NULL)) != BL_OK)
		return end_inactive(s, e, changed);
	return commit(s, set_state(s, &r, BL_ST_BURNED));
}

/*
 * Adds one to the counter of bucket in the window starting at window_start
 * (Unix seconds), kept until expires; returns the new count in *count. The
 * upsert takes the counter row's lock, so web servers counting at once each
 * get their own number. Any failure is RATE_LIMIT_UNAVAILABLE.
 */
enum bl_err
pg_store_count(struct pg_store *s, const unsigned char bucket[BL_HASH_BYTES],
    int64_t window_start, int64_t expires, int64_t *count)
{
	PGresult	*res;

	if (q(s, ST_COUNT, ARGS(BYTES(bucket, BL_HASH_BYTES), I64(window_start),
	    I64(expires)), &res) != BL_OK)
		return BL_ERR_RATE_LIMIT_UNAVAILABLE;
	if (PQntuples(res) != 1) {
		snprintf(s->err, sizeof(s->err), "count: no row returned");
		PQclear(res);
		return BL_ERR_RATE_LIMIT_UNAVAILABLE;
	}
	*count = col_int(res, 0, 0, 0);
	PQclear(res);
	return BL_OK;
}

/* Reads the count of bucket in the window starting at window_start (0 if none). */
enum bl_err
pg_store_counter_get(struct pg_store *s, const unsigned char bucket[BL_HASH_BYTES],
    int64_t window_start, int64_t *count)
{
	PGresult	*res;

	*count = 0;
	if (q(s, ST_COUNTER_GET, ARGS(BYTES(bucket, BL_HASH_BYTES), I64(window_start)),
	    &res) != BL_OK)
		return BL_ERR_RATE_LIMIT_UNAVAILABLE;
	if (PQntuples(res) == 1)
		*count = col_int(res, 0, 0, 0);
	PQclear(res);
	return BL_OK;
}

/* Sets the count of bucket in a window (an operator's correction); 0 removes it. */
enum bl_err
pg_store_counter_set(struct pg_store *s, const unsigned char bucket[BL_HASH_BYTES],
    int64_t window_start, int64_t expires, int64_t count)
{
	enum bl_err	 e;

	if (count > 0)
		e = q(s, ST_COUNTER_SET, ARGS(BYTES(bucket, BL_HASH_BYTES),
		    I64(window_start), I64(expires), I64(count)), NULL);
	else
		e = q(s, ST_COUNTER_DEL, ARGS(BYTES(bucket, BL_HASH_BYTES),
		    I64(window_start)), NULL);
	return e == BL_OK ? BL_OK : BL_ERR_RATE_LIMIT_UNAVAILABLE;
}

static void
read_account(const PGresult *res, int row, struct bl_account *a)
{
	memset(a, 0, sizeof(*a));
	a->id = col_int(res, row, 0, 0);
	col_text(res, row, 1, a->name, sizeof(a->name));
	a->created_ms = col_int(res, row, 2, 0);
	a->keys_active = col_int(res, row, 3, 0);
	a->secrets = col_int(res, row, 4, 0);
	a->secrets_active = col_int(res, row, 5, 0);
}

static void
read_key(const PGresult *res, int row, struct bl_api_key *k)
{
	memset(k, 0, sizeof(*k));
	k->id = col_int(res, row, 0, 0);
	k->account_id = col_int(res, row, 1, 0);
	col_text(res, row, 2, k->prefix, sizeof(k->prefix));
	col_text(res, row, 3, k->label, sizeof(k->label));
	k->created_ms = col_int(res, row, 4, 0);
	k->last_used_ms = col_int(res, row, 5, -1);
	k->revoked_ms = col_int(res, row, 6, -1);
}

/* Creates an account; BL_ERR_EXISTS if the name is taken. */
enum bl_err
pg_store_account_create(struct pg_store *s, const char *name, int64_t now, int64_t *id)
{
	PGresult	*res;
	enum bl_err	 e;

	if ((e = q(s, ST_ACCOUNT_INSERT, ARGS(TEXT(name), I64(now)), &res)) != BL_OK)
		return strcmp(s->sqlstate, "23505") == 0 ? BL_ERR_EXISTS : e;
	*id = col_int(res, 0, 0, 0);
	PQclear(res);
	return BL_OK;
}

/* Finds an account by id, or by name when name is not NULL; NOT_FOUND if none. */
enum bl_err
pg_store_account_get(struct pg_store *s, int64_t id, const char *name, struct bl_account *a)
{
	PGresult	*res;
	enum bl_err	 e;

	if (name != NULL)
		e = q(s, ST_ACCOUNT_GET, ARGS(I64(-1), TEXT(name)), &res);
	else
		e = q(s, ST_ACCOUNT_GET, ARGS(I64(id), NUL(OID_TEXT)), &res);
	if (e != BL_OK)
		return e;
	if (PQntuples(res) < 1)
		e = BL_ERR_NOT_FOUND;
	else
		read_account(res, 0, a);
	PQclear(res);
	return e;
}

/* Calls cb for every account in id order; stops early when cb returns non-zero. */
enum bl_err
pg_store_account_list(struct pg_store *s, int (*cb)(void *, const struct bl_account *),
    void *arg)
{
	struct bl_account	 a;
	PGresult		*res;
	enum bl_err		 e;
	int			 i;

	if ((e = q(s, ST_ACCOUNT_LIST, NULL, 0, &res)) != BL_OK)
		return e;
	for (i = 0; i < PQntuples(res); i++) {
		read_account(res, i, &a);
		if (cb(arg, &a) != 0)
			break;
	}
	PQclear(res);
	return BL_OK;
}

/* Stores a new key (account_id, prefix, label, created_ms of k); sets k->id. */
enum bl_err
pg_store_key_insert(struct pg_store *s, const unsigned char hash[BL_HASH_BYTES],
    struct bl_api_key *k)
{
	PGresult	*res;
	enum bl_err	 e;

	if ((e = q(s, ST_KEY_INSERT, ARGS(I64(k->account_id), BYTES(hash, BL_HASH_BYTES),
	    TEXT(k->prefix), TEXT(k->label), I64(k->created_ms)), &res)) != BL_OK)
		return e;
	k->id = col_int(res, 0, 0, 0);
	PQclear(res);
	return BL_OK;
}

/* Reads the key a statement selects; NOT_FOUND if none. */
static enum bl_err
key_one(struct pg_store *s, enum stmt id, const struct arg *a, struct bl_api_key *k)
{
	PGresult	*res;
	enum bl_err	 e;

	if ((e = q(s, id, a, 1, &res)) != BL_OK)
		return e;
	if (PQntuples(res) < 1)
		e = BL_ERR_NOT_FOUND;
	else
		read_key(res, 0, k);
	PQclear(res);
	return e;
}

/* Finds a key by the SHA-256 of the whole key (revoked ones too). */
enum bl_err
pg_store_key_find(struct pg_store *s, const unsigned char hash[BL_HASH_BYTES],
    struct bl_api_key *k)
{
	const struct arg	 a = BYTES(hash, BL_HASH_BYTES);

	return key_one(s, ST_KEY_FIND, &a, k);
}

enum bl_err
pg_store_key_get(struct pg_store *s, int64_t id, struct bl_api_key *k)
{
	const struct arg	 a = I64(id);

	return key_one(s, ST_KEY_GET, &a, k);
}

/* Calls cb for every key of account_id (0: of all accounts), in id order. */
enum bl_err
pg_store_key_list(struct pg_store *s, int64_t account_id,
    int (*cb)(void *, const struct bl_api_key *), void *arg)
{
	struct bl_api_key	 k;
	PGresult		*res;
	enum bl_err		 e;
	int			 i;

	if ((e = q(s, ST_KEY_LIST, ARGS(I64(account_id)), &res)) != BL_OK)
		return e;
	for (i = 0; i < PQntuples(res); i++) {
		read_key(res, i, &k);
		if (cb(arg, &k) != 0)
			break;
	}
	PQclear(res);
	return BL_OK;
}

/* Marks key id revoked (it stays in the table); NOT_FOUND if it was not valid. */
enum bl_err
pg_store_key_revoke(struct pg_store *s, int64_t id, int64_t now)
{
	PGresult	*res;
	enum bl_err	 e;

	if ((e = q(s, ST_KEY_REVOKE, ARGS(I64(id), I64(now)), &res)) != BL_OK)
		return e;
	e = strcmp(PQcmdTuples(res), "1") == 0 ? BL_OK : BL_ERR_NOT_FOUND;
	PQclear(res);
	return e;
}

/*
 * Hourly cleanup, safe to run from every host at once: removes the rows whose
 * expiry has passed (their attachments go by the foreign key's cascade),
 * skipping rows another cleanup or a request holds, then prunes ended counter
 * windows. The space of deleted content is reclaimed by autovacuum (INSTALL).
 */
enum bl_err
pg_store_cleanup(struct pg_store *s, int64_t now, struct bl_cleanup_stats *stats)
{
	PGresult	*res;
	enum bl_err	 e;

	memset(stats, 0, sizeof(*stats));
	if ((e = q(s, ST_CLEAN_ROWS, ARGS(I64(now)), &res)) != BL_OK)
		return e;
	stats->removed = strtoll(PQcmdTuples(res), NULL, 10);
	PQclear(res);
	if (q(s, ST_CLEAN_COUNTERS, ARGS(I64(now / 1000)), &res) != BL_OK)
		return BL_ERR_RATE_LIMIT_UNAVAILABLE;
	stats->counters = strtoll(PQcmdTuples(res), NULL, 10);
	PQclear(res);
	return BL_OK;
}

/*
 * Accounts with a password, and browser sessions (lib/account.c). Each call
 * is one statement, or one transaction where it says so.
 */

/* Creates an account and its password in one transaction; BL_ERR_EXISTS if the name is taken. */
enum bl_err
pg_store_account_signup(struct pg_store *s, const char *name,
    const unsigned char hash[BL_PASSHASH_BYTES], int64_t now, int64_t *id)
{
	enum bl_err	 e;

	if ((e = begin(s)) != BL_OK)
		return e;
	if ((e = pg_store_account_create(s, name, now, id)) != BL_OK)
		return commit(s, e);
	return commit(s, q(s, ST_PASSWORD_SET, ARGS(I64(*id),
	    BYTES(hash, BL_PASSHASH_BYTES), I64(now)), NULL));
}

/* The oldest account whose name, lower-cased, is email_lower; NOT_FOUND if none. */
enum bl_err
pg_store_account_by_email(struct pg_store *s, const char *email, struct bl_account *a)
{
	PGresult	*res;
	enum bl_err	 e;

	if ((e = q(s, ST_ACCOUNT_BY_EMAIL, ARGS(TEXT(email)), &res)) != BL_OK)
		return e;
	if (PQntuples(res) < 1)
		e = BL_ERR_NOT_FOUND;
	else
		read_account(res, 0, a);
	PQclear(res);
	return e;
}

/* The password hash of an account; NOT_FOUND if it has none (no sign-in). */
enum bl_err
pg_store_password_get(struct pg_store *s, int64_t account_id,
    unsigned char hash[BL_PASSHASH_BYTES])
{
	PGresult	*res;
	enum bl_err	 e;

	if ((e = q(s, ST_PASSWORD_GET, ARGS(I64(account_id)), &res)) != BL_OK)
		return e;
	/* a missing or malformed hash lets no one in */
	if (PQntuples(res) == 1 && PQgetlength(res, 0, 0) == BL_PASSHASH_BYTES)
		memcpy(hash, PQgetvalue(res, 0, 0), BL_PASSHASH_BYTES);
	else
		e = BL_ERR_NOT_FOUND;
	PQclear(res);
	return e;
}

/* Sets an account's password and ends every session of the account, in one transaction. */
enum bl_err
pg_store_password_set(struct pg_store *s, int64_t account_id,
    const unsigned char hash[BL_PASSHASH_BYTES], int64_t now)
{
	enum bl_err	 e;

	if ((e = begin(s)) != BL_OK)
		return e;
	if ((e = q(s, ST_PASSWORD_SET, ARGS(I64(account_id), BYTES(hash, BL_PASSHASH_BYTES),
	    I64(now)), NULL)) != BL_OK)
		return commit(s, e);
	return commit(s, q(s, ST_SESSION_END_ALL, ARGS(I64(account_id)), NULL));
}

/* Stores a new session (by the SHA-256 of its id) for an account, seen now. */
enum bl_err
pg_store_session_insert(struct pg_store *s, const unsigned char hash[BL_HASH_BYTES],
    int64_t account_id, int64_t now)
{
	return q(s, ST_SESSION_INSERT, ARGS(BYTES(hash, BL_HASH_BYTES), I64(account_id),
	    I64(now)), NULL);
}

/* Finds a session by the SHA-256 of its id (expired ones too); NOT_FOUND if none. */
enum bl_err
pg_store_session_find(struct pg_store *s, const unsigned char hash[BL_HASH_BYTES],
    struct bl_session *out)
{
	PGresult	*res;
	enum bl_err	 e;

	if ((e = q(s, ST_SESSION_FIND, ARGS(BYTES(hash, BL_HASH_BYTES)), &res)) != BL_OK)
		return e;
	if (PQntuples(res) == 1) {
		out->id = col_int(res, 0, 0, 0);
		out->account_id = col_int(res, 0, 1, 0);
		out->created_ms = col_int(res, 0, 2, 0);
		out->seen_ms = col_int(res, 0, 3, 0);
	} else
		e = BL_ERR_NOT_FOUND;
	PQclear(res);
	return e;
}

/* Records a request of session id at now. */
enum bl_err
pg_store_session_touch(struct pg_store *s, int64_t id, int64_t now)
{
	return q(s, ST_SESSION_TOUCH, ARGS(I64(id), I64(now)), NULL);
}

/* Ends session id (sign-out); BL_OK also when it was already gone. */
enum bl_err
pg_store_session_delete(struct pg_store *s, int64_t id)
{
	return q(s, ST_SESSION_DELETE, ARGS(I64(id)), NULL);
}

/* Removes the sessions last seen at or before seen_before or created at or before created_before. */
enum bl_err
pg_store_session_prune(struct pg_store *s, int64_t seen_before, int64_t created_before)
{
	return q(s, ST_SESSION_PRUNE, ARGS(I64(seen_before), I64(created_before)), NULL);
}

/* One secret row by its id (no content, no state change); NOT_FOUND if none. */
enum bl_err
pg_store_secret_get(struct pg_store *s, int64_t id, struct bl_secret *r)
{
	PGresult	*res;
	enum bl_err	 e;

	memset(r, 0, sizeof(*r));
	if ((e = q(s, ST_SECRET_GET, ARGS(I64(id)), &res)) != BL_OK)
		return e;
	if (PQntuples(res) == 1)
		read_row(res, 0, r);
	else
		e = BL_ERR_NOT_FOUND;
	PQclear(res);
	return e;
}

/*
 * Calls cb for the newest max secret rows of an account (active ones and the
 * tombstones cleanup has not removed yet), newest first; stops early when cb
 * returns non-zero. The rows are as stored: an active row past its expiry is
 * still active here.
 */
enum bl_err
pg_store_account_secrets(struct pg_store *s, int64_t account_id, int64_t max,
    int (*cb)(void *, const struct bl_secret *), void *arg)
{
	struct bl_secret	 r;
	PGresult		*res;
	enum bl_err		 e;
	int			 i;

	if ((e = q(s, ST_ACCOUNT_SECRETS, ARGS(I64(account_id), I64(max)), &res)) != BL_OK)
		return e;
	for (i = 0; i < PQntuples(res); i++) {
		read_row(res, i, &r);
		if (cb(arg, &r) != 0)
			break;
	}
	PQclear(res);
	return BL_OK;
}
#endif /* BL_HAVE_PG */
