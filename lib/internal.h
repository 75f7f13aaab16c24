/* internal.h: declarations shared by the units of libburnlink, not for programs. */
#ifndef BL_INTERNAL_H
#define BL_INTERNAL_H

#include "burnlink.h"

/* States of a secret row. */
enum bl_state {
	BL_ST_ACTIVE = 0,
	BL_ST_EXPIRED = 1,
	BL_ST_BURNED = 2,
	BL_ST_EXHAUSTED = 3
};

/* One stored item: ciphertext (with tag) and IV, or a plain string (enc == 0). */
struct bl_item {
	unsigned char	*buf;
	size_t		 len;
	unsigned char	 iv[BL_IV_BYTES];
	int		 enc;
};

struct bl_file {
	struct bl_item	 name;
	struct bl_item	 mime;
	struct bl_item	 data;
};

/* The encrypted content of a secret: optional text and up to BL_MAX_FILES files. */
struct bl_content {
	int		 has_text;
	struct bl_item	 text;
	size_t		 nfiles;
	struct bl_file	*files;
};

/* A secret row as the storage unit returns it (no content). */
struct bl_secret {
	int64_t		 id;
	enum bl_state	 state;
	int		 by_receipt;	/* the lookup matched the receipt key */
	int64_t		 created_ms;
	int64_t		 expires_ms;
	int64_t		 last_viewed_ms; /* -1 when never viewed */
	int64_t		 max_views;	/* -1 for unlimited */
	int64_t		 view_count;
	int		 deletable;
	int		 has_pass;
	unsigned char	 pass_hash[BL_PASSHASH_BYTES];
	int64_t		 account_id;	/* 0 for anonymous */
};

/* What bl_store_insert() writes. */
struct bl_new_secret {
	unsigned char		 secret_hash[BL_HASH_BYTES];
	unsigned char		 receipt_hash[BL_HASH_BYTES];
	int64_t			 created_ms;
	int64_t			 expires_ms;
	int64_t			 max_views;
	int			 deletable;
	int			 has_pass;
	unsigned char		 pass_hash[BL_PASSHASH_BYTES];
	int			 server_side;
	int64_t			 account_id;
	int64_t			 api_key_id;	/* its last_used_at is set; 0: none */
	const struct bl_content	*content;
};

/*
 * The storage interface. lib/store.c opens the backend BURNLINK_DB names
 * (lib/store.h: a table of functions and an SQL dialect each, SQLite or, in a
 * make PG=1 build, PostgreSQL); the functions below are written once above
 * the backends: the secret lifecycle in lib/secret.c, accounts, keys and
 * sessions in lib/account_store.c. Every call that changes a secret runs in
 * one transaction and re-checks the state inside it. A new function is one
 * statement in enum bl_stmt (lib/store.h), its SQL in each dialect, and the
 * function here.
 */
struct bl_store;
int		 bl_store_is_pg(const char *db);	/* a PostgreSQL conninfo */
int		 bl_store_needs_net(int fcgi);	/* the sandbox must allow sockets */
void		 bl_store_persistent(int);	/* connections kept (FastCGI) */
enum bl_err	 bl_store_open(struct bl_store **, const struct bl_config *,
		    char *err, size_t errlen);
void		 bl_store_close(struct bl_store *);
const char	*bl_store_error(const struct bl_store *);

/* secret.c: the lifecycle of a secret (states, views, expiry, tombstones). */
enum bl_err	 bl_store_insert(struct bl_store *, const struct bl_new_secret *);
enum bl_err	 bl_store_lookup(struct bl_store *, const unsigned char hash[BL_HASH_BYTES],
		    int64_t now_ms, struct bl_secret *);
enum bl_err	 bl_store_consume(struct bl_store *, int64_t id, int64_t now_ms,
		    struct bl_secret *, struct bl_content *);
enum bl_err	 bl_store_burn(struct bl_store *, int64_t id, int64_t now_ms);
enum bl_err	 bl_store_cleanup(struct bl_store *, int64_t now_ms,
		    struct bl_cleanup_stats *);
enum bl_err	 bl_store_secret_get(struct bl_store *, int64_t id, struct bl_secret *);
int64_t		 bl_views_left(const struct bl_secret *);

/*
 * The rate-limit counters (lib/limit.c): a store of their own, opened with
 * bl_store_open_counters(); any failure is RATE_LIMIT_UNAVAILABLE.
 */
enum bl_err	 bl_store_open_counters(struct bl_store **, const struct bl_config *);
enum bl_err	 bl_counter_add(struct bl_store *, const unsigned char bucket[BL_HASH_BYTES],
		    int64_t window_start, int64_t expires, int64_t *count);
enum bl_err	 bl_counter_get(struct bl_store *, const unsigned char bucket[BL_HASH_BYTES],
		    int64_t window_start, int64_t *count);
enum bl_err	 bl_counter_set(struct bl_store *, const unsigned char bucket[BL_HASH_BYTES],
		    int64_t window_start, int64_t expires, int64_t count /* 0 removes it */);
enum bl_err	 bl_counter_clean(struct bl_store *, int64_t now, int64_t *removed);

/* account_store.c: accounts, API keys, passwords, sessions and an account's secrets. */
enum bl_err	 bl_store_account_secrets(struct bl_store *, int64_t account_id,
		    int64_t max, int (*cb)(void *, const struct bl_secret *), void *);
enum bl_err	 bl_store_account_create(struct bl_store *, const char *name,
		    int64_t now_ms, int64_t *id);
enum bl_err	 bl_store_account_get(struct bl_store *, int64_t id, const char *name,
		    struct bl_account *);
enum bl_err	 bl_store_account_list(struct bl_store *,
		    int (*cb)(void *, const struct bl_account *), void *);
enum bl_err	 bl_store_key_insert(struct bl_store *, const unsigned char hash[BL_HASH_BYTES],
		    struct bl_api_key *);
enum bl_err	 bl_store_key_find(struct bl_store *, const unsigned char hash[BL_HASH_BYTES],
		    struct bl_api_key *);
enum bl_err	 bl_store_key_get(struct bl_store *, int64_t id, struct bl_api_key *);
enum bl_err	 bl_store_key_list(struct bl_store *, int64_t account_id,
		    int (*cb)(void *, const struct bl_api_key *), void *);
enum bl_err	 bl_store_key_revoke(struct bl_store *, int64_t id, int64_t now_ms);

/*
 * Sign-in passwords, browser sessions and an account's secrets (lib/account.c).
 * Sessions are found by the SHA-256 of their id; the caller decides whether
 * one has expired (BL_SESSION_IDLE, BL_SESSION_MAX).
 */
struct bl_session {
	int64_t		 id;
	int64_t		 account_id;
	int64_t		 created_ms;	/* sign-in */
	int64_t		 seen_ms;	/* last request */
};
enum bl_err	 bl_store_account_signup(struct bl_store *, const char *name,
		    const unsigned char pass_hash[BL_PASSHASH_BYTES], int64_t now_ms,
		    int64_t *id);
enum bl_err	 bl_store_account_by_email(struct bl_store *, const char *email_lower,
		    struct bl_account *);
enum bl_err	 bl_store_password_get(struct bl_store *, int64_t account_id,
		    unsigned char pass_hash[BL_PASSHASH_BYTES]);
enum bl_err	 bl_store_password_set(struct bl_store *, int64_t account_id,
		    const unsigned char pass_hash[BL_PASSHASH_BYTES], int64_t now_ms);
enum bl_err	 bl_store_session_insert(struct bl_store *,
		    const unsigned char hash[BL_HASH_BYTES], int64_t account_id,
		    int64_t now_ms);
enum bl_err	 bl_store_session_find(struct bl_store *,
		    const unsigned char hash[BL_HASH_BYTES], struct bl_session *);
enum bl_err	 bl_store_session_touch(struct bl_store *, int64_t id, int64_t now_ms);
enum bl_err	 bl_store_session_delete(struct bl_store *, int64_t id);
enum bl_err	 bl_store_session_prune(struct bl_store *, int64_t seen_before_ms,
		    int64_t created_before_ms);

/* content.c: freeing (and wiping) what a secret's content holds. */
void		 bl_content_free(struct bl_content *);
void		 bl_item_free(struct bl_item *);

/* json.c: request body parsing and the create request. */
enum bl_err	 bl_json_parse(struct bl_req *);
void		 bl_json_wipe(json_object *);
json_object	*bl_json_item(struct bl_item *);
int		 bl_json_add(json_object *, const char *, json_object *);
int		 bl_json_add_null(json_object *, const char *);
int		 bl_json_add_time(json_object *, const char *, int64_t ms);

struct bl_create {
	int		 server_side;
	int64_t		 ttl;
	int64_t		 max_views;	/* -1 unlimited */
	int		 deletable;
	const char	*pass;		/* points into the request JSON */
	size_t		 pass_len;
	struct bl_content content;	/* encrypted when parsing is done */
	unsigned char	 dkey[32];	/* server-side key, wiped after use */
};
enum bl_err	 bl_create_parse(struct bl_req *, struct bl_create *);
void		 bl_create_free(struct bl_create *);

/* prefault.c: a CGI program's code and first heap mapped ahead. */
void		 bl_prefault(void);

/* sandbox.c: no core dumps, and the seccomp filter (make SECCOMP=0 builds without). */
int		 bl_sandbox(void);
int		 bl_sandbox_fcgi(void);	/* also accept on fd 0 and talk over it */
int		 bl_sandbox_enabled(void);

/*
 * FastCGI mode (fcgi.c): the stores a process keeps open from one request to
 * the next, with the paths they were opened for (a request whose configuration
 * names other files gets its own).
 */
struct bl_keep {
	struct bl_store	*store;
	char		*db_path;
	struct bl_store	*counters;
	char		*limits_path;
	int		 batch;		/* requests share one commit (fcgi.c) */
	int		 batch_failed;	/* the batch's store was lost before it */
};
int		 bl_fcgi_listening(void);
int		 bl_respond_detached(const struct bl_io *, const char *id, enum bl_err,
		    const char *hint);
int		 bl_fcgi_serve(enum bl_err (*)(struct bl_req *));
void		 bl_serve_one(enum bl_err (*)(struct bl_req *), const struct bl_io *,
		    struct bl_keep *, int confined);
void		 bl_keep_free(struct bl_keep *);
int		 bl_store_idle(struct bl_store *);
void		 bl_store_batch(struct bl_store *);
enum bl_err	 bl_store_batch_commit(struct bl_store *);
void		 bl_store_batch_flush(struct bl_store *);

/* state and helpers used by the operations */
enum bl_err	 bl_req_store(struct bl_req *);
enum bl_err	 bl_req_install_key(struct bl_req *);
enum bl_err	 bl_state_err(enum bl_state);
const char	*bl_state_name(enum bl_state);
enum bl_err	 bl_check_passphrase(struct bl_req *, const struct bl_secret *,
		    const unsigned char secret_hash[BL_HASH_BYTES]);
int		 bl_site_url(struct bl_req *, char **out);

/* limit.c: the client address and the counting of requests. */
void		 bl_client_ip(struct bl_req *);
enum bl_err	 bl_limit_take(struct bl_req *, enum bl_limit, const void *subject,
		    size_t len, int64_t *remaining);
enum bl_err	 bl_limit_request(struct bl_req *, enum bl_limit);
enum bl_err	 bl_limit_creator(struct bl_req *, int64_t account_id, int by_key);

/* auth.c: the API key of a request, if it sent one. */
enum bl_err	 bl_auth_request(struct bl_req *, int64_t *account_id, int64_t *key_id);

/* account.c: the signed-in session's account for a creation (0: none). */
enum bl_err	 bl_session_creator(struct bl_req *, int64_t *account_id);

#endif /* BL_INTERNAL_H */
