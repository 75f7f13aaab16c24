/* store.c: the storage interface of internal.h, forwarded to the backend BURNLINK_DB names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "store.h"

/* The handle the library holds: exactly one backend is set. */
struct bl_store {
	struct sqlite_store	*sqlite;
	struct pg_store		*pg;
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
	sqlite_store_persistent(on);
}

#ifdef BL_HAVE_PG
#define CALL(s, fn, ...) ((s)->pg != NULL ? pg_store_##fn((s)->pg, __VA_ARGS__) : \
	sqlite_store_##fn((s)->sqlite, __VA_ARGS__))
#define CALL0(s, fn) ((s)->pg != NULL ? pg_store_##fn((s)->pg) : \
	sqlite_store_##fn((s)->sqlite))
#else
#define CALL(s, fn, ...) sqlite_store_##fn((s)->sqlite, __VA_ARGS__)
#define CALL0(s, fn) sqlite_store_##fn((s)->sqlite)
#endif

/* Opens the store of cfg->db_path: PostgreSQL for a conninfo, else SQLite. */
enum bl_err
bl_store_open(struct bl_store **out, const struct bl_config *cfg, char *err, size_t errlen)
{
	struct bl_store	*s;
	enum bl_err	 e;

	*out = NULL;
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return BL_ERR_INTERNAL;
	if (bl_store_is_pg(cfg->db_path)) {
#ifdef BL_HAVE_PG
		e = pg_store_open(&s->pg, cfg, err, errlen);
#else
		snprintf(err, errlen, "BURNLINK_DB names a PostgreSQL database, but these "
		    "programs were built without PostgreSQL support (build with make PG=1)");
		e = BL_ERR_STORE_UNAVAILABLE;
#endif
	} else
		e = sqlite_store_open(&s->sqlite, cfg, err, errlen);
	if (e != BL_OK) {
		free(s);
		return e;
	}
	*out = s;
	return BL_OK;
}

/* The rate limiter's store (the counters alone) of cfg's database. */
enum bl_err
bl_store_open_counters(struct bl_store **out, const struct bl_config *cfg)
{
	struct bl_store	*s;
	enum bl_err	 e;

	*out = NULL;
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return BL_ERR_INTERNAL;
	if (bl_store_is_pg(cfg->db_path)) {
#ifdef BL_HAVE_PG
		e = pg_store_open_counters(&s->pg, cfg);
#else
		e = BL_ERR_RATE_LIMIT_UNAVAILABLE;
#endif
	} else
		e = sqlite_store_open_counters(&s->sqlite, cfg);
	if (e != BL_OK) {
		free(s);
		return e;
	}
	*out = s;
	return BL_OK;
}

void
bl_store_close(struct bl_store *s)
{
	if (s == NULL)
		return;
#ifdef BL_HAVE_PG
	if (s->pg != NULL)
		pg_store_close(s->pg);
#endif
	if (s->sqlite != NULL)
		sqlite_store_close(s->sqlite);
	free(s);
}

/* Readies a store kept for the next request (FastCGI); -1: close it instead. */
int
bl_store_idle(struct bl_store *s)
{
	return CALL0(s, idle);
}

/*
 * Group commit (FastCGI, lib/fcgi.c): the store's write transactions join one
 * until bl_store_batch_commit(); bl_store_batch_flush() commits what is done so
 * far and lets the write lock go.
 */
void
bl_store_batch(struct bl_store *s)
{
	CALL0(s, batch);
}

void
bl_store_batch_flush(struct bl_store *s)
{
	CALL0(s, batch_flush);
}

enum bl_err
bl_store_batch_commit(struct bl_store *s)
{
	return CALL0(s, batch_commit);
}

const char *
bl_store_error(const struct bl_store *s)
{
	return CALL0(s, error);
}

enum bl_err
bl_store_insert(struct bl_store *s, const struct bl_new_secret *n)
{
	return CALL(s, insert, n);
}

enum bl_err
bl_store_lookup(struct bl_store *s, const unsigned char hash[BL_HASH_BYTES], int64_t now,
    struct bl_secret *r)
{
	return CALL(s, lookup, hash, now, r);
}

enum bl_err
bl_store_consume(struct bl_store *s, int64_t id, int64_t now, struct bl_secret *r,
    struct bl_content *c)
{
	return CALL(s, consume, id, now, r, c);
}

enum bl_err
bl_store_burn(struct bl_store *s, int64_t id, int64_t now)
{
	return CALL(s, burn, id, now);
}

enum bl_err
bl_store_count(struct bl_store *s, const unsigned char bucket[BL_HASH_BYTES],
    int64_t window_start, int64_t expires, int64_t *count)
{
	return CALL(s, count, bucket, window_start, expires, count);
}

enum bl_err
bl_store_counter_get(struct bl_store *s, const unsigned char bucket[BL_HASH_BYTES],
    int64_t window_start, int64_t *count)
{
	return CALL(s, counter_get, bucket, window_start, count);
}

enum bl_err
bl_store_counter_set(struct bl_store *s, const unsigned char bucket[BL_HASH_BYTES],
    int64_t window_start, int64_t expires, int64_t count)
{
	return CALL(s, counter_set, bucket, window_start, expires, count);
}

enum bl_err
bl_store_account_create(struct bl_store *s, const char *name, int64_t now, int64_t *id)
{
	return CALL(s, account_create, name, now, id);
}

enum bl_err
bl_store_account_get(struct bl_store *s, int64_t id, const char *name, struct bl_account *a)
{
	return CALL(s, account_get, id, name, a);
}

enum bl_err
bl_store_account_list(struct bl_store *s, int (*cb)(void *, const struct bl_account *),
    void *arg)
{
	return CALL(s, account_list, cb, arg);
}

enum bl_err
bl_store_key_insert(struct bl_store *s, const unsigned char hash[BL_HASH_BYTES],
    struct bl_api_key *k)
{
	return CALL(s, key_insert, hash, k);
}

enum bl_err
bl_store_key_find(struct bl_store *s, const unsigned char hash[BL_HASH_BYTES],
    struct bl_api_key *k)
{
	return CALL(s, key_find, hash, k);
}

enum bl_err
bl_store_key_get(struct bl_store *s, int64_t id, struct bl_api_key *k)
{
	return CALL(s, key_get, id, k);
}

enum bl_err
bl_store_key_list(struct bl_store *s, int64_t account_id,
    int (*cb)(void *, const struct bl_api_key *), void *arg)
{
	return CALL(s, key_list, account_id, cb, arg);
}

enum bl_err
bl_store_key_revoke(struct bl_store *s, int64_t id, int64_t now)
{
	return CALL(s, key_revoke, id, now);
}

enum bl_err
bl_store_cleanup(struct bl_store *s, int64_t now, struct bl_cleanup_stats *st)
{
	return CALL(s, cleanup, now, st);
}

enum bl_err
bl_store_account_signup(struct bl_store *s, const char *name,
    const unsigned char hash[BL_PASSHASH_BYTES], int64_t now, int64_t *id)
{
	return CALL(s, account_signup, name, hash, now, id);
}

enum bl_err
bl_store_account_by_email(struct bl_store *s, const char *email, struct bl_account *a)
{
	return CALL(s, account_by_email, email, a);
}

enum bl_err
bl_store_password_get(struct bl_store *s, int64_t account_id,
    unsigned char hash[BL_PASSHASH_BYTES])
{
	return CALL(s, password_get, account_id, hash);
}

enum bl_err
bl_store_password_set(struct bl_store *s, int64_t account_id,
    const unsigned char hash[BL_PASSHASH_BYTES], int64_t now)
{
	return CALL(s, password_set, account_id, hash, now);
}

enum bl_err
bl_store_session_insert(struct bl_store *s, const unsigned char hash[BL_HASH_BYTES],
    int64_t account_id, int64_t now)
{
	return CALL(s, session_insert, hash, account_id, now);
}

enum bl_err
bl_store_session_find(struct bl_store *s, const unsigned char hash[BL_HASH_BYTES],
    struct bl_session *out)
{
	return CALL(s, session_find, hash, out);
}

enum bl_err
bl_store_session_touch(struct bl_store *s, int64_t id, int64_t now)
{
	return CALL(s, session_touch, id, now);
}

enum bl_err
bl_store_session_delete(struct bl_store *s, int64_t id)
{
	return CALL(s, session_delete, id);
}

enum bl_err
bl_store_session_prune(struct bl_store *s, int64_t seen_before, int64_t created_before)
{
	return CALL(s, session_prune, seen_before, created_before);
}

enum bl_err
bl_store_secret_get(struct bl_store *s, int64_t id, struct bl_secret *r)
{
	return CALL(s, secret_get, id, r);
}

enum bl_err
bl_store_account_secrets(struct bl_store *s, int64_t account_id, int64_t max,
    int (*cb)(void *, const struct bl_secret *), void *arg)
{
	return CALL(s, account_secrets, account_id, max, cb, arg);
}
