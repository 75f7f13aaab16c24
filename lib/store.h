/* store.h: the backends behind the storage interface of internal.h (lib/store.c picks one). */
#ifndef BL_STORE_H
#define BL_STORE_H

#include "internal.h"

/*
 * Each backend implements every bl_store_* function of internal.h under its
 * own prefix, over its own handle; lib/store.c opens the one BURNLINK_DB
 * names and forwards each call to it. A new bl_store_* function needs a line
 * here for each backend and one forwarding function in lib/store.c.
 */

/* counters.c: the SQLite backend's rate-limit counters, a fixed-size table file. */
struct bl_counters;
enum bl_err	 bl_counters_open(struct bl_counters **, const char *path);
void		 bl_counters_close(struct bl_counters *);
int		 bl_counters_stale(const struct bl_counters *, const char *path);
const char	*bl_counters_error(const struct bl_counters *);
enum bl_err	 bl_counters_add(struct bl_counters *, const unsigned char bucket[BL_HASH_BYTES],
		    int64_t window_start, int64_t expires, int64_t *count);
enum bl_err	 bl_counters_get(struct bl_counters *, const unsigned char bucket[BL_HASH_BYTES],
		    int64_t window_start, int64_t *count);
enum bl_err	 bl_counters_set(struct bl_counters *, const unsigned char bucket[BL_HASH_BYTES],
		    int64_t window_start, int64_t expires, int64_t count);
enum bl_err	 bl_counters_clean(struct bl_counters *, int64_t now, int64_t *removed);

/* store_sqlite.c: a SQLite file (the default). */
struct sqlite_store;
enum bl_err	 sqlite_store_open(struct sqlite_store **, const struct bl_config *,
		    char *err, size_t errlen);
enum bl_err	 sqlite_store_open_counters(struct sqlite_store **, const struct bl_config *);
void		 sqlite_store_close(struct sqlite_store *);
void		 sqlite_store_persistent(int);
void		 sqlite_store_batch(struct sqlite_store *);
enum bl_err	 sqlite_store_batch_commit(struct sqlite_store *);
void		 sqlite_store_batch_flush(struct sqlite_store *);
int		 sqlite_store_idle(struct sqlite_store *);
enum bl_err	 sqlite_store_insert(struct sqlite_store *, const struct bl_new_secret *);
enum bl_err	 sqlite_store_lookup(struct sqlite_store *,
		    const unsigned char hash[BL_HASH_BYTES], int64_t now_ms, struct bl_secret *);
enum bl_err	 sqlite_store_consume(struct sqlite_store *, int64_t id, int64_t now_ms,
		    struct bl_secret *, struct bl_content *);
enum bl_err	 sqlite_store_burn(struct sqlite_store *, int64_t id, int64_t now_ms);
enum bl_err	 sqlite_store_count(struct sqlite_store *,
		    const unsigned char bucket[BL_HASH_BYTES], int64_t window_start,
		    int64_t expires, int64_t *count);
enum bl_err	 sqlite_store_counter_get(struct sqlite_store *,
		    const unsigned char bucket[BL_HASH_BYTES], int64_t window_start,
		    int64_t *count);
enum bl_err	 sqlite_store_counter_set(struct sqlite_store *,
		    const unsigned char bucket[BL_HASH_BYTES], int64_t window_start,
		    int64_t expires, int64_t count);
enum bl_err	 sqlite_store_account_create(struct sqlite_store *, const char *name,
		    int64_t now_ms, int64_t *id);
enum bl_err	 sqlite_store_account_get(struct sqlite_store *, int64_t id,
		    const char *name, struct bl_account *);
enum bl_err	 sqlite_store_account_list(struct sqlite_store *,
		    int (*cb)(void *, const struct bl_account *), void *);
enum bl_err	 sqlite_store_key_insert(struct sqlite_store *,
		    const unsigned char hash[BL_HASH_BYTES], struct bl_api_key *);
enum bl_err	 sqlite_store_key_find(struct sqlite_store *,
		    const unsigned char hash[BL_HASH_BYTES], struct bl_api_key *);
enum bl_err	 sqlite_store_key_get(struct sqlite_store *, int64_t id, struct bl_api_key *);
enum bl_err	 sqlite_store_key_list(struct sqlite_store *, int64_t account_id,
		    int (*cb)(void *, const struct bl_api_key *), void *);
enum bl_err	 sqlite_store_key_revoke(struct sqlite_store *, int64_t id, int64_t now_ms);
enum bl_err	 sqlite_store_account_signup(struct sqlite_store *, const char *name,
		    const unsigned char pass_hash[BL_PASSHASH_BYTES], int64_t now_ms,
		    int64_t *id);
enum bl_err	 sqlite_store_account_by_email(struct sqlite_store *, const char *email_lower,
		    struct bl_account *);
enum bl_err	 sqlite_store_password_get(struct sqlite_store *, int64_t account_id,
		    unsigned char pass_hash[BL_PASSHASH_BYTES]);
enum bl_err	 sqlite_store_password_set(struct sqlite_store *, int64_t account_id,
		    const unsigned char pass_hash[BL_PASSHASH_BYTES], int64_t now_ms);
enum bl_err	 sqlite_store_session_insert(struct sqlite_store *,
		    const unsigned char hash[BL_HASH_BYTES], int64_t account_id,
		    int64_t now_ms);
enum bl_err	 sqlite_store_session_find(struct sqlite_store *,
		    const unsigned char hash[BL_HASH_BYTES], struct bl_session *);
enum bl_err	 sqlite_store_session_touch(struct sqlite_store *, int64_t id, int64_t now_ms);
enum bl_err	 sqlite_store_session_delete(struct sqlite_store *, int64_t id);
enum bl_err	 sqlite_store_session_prune(struct sqlite_store *, int64_t seen_before_ms,
		    int64_t created_before_ms);
enum bl_err	 sqlite_store_secret_get(struct sqlite_store *, int64_t id, struct bl_secret *);
enum bl_err	 sqlite_store_account_secrets(struct sqlite_store *, int64_t account_id,
		    int64_t max, int (*cb)(void *, const struct bl_secret *), void *);
const char	*sqlite_store_error(const struct sqlite_store *);
enum bl_err	 sqlite_store_cleanup(struct sqlite_store *, int64_t now_ms,
		    struct bl_cleanup_stats *);

/* store_pg.c: PostgreSQL through libpq (built with make PG=1). */
struct pg_store;
enum bl_err	 pg_store_open(struct pg_store **, const struct bl_config *,
		    char *err, size_t errlen);
enum bl_err	 pg_store_open_counters(struct pg_store **, const struct bl_config *);
void		 pg_store_close(struct pg_store *);
int		 pg_store_idle(struct pg_store *);
void		 pg_store_batch(struct pg_store *);
void		 pg_store_batch_flush(struct pg_store *);
enum bl_err	 pg_store_batch_commit(struct pg_store *);
enum bl_err	 pg_store_insert(struct pg_store *, const struct bl_new_secret *);
enum bl_err	 pg_store_lookup(struct pg_store *,
		    const unsigned char hash[BL_HASH_BYTES], int64_t now_ms, struct bl_secret *);
enum bl_err	 pg_store_consume(struct pg_store *, int64_t id, int64_t now_ms,
		    struct bl_secret *, struct bl_content *);
enum bl_err	 pg_store_burn(struct pg_store *, int64_t id, int64_t now_ms);
enum bl_err	 pg_store_count(struct pg_store *,
		    const unsigned char bucket[BL_HASH_BYTES], int64_t window_start,
		    int64_t expires, int64_t *count);
enum bl_err	 pg_store_counter_get(struct pg_store *,
		    const unsigned char bucket[BL_HASH_BYTES], int64_t window_start,
		    int64_t *count);
enum bl_err	 pg_store_counter_set(struct pg_store *,
		    const unsigned char bucket[BL_HASH_BYTES], int64_t window_start,
		    int64_t expires, int64_t count);
enum bl_err	 pg_store_account_create(struct pg_store *, const char *name,
		    int64_t now_ms, int64_t *id);
enum bl_err	 pg_store_account_get(struct pg_store *, int64_t id,
		    const char *name, struct bl_account *);
enum bl_err	 pg_store_account_list(struct pg_store *,
		    int (*cb)(void *, const struct bl_account *), void *);
enum bl_err	 pg_store_key_insert(struct pg_store *,
		    const unsigned char hash[BL_HASH_BYTES], struct bl_api_key *);
enum bl_err	 pg_store_key_find(struct pg_store *,
		    const unsigned char hash[BL_HASH_BYTES], struct bl_api_key *);
enum bl_err	 pg_store_key_get(struct pg_store *, int64_t id, struct bl_api_key *);
enum bl_err	 pg_store_key_list(struct pg_store *, int64_t account_id,
		    int (*cb)(void *, const struct bl_api_key *), void *);
enum bl_err	 pg_store_key_revoke(struct pg_store *, int64_t id, int64_t now_ms);
enum bl_err	 pg_store_account_signup(struct pg_store *, const char *name,
		    const unsigned char pass_hash[BL_PASSHASH_BYTES], int64_t now_ms,
		    int64_t *id);
enum bl_err	 pg_store_account_by_email(struct pg_store *, const char *email_lower,
		    struct bl_account *);
enum bl_err	 pg_store_password_get(struct pg_store *, int64_t account_id,
		    unsigned char pass_hash[BL_PASSHASH_BYTES]);
enum bl_err	 pg_store_password_set(struct pg_store *, int64_t account_id,
		    const unsigned char pass_hash[BL_PASSHASH_BYTES], int64_t now_ms);
enum bl_err	 pg_store_session_insert(struct pg_store *,
		    const unsigned char hash[BL_HASH_BYTES], int64_t account_id,
		    int64_t now_ms);
enum bl_err	 pg_store_session_find(struct pg_store *,
		    const unsigned char hash[BL_HASH_BYTES], struct bl_session *);
enum bl_err	 pg_store_session_touch(struct pg_store *, int64_t id, int64_t now_ms);
enum bl_err	 pg_store_session_delete(struct pg_store *, int64_t id);
enum bl_err	 pg_store_session_prune(struct pg_store *, int64_t seen_before_ms,
		    int64_t created_before_ms);
enum bl_err	 pg_store_secret_get(struct pg_store *, int64_t id, struct bl_secret *);
enum bl_err	 pg_store_account_secrets(struct pg_store *, int64_t account_id,
		    int64_t max, int (*cb)(void *, const struct bl_secret *), void *);
const char	*pg_store_error(const struct pg_store *);
enum bl_err	 pg_store_cleanup(struct pg_store *, int64_t now_ms,
		    struct bl_cleanup_stats *);

#endif /* BL_STORE_H */
