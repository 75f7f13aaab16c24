/* internal.h: declarations shared by the units of libburnlink, not for programs. */
#ifndef BL_INTERNAL_H
#define BL_INTERNAL_H

#include "burnlink.h"

/*
 * BL_SANITIZED in a sanitizer build (make asan): no seccomp filter (sandbox.c),
 * SQLite's own allocator (store_sqlite.c) and a return from main instead of
 * _exit (program.c), so that LeakSanitizer sees every allocation at the exit.
 */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define BL_SANITIZED	1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(BL_SANITIZED)
#define BL_SANITIZED	1
#endif

struct bl_req;

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
	int		 has_commit;	/* 0: stored before key commitments */
	unsigned char	 commit[BL_COMMIT_BYTES];
	int64_t		 key_slot;	/* its content's key (lib/keyslots.c); 0: unsealed */
	/* bl_store_account_secrets() only: notifications asked for (docs/NOTIFY.md) */
	char		 receipt_id[BL_RECEIPT_ID_LEN + 1];	/* "": none */
	char		 last_event[24];			/* "": none yet */
	int64_t		 last_event_ms;
};

/*
 * What bl_store_insert() writes. A FastCGI batch inserts it after the request
 * is gone: lib/secret.c copies it from the statement's parameters
 * (secret_parms()), never this struct, so a member may point into the request.
 */
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
	int			 has_commit;
	unsigned char		 commit[BL_COMMIT_BYTES];
	int64_t			 account_id;
	int64_t			 api_key_id;	/* its last_used_at is set; 0: none */
	unsigned		 notify;	/* BL_NOTIFY_* the creator asked for; 0: none */
	char			 receipt_id[BL_RECEIPT_ID_LEN + 1]; /* with notify */
	const struct bl_content	*content;
	int64_t			 key_slot;	/* set by lib/secret.c when it seals content */
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
/* config.c: a FastCGI responder keeps the settings and the install secret (lib/config.c). */
void		 bl_config_keep(int on);
void		 bl_config_batch(void);
unsigned long	 bl_config_epoch(void);
void		 bl_store_close(struct bl_store *);
const char	*bl_store_error(const struct bl_store *);

/* secret.c: the lifecycle of a secret (states, views, expiry, tombstones). */
enum bl_err	 bl_store_insert(struct bl_store *, const struct bl_new_secret *);
enum bl_err	 bl_store_lookup(struct bl_store *, const unsigned char hash[BL_HASH_BYTES],
		    int64_t at, int64_t now_ms, struct bl_secret *);
enum bl_err	 bl_store_take_counted(struct bl_store *, const unsigned char hash[BL_HASH_BYTES],
		    int64_t at, int64_t now_ms, struct bl_secret *, struct bl_content *);
enum bl_err	 bl_store_consume(struct bl_store *, int64_t id, int64_t now_ms,
		    struct bl_secret *, struct bl_content *);
enum bl_err	 bl_store_burn(struct bl_store *, int64_t id, int64_t now_ms,
		    const char *by /* "receipt", "recipient", "dashboard" */);
enum bl_err	 bl_store_cleanup(struct bl_store *, int64_t now_ms,
		    struct bl_cleanup_stats *);
enum bl_err	 bl_store_secret_get(struct bl_store *, int64_t id, struct bl_secret *);
int64_t		 bl_views_left(const struct bl_secret *);

/* The metrics' totals kept beside the rate-limit windows (lib/metrics.c). */
#define BL_METRIC_SLOTS	256
#define BL_VERSION	"0.1.0"		/* burnlink_build_info's version (cli/package.json's) */

/* The endpoints an answer is counted under (burnlink_http_requests_total). */
enum bl_endpoint {
	BL_EP_UNKNOWN = 0,	/* a path under /api/ that is no endpoint */
	BL_EP_CREATE,
	BL_EP_METADATA,
	BL_EP_RETRIEVE,
	BL_EP_DELETE,
	BL_EP_SESSION,
	BL_EP_SIGNUP,
	BL_EP_PASSWORD,
	BL_EP_KEYS,
	BL_EP_WEBHOOKS,
	BL_EP_EMAIL,
	BL_EP_TOKEN,
	BL_EP_MYSECRETS,
	BL_EP_CONFIG,
	BL_EP_HEALTH,
	BL_EP_REQUESTS,
	BL_EP_METRICS,
	BL_EP_MYEVENTS,
	BL_EP_ADMIN,		/* every route under /api/admin/ ("admin_...") */
	BL_EP__MAX		/* at most 20: the slots of lib/metrics.c */
};

/*
 * The kinds of event: what the audit trail records (lib/audit.c) and
 * burnlink_events_total counts (lib/metrics.c), one row each in lib/events.c
 * (its name, its object, what it means). New ones at the end: a kind's
 * number is its metrics slot, and a slot's meaning never changes.
 */
enum bl_event {
	BL_EV_NONE = 0,
	BL_EV_SECRET_CREATED,
	BL_EV_SECRET_VIEWED,
	BL_EV_SECRET_BURNED,
	BL_EV_REQUEST_CREATED,
	BL_EV_REQUEST_ANSWERED,
	BL_EV_REQUEST_READ,
	BL_EV_REQUEST_BURNED,
	BL_EV_SIGNED_IN,
	BL_EV_SIGNIN_REFUSED,
	BL_EV_SIGNED_OUT,
	BL_EV_SIGNED_UP,
	BL_EV_PASSWORD_CHANGED,
	BL_EV_KEY_CREATED,
	BL_EV_KEY_REVOKED,
	/* issue 32: the audit trail */
	BL_EV_SECRET_EXHAUSTED,
	BL_EV_SECRET_PASS_REFUSED,
	BL_EV_SECRET_LIMITED,
	BL_EV_SECRET_EXPIRED,
	BL_EV_SECRET_REMOVED,
	BL_EV_REQUEST_REMOVED,
	BL_EV_EMAIL_CHANGED,
	BL_EV_TOTP_CHANGED,
	BL_EV_ACCOUNT_DISABLED,
	BL_EV_KEY_USED,
	BL_EV_WEBHOOK_CREATED,
	BL_EV_WEBHOOK_DELETED,
	BL_EV_WEBHOOK_FAILING,
	BL_EV_ADMIN,
	BL_EV__MAX		/* at most 64 */
};

/*
 * audit.c: the audit trail's events, written inside the caller's
 * transaction by the store's actor (bl_st_who(), the context's who):
 * bl_audit() for any object, bl_audit_secret() for a secret (its receipt id
 * read with it; who NULL: the store's), bl_audit_alone() in a transaction
 * of its own. bl_audit_who_set() makes a request's caller the actor.
 */
enum bl_err	 bl_audit(struct bl_store *, enum bl_event, int64_t owner, int64_t object,
		    const char *receipt_id, const char *outcome, const char *detail);
enum bl_err	 bl_audit_secret(struct bl_store *, const struct bl_audit_who *,
		    enum bl_event, int64_t owner, int64_t id, const char *outcome,
		    const char *detail);
enum bl_err	 bl_store_session_end(struct bl_store *, int64_t id, int64_t account_id);
enum bl_err	 bl_audit_alone(struct bl_store *, enum bl_event, int64_t owner,
		    int64_t object, const char *receipt_id, const char *outcome,
		    const char *detail);
int64_t		 bl_audit_mark(struct bl_store *);
enum bl_err	 bl_audit_mirror_since(struct bl_store *, int64_t mark, enum bl_event,
		    enum bl_event, int64_t at_ms, int64_t object);
void		 bl_audit_who_set(struct bl_ctx *, int64_t account_id, int64_t api_key_id,
		    const char *client_ip);

/*
 * metrics.c: the totals counted as answers leave, limits are hit and cleanup
 * runs (never failing what they count), and the body of GET /api/metrics.
 */
enum bl_endpoint bl_metric_endpoint(const char *route_name);
void		 bl_metrics_answer(struct bl_ctx *, enum bl_endpoint, int method, int item,
		    int status, enum bl_event);
void		 bl_metrics_limit(struct bl_ctx *, enum bl_limit);
int64_t		 bl_metrics_events(struct bl_ctx *);
void		 bl_metrics_cleanup(struct bl_ctx *, const struct bl_cleanup_stats *);
void		 bl_metrics_defer(int on);	/* FastCGI: added once per batch */
void		 bl_metrics_flush(struct bl_store *counters);
char		*bl_metrics_text(struct bl_ctx *, size_t *len, enum bl_err *);
int		 bl_client_listed(struct bl_ctx *, const char *peer, const char *xff,
		    const char *list);

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
enum bl_err	 bl_counter_bump(struct bl_store *, const unsigned *slots, int n, int64_t by);
enum bl_err	 bl_counter_totals(struct bl_store *, int64_t out[BL_METRIC_SLOTS]);
enum bl_err	 bl_counter_occupancy(struct bl_store *, int64_t now, int64_t *used,
		    int64_t *capacity /* -1: none fixed */);

/*
 * What GET /api/metrics reads from the database at scrape time (lib/metrics.c):
 * secrets and secret requests by state (a row past its expiry counted as
 * expired), accounts, API keys, the outbox's waiting rows and the oldest's
 * time (-1: none), the database's size.
 */
struct bl_gauges {
	int64_t	 secrets[4];	/* active expired burned exhausted */
	int64_t	 requests[5];	/* waiting answered read expired burned */
	int64_t	 accounts;
	int64_t	 keys_valid;
	int64_t	 keys_revoked;
	int64_t	 outbox_pending;
	int64_t	 outbox_oldest_ms;
	int64_t	 db_bytes;
};
enum bl_err	 bl_store_gauges(struct bl_store *, int64_t now_ms, struct bl_gauges *);

/* The gauges with the limiter's occupancy and the last cleanup (bl_metrics_read()). */
struct bl_overview {
	struct bl_gauges g;
	int64_t	 limiter_used;		/* live rate-limit windows */
	int64_t	 limiter_cap;		/* -1: none fixed */
	int64_t	 cleanup_last_ms;	/* -1: no record */
	int64_t	 cleanup_took_ms;	/* -1: no record */
};
enum bl_err	 bl_metrics_read(struct bl_ctx *, struct bl_overview *);

/*
 * request.c: the lifecycle of a secret request (docs/API.md, "Secret
 * requests"): waiting until one answer (answered), which is read once (read),
 * or expired, or burned by either key. The answer is a one-view secret row
 * (lib/secret.c) that only the request points to; every change locks the
 * request row and re-checks its state in one transaction.
 */
#define BL_POINT_BYTES	65	/* an uncompressed P-256 point */

enum bl_rstate {
	BL_RQ_WAITING = 0,
	BL_RQ_ANSWERED = 1,
	BL_RQ_READ = 2,
	BL_RQ_EXPIRED = 3,
	BL_RQ_BURNED = 4
};

struct bl_request {
	int64_t		 id;
	enum bl_rstate	 state;
	int		 by_inbox;	/* the lookup matched the inbox key */
	int64_t		 created_ms;
	int64_t		 expires_ms;
	int64_t		 answered_ms;	/* -1: not answered */
	int64_t		 read_ms;	/* -1: not read */
	int		 allow_files;
	int		 has_public_key;	/* gone once the request ends */
	unsigned char	 public_key[BL_POINT_BYTES];
	int64_t		 answer_id;	/* the answer's secret row, 0: none */
	int		 has_answer_key;
	unsigned char	 answer_key[BL_POINT_BYTES];	/* the sender's ephemeral key */
};

struct bl_new_request {
	unsigned char	 request_hash[BL_HASH_BYTES];
	unsigned char	 inbox_hash[BL_HASH_BYTES];
	int64_t		 created_ms;
	int64_t		 expires_ms;
	int		 allow_files;
	unsigned char	 public_key[BL_POINT_BYTES];
	const struct bl_item *note;	/* NULL: none */
};

enum bl_err	 bl_request_insert(struct bl_store *, const struct bl_new_request *);
enum bl_err	 bl_request_lookup(struct bl_store *, const unsigned char hash[BL_HASH_BYTES],
		    int64_t now_ms, struct bl_request *, struct bl_item *note);
enum bl_err	 bl_request_answer(struct bl_store *, int64_t id, int64_t now_ms,
		    const unsigned char ephemeral[BL_POINT_BYTES], const struct bl_content *);
enum bl_err	 bl_request_read(struct bl_store *, int64_t id, int64_t now_ms,
		    struct bl_request *, struct bl_content *);
enum bl_err	 bl_request_burn(struct bl_store *, int64_t id, int64_t now_ms);
enum bl_err	 bl_request_state_err(enum bl_rstate, int by_inbox);
const char	*bl_request_state_name(enum bl_rstate);

/* account_store.c: accounts, API keys, passwords, sessions and an account's secrets. */
enum bl_err	 bl_store_account_secrets(struct bl_store *, int64_t account_id,
		    int64_t max, int (*cb)(void *, const struct bl_secret *), void *);
enum bl_err	 bl_store_account_create(struct bl_store *, const char *name,
		    int64_t now_ms, int64_t *id);
enum bl_err	 bl_store_account_get(struct bl_store *, int64_t id, const char *name,
		    struct bl_account *);
enum bl_err	 bl_store_account_page(struct bl_store *, const char *pattern, int64_t after,
		    int64_t max, int (*cb)(void *, const struct bl_account *), void *);
enum bl_err	 bl_store_account_admin(struct bl_store *, int64_t id, int admin);
enum bl_err	 bl_store_account_admins(struct bl_store *, int64_t *n);
enum bl_err	 bl_store_account_disable(struct bl_store *, int64_t id, int64_t now_ms);
enum bl_err	 bl_store_account_delete(struct bl_store *, int64_t id, int64_t now_ms);
enum bl_err	 bl_store_webhook_owner(struct bl_store *, int64_t id, int64_t *account_id);
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
enum bl_err	 bl_store_key_delete(struct bl_store *, int64_t account_id, int64_t id);

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
	int		 via;		/* how it was signed in: BL_VIA_* */
};
#define BL_VIA_PASSWORD		0	/* e-mail and password (and a second factor) */
#define BL_VIA_WEBSERVER	1	/* the web server's REMOTE_USER (docs/ACCOUNTS.md) */
enum bl_err	 bl_store_account_setup(struct bl_store *, const char *name,
		    const unsigned char hash[BL_PASSHASH_BYTES], int64_t now, int64_t *id);
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
		    int64_t now_ms, int via, int64_t *id);
enum bl_err	 bl_store_session_find(struct bl_store *,
		    const unsigned char hash[BL_HASH_BYTES], struct bl_session *);
enum bl_err	 bl_store_session_touch(struct bl_store *, int64_t id, int64_t now_ms);
enum bl_err	 bl_store_session_delete(struct bl_store *, int64_t id);
enum bl_err	 bl_store_session_prune(struct bl_store *, int64_t seen_before_ms,
		    int64_t created_before_ms);

/* The second factor of a password account (account_store.c; lib/totp.c). */
#define BL_TOTP_KEY_BYTES	20	/* RFC 4226's recommended 160 bits */
#define BL_RECOVERY_CODES	10
struct bl_totp {
	unsigned char	 ct[BL_TOTP_KEY_BYTES + BL_TAG_BYTES];	/* AES-256-GCM || tag */
	size_t		 ctlen;
	unsigned char	 iv[BL_IV_BYTES];
	int64_t		 confirmed_ms;	/* -1: enrolment pending */
	int64_t		 last_step;	/* -1: no code used yet */
};
enum bl_err	 bl_store_totp_get(struct bl_store *, int64_t account_id, struct bl_totp *);
enum bl_err	 bl_store_totp_put(struct bl_store *, int64_t account_id, const struct bl_totp *,
		    int64_t now_ms);
enum bl_err	 bl_store_totp_confirm(struct bl_store *, int64_t account_id, int64_t step,
		    int64_t now_ms, const unsigned char (*codes)[BL_HASH_BYTES], size_t n);
enum bl_err	 bl_store_totp_step(struct bl_store *, int64_t account_id, int64_t step);
enum bl_err	 bl_store_recovery_use(struct bl_store *, int64_t account_id,
		    const unsigned char hash[BL_HASH_BYTES], int64_t now_ms);
enum bl_err	 bl_store_recovery_left(struct bl_store *, int64_t account_id, int64_t *n);
enum bl_err	 bl_store_totp_delete(struct bl_store *, int64_t account_id);

/*
 * outbox.c: notifications (docs/NOTIFY.md). Events are written by secret.c in
 * the transaction of their change; these are the account's webhooks, its
 * e-mail address, and what cron/notify claims and settles.
 */
struct bl_webhook {
	int64_t		 id;
	char		 url[BL_WEBHOOK_URL_MAX + 1];
	unsigned	 events;		/* BL_EV_* */
	int64_t		 created_ms;
	int64_t		 last_status;		/* -1: no delivery tried yet */
};
struct bl_delivery {
	int64_t		 id;
	char		 kind[32];
	char		 receipt_id[BL_RECEIPT_ID_LEN + 1];
	int		 state;			/* 0 pending, 1 sent, 2 dropped */
	int64_t		 attempts;
	int64_t		 status;		/* -1: none yet */
	char		 error[128];
	int64_t		 occurred_ms, done_ms, next_ms;
};
struct bl_email {
	char		 email[BL_EMAIL_MAX + 1];
	int64_t		 verified_ms;		/* -1: not verified */
	int		 token_kind;		/* BL_TOKEN_*; 0: none pending */
	int64_t		 token_expires_ms;
};
enum bl_err	 bl_store_webhook_insert(struct bl_store *, int64_t account_id,
		    const char *url, unsigned events, const char *secret, int64_t now_ms,
		    int max, int64_t *id);
enum bl_err	 bl_store_webhook_list(struct bl_store *, int64_t account_id,
		    int (*cb)(void *, const struct bl_webhook *), void *);
enum bl_err	 bl_store_webhook_delete(struct bl_store *, int64_t account_id, int64_t id);
enum bl_err	 bl_store_webhook_test(struct bl_store *, int64_t account_id, int64_t id,
		    int64_t now_ms);
enum bl_err	 bl_store_deliveries(struct bl_store *, int64_t account_id, int64_t webhook_id,
		    int64_t max, int (*cb)(void *, const struct bl_delivery *), void *);
enum bl_err	 bl_store_email_get(struct bl_store *, int64_t account_id, struct bl_email *);
enum bl_err	 bl_store_email_find(struct bl_store *, const char *email_lower,
		    int password_only, int64_t *account_id);
enum bl_err	 bl_store_email_token(struct bl_store *, int64_t account_id, const char *email,
		    int kind, const unsigned char hash[BL_HASH_BYTES], const char *token,
		    int64_t expires_ms, int64_t now_ms);
enum bl_err	 bl_email_token_issue(struct bl_store *, int64_t account_id, const char *email,
		    int kind, int64_t now_ms);
enum bl_err	 bl_store_email_assign(struct bl_store *, int64_t account_id, const char *email,
		    int64_t now);
enum bl_err	 bl_store_email_provider(struct bl_store *, int64_t account_id, const char *email,
		    int64_t now, int *what);
enum bl_err	 bl_store_reset_request(struct bl_store *, const char *email_lower, int64_t now);
enum bl_err	 bl_store_reset_issue(struct bl_store *, int64_t account_id,
		    const unsigned char hash[BL_HASH_BYTES], int64_t expires, int64_t now);
enum bl_err	 bl_store_reset_void(struct bl_store *, int64_t account_id);
enum bl_err	 bl_store_email_redeem(struct bl_store *, const unsigned char hash[BL_HASH_BYTES],
		    int kind, int64_t now_ms, int64_t *account_id,
		    const unsigned char *pass_hash /* reset: the new password */);

/* What cron/notify claims: the outbox rows of one lease (lib/notify.c delivers them). */
struct bl_outbox_item {
	int64_t		 id;
	int64_t		 account_id;
	char		 receipt_id[BL_RECEIPT_ID_LEN + 1];	/* "": none */
	char		 kind[32];
	int		 channel;		/* 1 e-mail, 2 webhook */
	int64_t		 webhook_id;
	int64_t		 views_left;		/* -1: unlimited */
	char		 detail[BL_EMAIL_MAX + 1];	/* burned by; a token; an address replaced */
	int64_t		 occurred_ms;
	int64_t		 attempts;		/* this one included */
	char		 url[BL_WEBHOOK_URL_MAX + 1];	/* "": the webhook is gone */
	char		 secret[64];
	char		 email[BL_EMAIL_MAX + 1];
	int		 verified;
};
struct bl_claim {
	unsigned char		 token[16];
	struct bl_outbox_item	*items;
	size_t			 n, max;
	int			 mail_only;	/* account mail (verification, reset) only */
};
enum bl_err	 bl_store_outbox_claim(struct bl_store *, int64_t now_ms, int64_t lease_ms,
		    struct bl_claim *);
enum bl_err	 bl_store_outbox_finish(struct bl_store *, const struct bl_claim *, int64_t id,
		    int state, int64_t status, const char *error, int64_t now_ms, int64_t next_ms);
enum bl_err	 bl_store_outbox_defer(struct bl_store *, const struct bl_claim *, int64_t id,
		    const char *why, int64_t next_ms);
enum bl_err	 bl_store_outbox_sent(struct bl_store *, int64_t account_id, int64_t since_ms,
		    int64_t *n);

/* content.c: freeing (and wiping) what a secret's content holds. */
void		 bl_content_free(struct bl_content *);
void		 bl_item_free(struct bl_item *);

/* json.c: request body parsing and the create request. */
enum bl_err	 bl_json_parse(struct bl_req *);
void		 bl_json_wipe(json_object *);
json_object	*bl_json_item(struct bl_item *);
int		 bl_json_add_content(json_object *, struct bl_content *);
int		 bl_json_add(json_object *, const char *, json_object *);
int		 bl_json_add_null(json_object *, const char *);
int		 bl_json_add_time(json_object *, const char *, int64_t ms);

struct bl_create {
	int		 server_side;
	int64_t		 ttl;
	int64_t		 max_views;	/* -1 unlimited */
	int		 deletable;
	unsigned	 notify;	/* BL_NOTIFY_* */
	const char	*pass;		/* points into the request JSON */
	size_t		 pass_len;
	int		 has_commit;	/* keyCommitment sent, or made from dkey */
	unsigned char	 commit[BL_COMMIT_BYTES];
	struct bl_content content;	/* encrypted when parsing is done */
	unsigned char	 dkey[32];	/* server-side key, wiped after use */
};
enum bl_err	 bl_create_parse(struct bl_req *, struct bl_create *);
enum bl_err	 bl_json_sealed(struct bl_req *, json_object *, const char *what, enum bl_field,
		    struct bl_item *);
void		 bl_create_free(struct bl_create *);

/*
 * The layers, from the bottom, are the table of scripts/layers.txt (what each
 * holds: docs/HACKING.md); scripts/layers.sh checks that no unit calls one
 * above its own: base, formats, storage, domain, http, handlers, serve.
 */

/* error.c: the error of a state that is not active, and the state's name. */
enum bl_err	 bl_state_err(enum bl_state);
const char	*bl_state_name(enum bl_state);

/* config.c: the per-install secret; err says why it could not be had. */
enum bl_err	 bl_config_install_key(const struct bl_config *, unsigned char key[32],
		    char *err, size_t errlen);

/* auth.c: a sign-in password has 8 to 256 characters of valid UTF-8. */
int		 bl_password_valid(const char *, size_t);

enum bl_method {
	BL_M_OTHER = 0,
	BL_M_GET,
	BL_M_HEAD,
	BL_M_POST,
	BL_M_DELETE
};
#define BL_MASK(m)	(1u << (m))

/* The rate-limit window that the response headers describe. */
struct bl_ratelimit {
	int		set;
	int64_t		limit;
	int64_t		remaining;
	int64_t		reset;		/* Unix seconds */
};

/* The request's browser session (lib/account.c); found 0 without a live one. */
struct bl_sess {
	int			 found;
	int			 disabled;	/* found 0: its account is disabled */
	struct bl_session	 s;
	unsigned char		 hash[BL_HASH_BYTES];	/* SHA-256 of the session id */
	struct bl_account	 account;
};

/*
 * Everything one request owns; freed (and wiped) by bl_req_free(). What lives
 * longer (configuration, stores, install secret, clock) is the context it
 * borrows. The preamble (lib/serve.c) fills key, item_id, session and the
 * creator before the handler runs.
 */
struct bl_req {
	const struct bl_io	*io;
	struct bl_ctx		*ctx;		/* borrowed from the serve layer */
	char			 id[25];	/* "req_" + 20 url-safe base64 */
	enum bl_method		 method;
	char			 key[BL_KEY_LEN + 1]; /* from PATH_INFO, "" if none */
	int64_t			 item_id;	/* /<id> of a collection, 0 if none */
	char			*body;		/* NUL-terminated, wiped on free */
	size_t			 body_len;
	json_object		*json;		/* parsed body, or NULL */
	char			 client_ip[BL_IP_TEXT]; /* textual, after proxy rules */
	int64_t			 now_ms;	/* the context's clock */
	struct bl_ratelimit	 rl;
	long			 retry_after;	/* seconds, 0 for none */
	const char		*allow;		/* Allow header on 405 */
	char			 hint[512];	/* overrides the table's hint */
	int			 responded;
	const char		*cache_control;	/* NULL: no-store */
	struct bl_store		*store;		/* the context's, once bl_req_store() opened it */
	char			 set_cookie[192]; /* Set-Cookie value, "" for none */
	struct bl_sess		 session;	/* the signed-in session, if loaded */
	int64_t			 account_id;	/* the creator's account (0: anonymous) */
	int64_t			 api_key_id;	/* the creator's API key (0: none) */
	enum bl_endpoint	 endpoint;	/* what the answer is counted under */
	int			 item;		/* the path named an item (after the route's) */
	enum bl_event		 event;		/* set by a handler; else lib/metrics.c's table */
	const char		*content_type;	/* NULL: JSON */
};

/* log.c: the log line of a request, and the hint of the error it will answer. */
void		 bl_log(const struct bl_req *, const char *fmt, ...)
		    __attribute__((format(printf, 2, 3)));
enum bl_err	 bl_req_fail(struct bl_req *, enum bl_err, const char *fmt, ...)
		    __attribute__((format(printf, 3, 4)));

/*
 * http.c: the request in (method, key, body) and the one output path. It
 * never opens, commits or checkpoints a store itself: bl_req_store() and the
 * limits go through the context (lib/ctx.c).
 */
extern const struct bl_io bl_cgi_io;	/* stdin, stdout and the environment */
enum bl_err	 bl_req_init(struct bl_req *, const struct bl_io *, struct bl_ctx *);
void		 bl_req_free(struct bl_req *);
enum bl_err	 bl_req_method(struct bl_req *, unsigned mask, const char *allow);
enum bl_err	 bl_req_key(struct bl_req *);
int		 bl_req_item(const struct bl_req *);
int64_t		 bl_req_item_id(const struct bl_req *);
int		 bl_req_query(const struct bl_req *, const char *name, char *out, size_t len);
enum bl_err	 bl_req_read_body(struct bl_req *, int required);
void		 bl_req_drain(struct bl_req *);
const char	*bl_req_env(const struct bl_req *, const char *);
enum bl_err	 bl_req_store(struct bl_req *);
enum bl_err	 bl_req_install_key(struct bl_req *);
enum bl_err	 bl_respond_json(struct bl_req *, int status, json_object *, int failed);
enum bl_err	 bl_respond_fields(struct bl_req *, int success, const char *, json_object *,
		    const char *, json_object *);
enum bl_err	 bl_req_logged(struct bl_req *, enum bl_err);	/* a store failure logged */
int		 bl_respond_text(struct bl_req *, int status, const char *, size_t);
char		*bl_json_text(json_object *, size_t *len);
int		 bl_respond_error(struct bl_req *, enum bl_err);
int		 bl_respond_detached(const struct bl_io *, const char *id, enum bl_err,
		    const char *hint);
enum bl_err	 bl_limit_take(struct bl_req *, enum bl_limit, const void *subject,
		    size_t len, int64_t *remaining);
enum bl_err	 bl_limit_request(struct bl_req *, enum bl_limit);
enum bl_err	 bl_limit_creator(struct bl_req *, int64_t account_id, int by_key);

/*
 * An endpoint, declared once (lib/route.c), and what each of its methods
 * needs before its handler runs. The preamble (lib/serve.c) does it in one
 * order for every endpoint: count the request against the route's per-IP
 * limit (so every answer, a 405 too, carries X-RateLimit-*), the method
 * (405), who asks (creator, session: 401), what the path names (404), the
 * origin and CSRF checks (403), whether the endpoint is open (403), the body
 * (400, 413, 415); then the handler.
 */
enum bl_path {
	BL_PATH_NONE = 0,	/* no path: any PATH_INFO is 404 (an unknown endpoint) */
	BL_PATH_KEY,		/* "/<22-character key>", else 404 NOT_FOUND */
	BL_PATH_ITEM,		/* the collection, or "/<id>" of one of its items */
	BL_PATH_KEY_ITEM	/* the collection, or "/<22-character key>" (else 404 NOT_FOUND) */
};

#define BL_NEED_CREATOR		0x01u	/* API key, else session + CSRF; creator limits */
#define BL_NEED_SESSION		0x02u	/* a live session, else 401 NOT_SIGNED_IN */
#define BL_NEED_SESSION_OPT	0x04u	/* the session, if the browser has one */
#define BL_NEED_ORIGIN		0x08u	/* a browser request from this site only */
#define BL_NEED_CSRF		0x10u	/* origin and the session's X-CSRF-Token */
#define BL_NEED_BODY		0x20u	/* a JSON body, required */
#define BL_NEED_BODY_OPT	0x40u	/* a JSON body, if one was sent */

struct bl_action {
	unsigned	 methods;	/* BL_MASK() of the methods it answers */
	int		 item;		/* BL_PATH_ITEM: 1 for "/<id>", 0 for the collection */
	unsigned	 needs;		/* BL_NEED_* */
	enum bl_err	(*handler)(struct bl_req *);
	int		 own_limit;	/* 1: counted by limit, not by the route's */
	enum bl_limit	 limit;
};

#define BL_ACTIONS_MAX	5

/*
 * A route counts each request against its limit first and answers 503
 * CONFIG_INVALID while the settings file is invalid, unless its flags say:
 */
#define BL_ROUTE_NOT_PRECOUNTED	0x01u	/* not counted first: config (opens no store), health (counts itself) */
#define BL_ROUTE_PROBE		0x02u	/* answers with invalid settings too (health) */
#define BL_ROUTE_FALLBACK	0x04u	/* its program answers every other path under /api/ */
#define BL_ROUTE_QUERY		0x08u	/* reads QUERY_STRING: the servers' routing passes it on */

struct bl_route {
	const char	*name;		/* the program, cgi-bin/<name>; for log lines */
	const char	*url;		/* its path: "/api/secrets" (+ "/<key>" by .path) */
	enum bl_limit	 limit;		/* the per-IP daily limit counted first */
	enum bl_path	 path;
	const char	*allow;		/* the Allow header of a 405 */
	const char	*allow_item;	/* BL_PATH_ITEM: the Allow header for "/<id>" */
	enum bl_err	 bad_item;	/* BL_PATH_ITEM: a "/<id>" that is not one */
	int		(*open)(const struct bl_req *);	/* NULL: always open */
	/* NULL: always; when it says no, answered as a path that is no endpoint */
	int		(*visible)(struct bl_req *);
	enum bl_err	 closed;	/* when open() says no */
	unsigned	 flags;		/* BL_ROUTE_* */
	struct bl_action actions[BL_ACTIONS_MAX];
};

/* route.c: every route, NULL-terminated (for scripts/routes-gen.c). */
extern const struct bl_route *const bl_routes[];

/* ops.c: the four secret handlers; each writes its own success response. */
enum bl_err	 bl_op_create(struct bl_req *);
enum bl_err	 bl_op_metadata(struct bl_req *);
enum bl_err	 bl_op_retrieve(struct bl_req *);
enum bl_err	 bl_op_burn(struct bl_req *);
enum bl_err	 bl_check_passphrase(struct bl_req *, const struct bl_secret *,
		    const unsigned char secret_hash[BL_HASH_BYTES]);
int		 bl_site_url(struct bl_req *, char **out);

/* admin.c: the operator's API under /api/admin/ (docs/API.md, "The operator's API"). */
int		 bl_admin_open(const struct bl_req *);
enum bl_err	 bl_op_admin_overview(struct bl_req *);		/* GET /api/admin/overview */
enum bl_err	 bl_op_admin_accounts_list(struct bl_req *);	/* GET /api/admin/accounts */
enum bl_err	 bl_op_admin_account_create(struct bl_req *);	/* POST /api/admin/accounts */
enum bl_err	 bl_op_admin_account_get(struct bl_req *);	/* GET /api/admin/accounts/<id> */
enum bl_err	 bl_op_admin_account_act(struct bl_req *);	/* POST /api/admin/accounts/<id> */
enum bl_err	 bl_op_admin_account_delete(struct bl_req *);	/* DELETE /api/admin/accounts/<id> */
enum bl_err	 bl_op_admin_keys_list(struct bl_req *);	/* GET /api/admin/keys */
enum bl_err	 bl_op_admin_key_revoke(struct bl_req *);	/* DELETE /api/admin/keys/<id> */
enum bl_err	 bl_op_admin_webhooks_list(struct bl_req *);	/* GET /api/admin/webhooks */
enum bl_err	 bl_op_admin_webhook_delete(struct bl_req *);	/* DELETE /api/admin/webhooks/<id> */
enum bl_err	 bl_op_admin_client_get(struct bl_req *);	/* GET /api/admin/clients */
enum bl_err	 bl_op_admin_client_set(struct bl_req *);	/* POST /api/admin/clients */
enum bl_err	 bl_op_admin_activity(struct bl_req *);		/* GET /api/admin/activity */

/* account.c: the account handlers, and the preamble's session and CSRF steps. */
enum bl_err	 bl_op_session_get(struct bl_req *);	/* GET, HEAD /api/session */
enum bl_err	 bl_op_sign_in(struct bl_req *);	/* POST /api/session */
enum bl_err	 bl_op_sign_out(struct bl_req *);	/* DELETE /api/session */
enum bl_err	 bl_op_signup(struct bl_req *);		/* POST /api/signup */
enum bl_err	 bl_op_setup_get(struct bl_req *);	/* GET /api/setup */
enum bl_err	 bl_op_setup(struct bl_req *);		/* POST /api/setup */
enum bl_err	 bl_op_password(struct bl_req *);	/* POST /api/password */
enum bl_err	 bl_op_keys_list(struct bl_req *);	/* GET /api/keys */
enum bl_err	 bl_op_key_create(struct bl_req *);	/* POST /api/keys */
enum bl_err	 bl_op_key_revoke(struct bl_req *);	/* DELETE /api/keys/<id> */
enum bl_err	 bl_op_my_list(struct bl_req *);	/* GET /api/my/secrets */
enum bl_err	 bl_op_my_burn(struct bl_req *);	/* DELETE /api/my/secrets/<id> */
enum bl_err	 bl_op_my_events(struct bl_req *);	/* GET /api/my/events */
int		 bl_signup_open(const struct bl_req *);
enum bl_err	 bl_session_webserver(struct bl_req *, const struct bl_account *);

enum bl_err	 bl_count_signin(struct bl_req *, const char *name);
enum bl_err	 bl_password_verify(struct bl_req *, const struct bl_account *, const char *,
		    size_t, int *ok);

/* totp.c: the second factor of password accounts (docs/ACCOUNTS.md). */
enum bl_err	 bl_totp_signin(struct bl_req *, const struct bl_account *);
enum bl_err	 bl_op_totp_get(struct bl_req *);	/* GET /api/totp */
enum bl_err	 bl_op_totp_post(struct bl_req *);	/* POST /api/totp: enrol, confirm */
enum bl_err	 bl_op_totp_delete(struct bl_req *);	/* DELETE /api/totp */

/* websignin.c: sign-in through the web server's REMOTE_USER (docs/ACCOUNTS.md). */
enum bl_err	 bl_op_sign_in_webserver(struct bl_req *);	/* POST /api/session {webServer} */
const char	*bl_webserver_user(const struct bl_req *);
int		 bl_webserver_is(const struct bl_req *, const struct bl_account *);

/* instance_ops.c: what the instance allows, and whether it is healthy. */
enum bl_err	 bl_op_config(struct bl_req *);		/* GET, HEAD /api/config */
enum bl_err	 bl_op_health(struct bl_req *);		/* GET, HEAD /api/health */
enum bl_err	 bl_op_version(struct bl_req *);	/* GET, HEAD /api/version */

/* validate.c: an e-mail address, checked and lower-cased (sign-up, /api/email, burnlink-admin). */
int		 bl_email_normalise(const char *, size_t, char out[BL_EMAIL_MAX + 1]);
enum bl_err	 bl_op_metrics(struct bl_req *);		/* GET, HEAD /api/metrics */
int		 bl_metrics_visible(struct bl_req *);	/* the token or an allowed network */

/* request_ops.c: the secret request handlers (docs/API.md, "Secret requests"). */
enum bl_err	 bl_op_request_create(struct bl_req *);	/* POST /api/requests */
enum bl_err	 bl_op_request_get(struct bl_req *);	/* GET, HEAD /api/requests/<key> */
enum bl_err	 bl_op_request_post(struct bl_req *);	/* POST: answer, or read the answer */
enum bl_err	 bl_op_request_burn(struct bl_req *);	/* DELETE /api/requests/<key> */
enum bl_err	 bl_account_confirm(struct bl_req *, const char *pw, size_t len);
void		 bl_signin_clear(struct bl_req *, int64_t account_id);

/* accmail.c: the mail accounts need: address verification, password reset (docs/NOTIFY.md). */
enum bl_err	 bl_op_email_get(struct bl_req *);	/* GET /api/email */
enum bl_err	 bl_op_email_set(struct bl_req *);	/* POST /api/email */
enum bl_err	 bl_op_token(struct bl_req *);		/* POST /api/token */

/* webhook.c: an account's webhooks (docs/NOTIFY.md). */
enum bl_err	 bl_op_webhooks_list(struct bl_req *);	/* GET /api/webhooks */
enum bl_err	 bl_op_webhook_create(struct bl_req *);	/* POST /api/webhooks */
enum bl_err	 bl_op_webhook_get(struct bl_req *);	/* GET /api/webhooks/<id> */
enum bl_err	 bl_op_webhook_item(struct bl_req *);	/* POST (test), DELETE /api/webhooks/<id> */
enum bl_err	 bl_session_load(struct bl_req *, struct bl_sess *);
enum bl_err	 bl_check_origin(struct bl_req *);
enum bl_err	 bl_check_csrf(struct bl_req *, const struct bl_sess *);
enum bl_err	 bl_auth_request(struct bl_req *, int64_t *account_id, int64_t *key_id);
enum bl_err	 bl_req_creator(struct bl_req *);

/*
 * serve.c, fcgi.c: process lifetimes. The stores a FastCGI responder keeps
 * open from one request to the next, with the paths they were opened for (a
 * request whose configuration names other files gets its own).
 */
struct bl_keep {
	struct bl_store	*store;
	char		*db_path;
	struct bl_store	*counters;
	char		*limits_path;
	struct bl_ctx	*lent;		/* the context they are lent to, during a request */
	int		 batch;		/* requests share one commit (fcgi.c) */
	int		 batch_failed;	/* the batch's store was lost before it */
};
void		 bl_serve_one(const struct bl_route *, const struct bl_io *,
		    struct bl_keep *, int (*confine)(struct bl_ctx *));
void		 bl_work_start(const struct bl_ctx *);
void		 bl_work_fcgi_start(void);
void		 bl_work_fcgi_note(char **);
void		 bl_work_fcgi_poke(void);
void		 bl_keep_free(struct bl_keep *);
int		 bl_fcgi_listening(void);
int		 bl_fcgi_serve(const struct bl_route *);

/*
 * The store's lifetime calls the serve layer makes (lib/store.c); a handler
 * about to spend long without the database (scrypt) flushes the batch.
 */
int		 bl_store_idle(struct bl_store *);
void		 bl_store_settle(struct bl_store *);
void		 bl_store_batch(struct bl_store *);
enum bl_err	 bl_store_batch_commit(struct bl_store *);
void		 bl_store_batch_flush(struct bl_store *);
unsigned long	 bl_store_batch_durable(void);
unsigned long	 bl_store_lock_waits(void);	/* waits for the responders' write lock (store_sqlite.c) */
unsigned long	 bl_store_sync_failures(void);	/* failed WAL syncs after a commit (store_sqlite.c) */
/* The hint of a 503 whose commit a failed WAL sync left visible, perhaps not durable. */
#define BL_HINT_UNSURE	"The database wrote this request but could not make it durable " \
	"(the disk failed a sync); it may or may not have taken effect. Try again."

/* prefault.c: a CGI program's first heap mapped ahead. */
void		 bl_prefault(void);

/* sandbox.c: no core dumps, and the seccomp filter (make SECCOMP=0 builds without). */
int		 bl_sandbox(void);
int		 bl_sandbox_fcgi(void);	/* also accept on fd 0 and talk over it */
int		 bl_sandbox_enabled(void);

/* webpost.c: one HTTP(S) POST for cron/notify's webhooks (docs/NOTIFY.md). */
struct sockaddr;
struct bl_webpost {
	const char	 *url;
	const char	**headers;	/* "Name: value" each */
	size_t		  nheaders;
	const char	 *body;
	const char	 *ca;		/* a CA file, or NULL: the system's authorities */
	int		  allow_http;
	long		  timeout_s;	/* of each read and write */
	const char	*(*refuse)(void *, const struct sockaddr *);	/* NULL: allowed */
	void		 *arg;
};
const char	*bl_webpost(const struct bl_webpost *, long *status, char *why, size_t);

#endif /* BL_INTERNAL_H */
