/* burnlink.h: the whole public API of libburnlink, the only header programs include. */
#ifndef BURNLINK_H
#define BURNLINK_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

/*
 * Allocation policy: check and unwind. Every function that allocates reports
 * failure (BL_ERR_INTERNAL or -1) and frees what it had; nothing aborts on a
 * failed malloc. Buffers that held keys, plaintext or passphrases are wiped with
 * bl_wipe()/bl_free_wipe() before they are released.
 */

/* Errors: one enum, one table (lib/error.c) of status, code, message and hint. */
enum bl_err {
	BL_OK = 0,
	BL_ERR_INVALID_JSON,
	BL_ERR_INVALID_TEXT,
	BL_ERR_INVALID_CONTENT,
	BL_ERR_INVALID_CONTENT_SIZE,
	BL_ERR_INVALID_TTL,
	BL_ERR_INVALID_MAX_VIEWS,
	BL_ERR_INVALID_PASSPHRASE_FORMAT,
	BL_ERR_INVALID_DELETABLE,
	BL_ERR_INVALID_FILES,
	BL_ERR_INVALID_CIPHERTEXT,
	BL_ERR_INVALID_IV,
	BL_ERR_INVALID_ENCRYPTION_MODE,
	BL_ERR_INVALID_KEY_COMMITMENT,
	BL_ERR_INVALID_API_KEY,
	BL_ERR_INVALID_PASSPHRASE,
	BL_ERR_DELETION_NOT_ALLOWED,
	BL_ERR_NOT_FOUND,
	BL_ERR_METHOD_NOT_ALLOWED,
	BL_ERR_PAYLOAD_TOO_LARGE,
	BL_ERR_UNSUPPORTED_MEDIA_TYPE,
	BL_ERR_SECRET_EXPIRED,
	BL_ERR_SECRET_BURNED,
	BL_ERR_MAX_VIEWS_REACHED,
	BL_ERR_RATE_LIMIT_EXCEEDED,
	BL_ERR_TOO_MANY_ATTEMPTS,
	BL_ERR_INTERNAL,
	BL_ERR_STORE_BUSY,
	BL_ERR_STORE_UNAVAILABLE,
	BL_ERR_RATE_LIMIT_UNAVAILABLE,
	BL_ERR_EXISTS,			/* admin: the name is taken */
	BL_ERR_INVALID_EMAIL,		/* accounts (lib/account.c) */
	BL_ERR_INVALID_PASSWORD,
	BL_ERR_INVALID_NAME,
	BL_ERR_INVALID_CREDENTIALS,
	BL_ERR_NOT_SIGNED_IN,
	BL_ERR_CSRF_REJECTED,
	BL_ERR_SIGNUP_CLOSED,
	BL_ERR_SIGNIN_OFF,		/* web-server sign-in (docs/ACCOUNTS.md) */
	BL_ERR_SIGNIN_REFUSED,
	BL_ERR_TOTP_REQUIRED,		/* the second factor (lib/totp.c) */
	BL_ERR_INVALID_CODE,
	BL_ERR_TOTP_ENABLED,
	BL_ERR_TOTP_NOT_ENABLED,
	BL_ERR_ACCOUNT_EXISTS,
	BL_ERR_KEY_NOT_FOUND,
	BL_ERR_KEY_LIMIT,
	BL_ERR_CONFIG_INVALID,		/* the settings file (lib/settings.c) */
	BL_ERR_UNHEALTHY,		/* GET /api/health */
	BL_ERR_INVALID_PUBLIC_KEY,	/* secret requests (lib/request_ops.c) */
	BL_ERR_INVALID_NOTE,
	BL_ERR_INVALID_ALLOW_FILES,
	BL_ERR_FILES_NOT_ALLOWED,
	BL_ERR_REQUEST_ANSWERED,
	BL_ERR_REQUEST_WAITING,
	BL_ERR_ANSWER_READ,
	BL_ERR_REQUEST_EXPIRED,
	BL_ERR_REQUEST_BURNED,
	BL_ERR_INVALID_NOTIFY,		/* notifications (docs/NOTIFY.md) */
	BL_ERR_INVALID_WEBHOOK,
	BL_ERR_WEBHOOK_NOT_FOUND,
	BL_ERR_WEBHOOK_LIMIT,
	BL_ERR_INVALID_TOKEN,
	BL_ERR_REQUEST_NOT_FOUND,	/* 404 NOT_FOUND of a secret request */
	BL_ERR_ENDPOINT_NOT_FOUND,	/* 404 NOT_FOUND of a path under /api/ that is no endpoint */
	BL_ERR_SCHEMA_TOO_NEW,		/* the database is newer than the programs */
	BL_ERR_INVALID_QUERY,		/* GET /api/my/events: a query parameter */
	BL_ERR_ACCOUNT_DISABLED,	/* the operator disabled the account (docs/ADMIN.md) */
	BL_ERR_NOT_ADMIN,		/* /api/admin/ without the admin role */
	BL_ERR_REAUTH_REQUIRED,		/* a destructive admin action: the password again */
	BL_ERR_ACCOUNT_NOT_FOUND,	/* /api/admin/accounts/<id> */
	BL_ERR_INVALID_ADMIN_ACTION,	/* POST /api/admin/...: action, address, filters */
	BL_ERR_SETUP_CLOSED,
	BL_ERR_INVALID_SETUP_CODE,
	BL_ERR__MAX
};

struct bl_error_info {
	int		 status;
	const char	*code;
	const char	*message;
	const char	*hint;
};

const struct bl_error_info *bl_error_info(enum bl_err);

/*
 * Limits of docs/API.md. lib/fields.c lists each with the field it bounds:
 * validation runs from that table, the error hints are formatted from it and
 * www/assets/limits.js (the page's and the CLI's) is generated from it.
 */
#define BL_MAX_PLAINTEXT	2097152		/* 2 MiB of text and file bytes */
#define BL_MAX_BODY		4194304		/* 4 MiB of JSON body */
#define BL_TTL_MIN		1800
#define BL_TTL_MAX		7776000
#define BL_TTL_DEFAULT		86400
#define BL_VIEWS_MIN		1
#define BL_VIEWS_MAX		999
#define BL_VIEWS_DEFAULT	1
#define BL_MAX_FILES		20
#define BL_PASS_MIN		4
#define BL_PASS_MAX		256
#define BL_META_MAX		255		/* bytes of a plaintext filename or mimeType */
#define BL_META_SEALED_MAX	1024		/* plaintext bytes of an encrypted one */
#define BL_ATTEMPTS_PER_MIN	5		/* per secret and client (IPv6 per /48) */
#define BL_ATTEMPTS_PER_HOUR	20		/* per secret, all clients together */
#define BL_NOTE_MAX		1024		/* plaintext bytes of a secret request's note */

/*
 * fields.c: the table of validated inputs, one row per field (and per limit a
 * hint names): its JSON type, bounds, default, what null means and its error.
 * The table holds the limits of docs/API.md; struct bl_limits holds the ones
 * a request enforces (r->cfg.limits: the table's, tightened in one place,
 * bl_limits_tighten(), by whatever configures an instance).
 */
enum bl_field {
	BL_F_CONTENT = 0,	/* text and file plaintext together */
	BL_F_BODY,		/* the JSON request body */
	BL_F_TTL,
	BL_F_MAX_VIEWS,
	BL_F_PASSPHRASE,
	BL_F_DELETABLE,
	BL_F_FILES,
	BL_F_FILENAME,		/* a plaintext one */
	BL_F_MIME_TYPE,		/* a plaintext one */
	BL_F_SEALED_META,	/* an encrypted filename or mimeType */
	BL_F_KEY_COMMITMENT,	/* 43 url-safe base64 characters (docs/API.md) */
	BL_F_EMAIL,
	BL_F_PASSWORD,
	BL_F_KEY_NAME,
	BL_F_ATTEMPTS,		/* passphrase attempts per secret and client, a minute */
	BL_F_KEYS,		/* valid API keys per account */
	BL_F_SESSION_IDLE,
	BL_F_SESSION_MAX,
	BL_F_NOTE,		/* a secret request's sealed note, its plaintext bytes */
	BL_F_ALLOW_FILES,	/* whether a request's answer may carry files */
	BL_F_NOTIFY,		/* the create field: ["email", "webhook"] */
	BL_F_WEBHOOK_URL,
	BL_F_WEBHOOKS,		/* webhooks per account */
	BL_F_NOTIFY_HOUR,	/* notification attempts per account, per hour */
	BL_F_WEBHOOK_EVENTS,	/* a webhook's events (absent: all) */
	BL_F_ADMIN_PAGE,	/* rows per page of an /api/admin/ list (limit=) */
	BL_F_ADMIN_QUERY,	/* an /api/admin/ search (q=, kind=, ip=, receipt=) */
	BL_F_ADMIN_FRESH,	/* a web-server session that may act without signing in again */
	BL_F__MAX
};

/* What a field is in JSON, and what its bounds count. */
enum bl_ftype {
	BL_FT_INTEGER = 0,	/* a number with an integral value; bounds the value */
	BL_FT_STRING,		/* a string; bounds count Unicode code points */
	BL_FT_BYTES,		/* a string; bounds count UTF-8 bytes */
	BL_FT_BOOLEAN,
	BL_FT_ARRAY,		/* bounds count items */
	BL_FT_SIZE,		/* not a member: a size in bytes */
	BL_FT_COUNT,		/* not a member: a number of things */
	BL_FT_SECONDS		/* not a member: a duration */
};

/* What a JSON null (or an absent member) means. */
enum bl_fnull {
	BL_NULL_INVALID = 0,	/* null is refused; absent is the default */
	BL_NULL_DEFAULT,	/* null and absent are the default */
	BL_NULL_UNLIMITED,	/* null means no limit (-1); absent is the default */
	BL_NULL_NONE		/* null and absent mean "none" */
};

struct bl_bounds {
	int64_t		 min;
	int64_t		 max;
	int64_t		 dflt;
};

struct bl_field_info {
	const char	*id;		/* its name in hints and www/assets/limits.js */
	const char	*member;	/* the JSON member, NULL for a limit without one */
	enum bl_ftype	 type;
	struct bl_bounds spec;		/* docs/API.md */
	enum bl_fnull	 null;
	enum bl_err	 err;
	/*
	 * err's row of the error table when err is this field's alone (status,
	 * code, message, hint; bl_error_info() reads it here), so that a field
	 * is one row; empty when err is shared, its row then in lib/error.c.
	 */
	struct bl_error_info error;
};

struct bl_limits {
	struct bl_bounds f[BL_F__MAX];
};

const struct bl_field_info *bl_field_info(enum bl_field);
void		 bl_limits_init(struct bl_limits *);
int		 bl_limits_tighten(struct bl_limits *, enum bl_field, const struct bl_bounds *);
size_t		 bl_hint_format(const struct bl_limits *, const char *tmpl, char *buf,
		    size_t len);
const char	*bl_error_hint(enum bl_err, const struct bl_limits *, char *buf, size_t len);
#define BL_KEY_LEN		22		/* url-safe base64 of 16 bytes */
#define BL_DKEY_LEN		43		/* url-safe base64 of 32 bytes */
#define BL_IV_BYTES		12
#define BL_TAG_BYTES		16
#define BL_HASH_BYTES		32
#define BL_PASSHASH_BYTES	48		/* 16-byte salt, 32-byte scrypt */
#define BL_COMMIT_BYTES		32		/* key commitment: HMAC-SHA-256 */
#define BL_COMMIT_LEN		43		/* its url-safe base64 */

/*
 * Request I/O. A handler never touches stdin, stdout or environ directly, so the
 * same handler can serve one CGI request per process or many under FastCGI.
 */
struct bl_io {
	const char	*(*getenv)(void *ctx, const char *name);
	size_t		 (*read)(void *ctx, void *buf, size_t len);	/* 0 at EOF */
	int		 (*write)(void *ctx, const void *buf, size_t len); /* 0 ok */
	void		*ctx;
};

/*
 * settings.c: the operator's policy, from the settings file (docs/ADMIN.md,
 * "The settings file"): what the limits (struct bl_limits) cannot say. A
 * fixed structure, filled without allocating.
 */
#define BL_EXPIRY_CHOICES_MAX	16
#define BL_SITE_NAME_MAX	64
#define BL_FOOTER_MAX		255
#define BL_URL_MAX		255
#define BL_VAR_MAX		64	/* the name of a CGI variable (webserver_email_var) */
#define BL_LIST_MAX		1023	/* a list setting (allowed_groups), as written */
#define BL_METRICS_TOKEN_MAX	128
#define BL_METRICS_ALLOW_MAX	511

#define BL_AUDIT_HASHED	0
#define BL_AUDIT_CLEAR	1
#define BL_AUDIT_NONE	2
#define BL_AUDIT_DAYS	30
struct bl_policy {
	int64_t	 expiry[BL_EXPIRY_CHOICES_MAX];	/* seconds, ascending: the choices offered */
	size_t	 nexpiry;
	int	 views_unlimited;	/* maxViews null (unlimited) is accepted */
	int	 views_forced;		/* maxViews.min == max: the only value */
	int	 passphrase_required;
	int	 files_allowed;
	int	 create_accounts;	/* only signed-in users and API keys create */
	int	 signup;		/* 1 open, 0 closed (BURNLINK_SIGNUP overrides) */
	char	 site_name[BL_SITE_NAME_MAX + 1];	/* "" when unset, as each below */
	char	 accent[8];		/* #rgb or #rrggbb */
	char	 logo[BL_URL_MAX + 1];
	char	 imprint[BL_URL_MAX + 1];
	char	 footer[BL_FOOTER_MAX + 1];
	char	 site_url[BL_URL_MAX + 1];	/* {site_url} when BURNLINK_SITE_URL is unset */
	/* sign-in (docs/ACCOUNTS.md, "Sign-in through the web server") */
	int	 signin_password;	/* e-mail and password sign-in and sign-up (default 1) */
	int	 signin_webserver;	/* the web server's REMOTE_USER signs people in */
	int	 webserver_create;	/* its first sign-in creates the account */
	char	 email_var[BL_VAR_MAX + 1];	/* CGI variable holding the e-mail address */
	char	 groups_var[BL_VAR_MAX + 1];	/* CGI variable holding the groups */
	char	 groups[BL_LIST_MAX + 1];	/* allowed groups, "a,b" ("": any) */
	char	 admin_groups[BL_LIST_MAX + 1];	/* groups that have the admin role ("": none) */
	char	 domains[BL_LIST_MAX + 1];	/* allowed e-mail domains, "a,b" ("": any) */
	char	 logout[BL_URL_MAX + 1];	/* the module's logout address */
	/* GET /api/metrics (docs/ADMIN.md, "Metrics"): who may read it; "" when unset */
	char	 metrics_token[BL_METRICS_TOKEN_MAX + 1];
	char	 metrics_allow[BL_METRICS_ALLOW_MAX + 1];	/* addresses and CIDR blocks */
	/* the audit trail (docs/ADMIN.md, "Audit trail"); 0 or "": the default */
	int	 audit_client;		/* BL_AUDIT_HASHED (default), _CLEAR, _NONE */
	int	 audit_days;		/* days events are kept (0: 30) */
	int	 audit_syslog;		/* each event as a JSON line to syslog */
	int	 audit_facility;	/* LOG_* (0: LOG_AUTHPRIV) */
	char	 audit_socket[108];	/* the log daemon's socket ("": /dev/log) */
	/* the page's languages are not settings: www/assets/i18n/index.json (docs/PAGE.md) */
	int	 loaded;		/* a settings file is in force */
	char	 err[512];		/* "file:line: what is wrong", "" when none */
	unsigned err_line;		/* the line of err, 0 when it is about the whole file */
};

/* Configuration, from the environment the web server passes (docs/INSTALL.md). */
struct bl_config {
	char	*db_path;		/* BURNLINK_DB */
	char	*limits_path;		/* counters store beside it */
	char	*secret_file;		/* BURNLINK_SECRET_FILE */
	char	*settings_path;		/* BURNLINK_CONFIG, else burnlink.conf beside the database */
	char	*cleanup_stamp;		/* when cron/cleanup last finished (lib/instance.c) */
	char	*notify_stamp;		/* ... cron/notify; "-cleanup" -> "-notify" */
	char	*work_lock;		/* held by the work the programs run themselves (lib/work.c) */
	int	 self_work;		/* BURNLINK_SELF_WORK is not "off" */
	char	*site_url;		/* BURNLINK_SITE_URL, else from the request */
	char	*trusted_proxies;	/* BURNLINK_TRUSTED_PROXIES */
	/*
	 * BURNLINK_ROUTES (or, through an .htaccess rewrite, REDIRECT_...): the
	 * routes' digest the web server's generated configuration was made for
	 * (scripts/routes-gen.c); "" when it does not say.
	 */
	char	 routes[24];
	struct bl_limits limits;	/* what validation enforces (lib/fields.c) */
	struct bl_policy policy;	/* the settings file's rest (lib/settings.c) */
	/*
	 * A file the programs keep that lies under DOCUMENT_ROOT, where the web
	 * server would hand it out: exposed names it ("the database"),
	 * NULL when none; exposed_err is the log line's text, with both real paths.
	 */
	const char *exposed;
	char	 exposed_err[1024];
};

struct bl_store;

/*
 * ctx.c: what serving holds apart from any one request: the configuration,
 * the stores opened for it, the install secret and the clock. The serve layer
 * owns one for each request it serves (a FastCGI responder lends it the stores
 * kept from the last request) and the request borrows it; burnlink-admin and
 * cron/cleanup set up their own and call the domain functions with it.
 */
/*
 * Who acts, for the audit trail (lib/audit.c): set for each request by the
 * preamble (lib/serve.c) and by the handlers that sign someone in, or by
 * burnlink-admin (the operator) and cron/cleanup; the store's events take
 * it. client is what audit_client keeps of the address ("" none).
 */
#define BL_AUDIT_CLIENT_MAX	64
#define BL_AUDIT_OPERATOR_MAX	32
#define BL_AUDIT_OUTCOME_MAX	15
#define BL_AUDIT_DETAIL_MAX	63
#define BL_AUDIT_KIND_MAX	31
struct bl_audit_who {
	int64_t		 account_id;	/* 0: none */
	int64_t		 api_key_id;	/* 0: none */
	char		 client[BL_AUDIT_CLIENT_MAX + 1];
	char		 operator_name[BL_AUDIT_OPERATOR_MAX + 1];	/* burnlink-admin */
	int		 syslog;	/* audit_syslog: the facility (LOG_*) */
	int		 syslog_fd;	/* its socket, opened before the sandbox; -1 off */
};

struct bl_ctx {
	struct bl_config	 cfg;
	struct bl_audit_who	 who;		/* the actor of the audit trail's events */
	struct bl_store		*store;		/* opened on first use */
	struct bl_store		*counters;	/* the rate limiter's, opened on first use */
	unsigned char		 install_key[32]; /* HMAC key of buckets and CSRF tokens */
	int			 have_install_key;
	int64_t			 now_ms;	/* fixed when it is set up */
	char			 log_id[25];	/* the request id of log lines; "" outside one */
	enum bl_err		 hint_err;	/* the error hint is for (bl_ctx_store() ...) */
	char			 hint[512];	/* what the operator must do, when the stores fail */
};

/* getenv NULL: the process environment. 0 on success, -1 out of memory. */
int		 bl_ctx_init(struct bl_ctx *, const char *(*getenv)(void *, const char *),
		    void *arg);
void		 bl_ctx_free(struct bl_ctx *);
void		 bl_ctx_exit(struct bl_ctx *);
enum bl_err	 bl_ctx_store(struct bl_ctx *);
void		 bl_ctx_hint(struct bl_ctx *, enum bl_err, const char *);
enum bl_err	 bl_ctx_unreachable(struct bl_ctx *, enum bl_err);
enum bl_err	 bl_ctx_counters(struct bl_ctx *);
int		 bl_ctx_syslog(int fd);
void		 bl_ctx_who(struct bl_ctx *);
enum bl_err	 bl_ctx_install_key(struct bl_ctx *);

/*
 * events.c: the kinds of event, one row each (docs/ADMIN.md, "Audit trail"):
 * what the audit trail records, what burnlink_events_total counts, what
 * burnlink-admin audit --kind and GET /api/my/events?kind= take. Kinds are
 * numbered from 1 to bl_event_kinds() - 1.
 */
struct bl_event_kind {
	const char	*name;		/* "secret.viewed" */
	const char	*object;	/* what object_id names: "secret", "request",
					 * "apikey", "webhook", "account" or "" */
	const char	*what;		/* one line, as docs/ADMIN.md says it */
};
int		 bl_event_kinds(void);
const struct bl_event_kind *bl_event_kind(int kind);	/* NULL: no such kind */
int		 bl_event_find(const char *name);		/* 0: no such kind */

/*
 * audit.c: the audit trail. bl_audit_list() calls fn for the events that
 * match f, newest first, at most f->limit (fn returns 0 for the next, 1 to
 * stop); bl_audit_operator() makes the operator who runs burnlink-admin the
 * actor (the real uid's user name, or SUDO_USER under sudo);
 * bl_audit_admin() records one burnlink-admin command; bl_audit_prune()
 * removes the events older than audit_days, in bounded steps.
 */
struct bl_audit_event {
	int64_t		 id;
	int64_t		 at_ms;
	char		 kind[BL_AUDIT_KIND_MAX + 1];
	int64_t		 account_id;	/* 0: none (as each id below) */
	int64_t		 api_key_id;
	char		 operator_name[BL_AUDIT_OPERATOR_MAX + 1];
	char		 client[BL_AUDIT_CLIENT_MAX + 1];
	int64_t		 owner_id;
	int64_t		 object_id;
	char		 receipt_id[32];
	char		 outcome[BL_AUDIT_OUTCOME_MAX + 1];
	char		 detail[BL_AUDIT_DETAIL_MAX + 1];
};
struct bl_audit_filter {
	int64_t		 since_ms;	/* 0: from the first */
	int64_t		 until_ms;	/* 0: to the last (exclusive) */
	int		 kind;		/* 0: any */
	int64_t		 account_id;	/* 0: any; else the actor's or the owner's */
	const char	*receipt_id;	/* NULL: any */
	int64_t		 before_id;	/* 0: from the newest; else ids below (the cursor) */
	int		 limit;		/* 1 to 1000 */
};
enum bl_err	 bl_audit_list(struct bl_ctx *, const struct bl_audit_filter *,
		    int (*fn)(void *, const struct bl_audit_event *), void *);
json_object	*bl_audit_json(const struct bl_audit_event *);
void		 bl_audit_operator(struct bl_ctx *);
/* audit_syslog's socket, before any sandbox (cron/notify; lib/program.c, lib/fcgi.c). */
void		 bl_audit_syslog_open(struct bl_ctx *);
enum bl_err	 bl_audit_admin(struct bl_ctx *, const char *command, int64_t account_id,
		    int64_t object_id, int exit_status);
enum bl_err	 bl_audit_prune(struct bl_ctx *, int64_t now_ms, int64_t *removed);

/*
 * route.c: the endpoints, one per program of cgi-bin/, each declared once
 * (struct bl_route in lib/internal.h). bl_serve() (program.c) runs one: as a CGI request, or
 * as a FastCGI responder when the web server started it as one.
 */
struct bl_route;
extern const struct bl_route bl_route_create;		/* POST /api/secrets */
extern const struct bl_route bl_route_metadata;	/* GET /api/secrets/<key> */
extern const struct bl_route bl_route_retrieve;	/* POST /api/secrets/<key> */
extern const struct bl_route bl_route_delete;		/* DELETE /api/secrets/<key> */
extern const struct bl_route bl_route_session;		/* /api/session */
extern const struct bl_route bl_route_signup;		/* POST /api/signup */
extern const struct bl_route bl_route_setup;		/* GET, POST /api/setup */
extern const struct bl_route bl_route_password;	/* POST /api/password */
extern const struct bl_route bl_route_keys;		/* /api/keys[/<id>] */
extern const struct bl_route bl_route_mysecrets;	/* /api/my/secrets[/<id>] */
extern const struct bl_route bl_route_myevents;	/* GET /api/my/events */
extern const struct bl_route bl_route_config;		/* GET /api/config */
extern const struct bl_route bl_route_health;		/* GET /api/health */
extern const struct bl_route bl_route_version;	/* GET /api/version */
extern const struct bl_route bl_route_metrics;		/* GET /api/metrics */
extern const struct bl_route bl_route_requests;	/* /api/requests[/<key>] */
extern const struct bl_route bl_route_webhooks;	/* /api/webhooks[/<id>] */
extern const struct bl_route bl_route_email;		/* /api/email */
extern const struct bl_route bl_route_token;		/* POST /api/token */
extern const struct bl_route bl_route_totp;		/* GET, POST, DELETE /api/totp */
extern const struct bl_route bl_route_admin_overview;	/* GET /api/admin/overview */
extern const struct bl_route bl_route_admin_accounts;	/* /api/admin/accounts[/<id>] */
extern const struct bl_route bl_route_admin_keys;	/* /api/admin/keys[/<id>] */
extern const struct bl_route bl_route_admin_webhooks;	/* /api/admin/webhooks[/<id>] */
extern const struct bl_route bl_route_admin_clients;	/* /api/admin/clients */
extern const struct bl_route bl_route_admin_activity;	/* GET /api/admin/activity */
int		 bl_serve(const struct bl_route *);

/*
 * instance.c: what GET /api/config and GET /api/health answer, for the
 * endpoints and for burnlink-admin (config show, health).
 */
#define BL_API_VERSION		1	/* docs/API.md */
#define BL_CLEANUP_STALE	7200	/* seconds after which cleanup counts as stopped */
json_object	*bl_config_json(const struct bl_config *);
json_object	*bl_settings_check_json(const struct bl_config *);
json_object	*bl_signin_json(const struct bl_policy *);
json_object	*bl_health(struct bl_ctx *, enum bl_err counters, int *healthy);
int		 bl_cleanup_record(const struct bl_ctx *, char *err, size_t errlen);
int		 bl_run_record(const struct bl_ctx *, const char *stamp, char *err, size_t);
int64_t		 bl_run_last(const char *stamp);

/* log.c: one line to stderr, with the request id ("-" outside a request). */
void		 bl_log_id(const char *id, const char *fmt, ...)
		    __attribute__((format(printf, 2, 3)));

/* cleanup.c: what cron/cleanup does; fills the counts, returns 0 on success. */
struct bl_cleanup_stats {
	int64_t	removed;	/* rows past expiresAt, with their attachments */
	int64_t	counters;	/* ended counter windows pruned */
	int64_t	requests;	/* secret requests past expiresAt */
	int64_t	steps;		/* transactions it took (lib/secret.c) */
	int64_t	audit;		/* audit events older than audit_days (lib/audit.c) */
	int	busy;		/* another cleanup holds the database's lock: nothing done */
};
int		 bl_cleanup(struct bl_ctx *, struct bl_cleanup_stats *, char *errbuf,
		    size_t errlen);

/*
 * netaddr.c: the addresses a webhook may reach. The table is the IANA IPv4
 * and IPv6 special-purpose address registries, a row each (IPv4 prefixes in
 * the last four of the 16 bytes); the most specific row holding an address
 * decides. bl_net_refused() returns 0 if a webhook may connect to the
 * address (AF_INET: 4 bytes, AF_INET6: 16), else -1 and why.
 */
enum bl_net_global { BL_NET_LOCAL, BL_NET_GLOBAL, BL_NET_NA };
enum bl_net_embed {
	BL_EMBED_NONE,
	BL_EMBED_LAST32,	/* the last 32 bits: mapped, compatible, translated, NAT64 /96 */
	BL_EMBED_NAT64_48,	/* RFC 6052's /48 layout: bits 48-63 and 72-87 */
	BL_EMBED_6TO4,		/* bits 16-47 */
	BL_EMBED_TEREDO		/* the last 32 bits inverted (the client) */
};
struct bl_net_row {
	int			 version;	/* 4 or 6 */
	unsigned char		 prefix[16];
	int			 bits;
	const char		*name;		/* the registry's name of the block */
	const char		*source;	/* its RFC */
	enum bl_net_global	 global;	/* the registry's "Globally Reachable" */
	enum bl_net_embed	 embed;		/* where it holds an IPv4 address */
};
const struct bl_net_row	*bl_net_rows(size_t *);
const struct bl_net_row	*bl_net_row_of(int version, const unsigned char *addr);
int		 bl_net_prefix_eq(const unsigned char *, const unsigned char *, int bits);
int		 bl_net_refused(int family, const unsigned char *, char *why, size_t len);

/*
 * notify.c: what cron/notify does (docs/NOTIFY.md): delivers the outbox's due
 * rows by webhook and e-mail. The options are the operator's settings.
 */
struct bl_notify_opts {
	const char	*sendmail;	/* BURNLINK_SENDMAIL; NULL: /usr/sbin/sendmail -t -i */
	const char	*allow;		/* BURNLINK_NOTIFY_ALLOW: networks (and "http") allowed */
	const char	*ca;		/* BURNLINK_NOTIFY_CA: a CA file for webhook TLS */
	const char	*from;		/* BURNLINK_MAIL_FROM */
};
struct bl_notify_stats {
	int64_t	sent;
	int64_t	retried;
	int64_t	dropped;
};
int		 bl_notify_run(struct bl_ctx *, const struct bl_notify_opts *,
		    struct bl_notify_stats *, char *errbuf, size_t errlen);

/*
 * limit.c: rate limits. Each limit counts one thing in fixed UTC windows (the
 * day, the hour, the minute) through bl_store_count(); the subject (client IP,
 * account id, secret and IP) is stored only as HMAC-SHA-256 under the install
 * secret. The domain functions here take the context; a request counts
 * through bl_limit_take() (lib/http.c), which also keeps the tightest window
 * for the X-RateLimit-* headers.
 */
enum bl_limit {
	BL_LIM_IP_CREATE = 0,	/* requests per client IP and operation, per day */
	BL_LIM_IP_METADATA,
	BL_LIM_IP_RETRIEVE,
	BL_LIM_IP_BURN,
	BL_LIM_PASSPHRASE,	/* attempts per secret and client (IPv6 /48), per minute */
	BL_LIM_SESSION_HOUR,	/* signed-in creations per account, per hour */
	BL_LIM_SESSION_DAY,	/* signed-in creations per account, per day */
	BL_LIM_KEY_HOUR,	/* creations with any API key of an account, per hour */
	BL_LIM_IP_SESSION,	/* requests per client IP and account operation, per day */
	BL_LIM_IP_SIGNUP,
	BL_LIM_IP_PASSWORD,
	BL_LIM_IP_KEYS,
	BL_LIM_IP_MYSECRETS,
	BL_LIM_SIGNIN,		/* sign-in attempts per account name and client IP, per hour */
	BL_LIM_SIGNIN_IP,	/* sign-in attempts per client IP, per hour */
	BL_LIM_SIGNUP,		/* accounts created per client IP, per hour */
	BL_LIM_IP_HEALTH,	/* GET /api/health per client IP, per minute */
	BL_LIM_PASSPHRASE_SECRET, /* attempts per secret from all clients, per hour */
	BL_LIM_IP_WEBHOOKS,	/* requests per client IP to /api/webhooks, per day */
	BL_LIM_IP_EMAIL,	/* requests per client IP to /api/email, per day */
	BL_LIM_EMAIL,		/* mails asked for per account name, per hour */
	BL_LIM_NOTIFY_HOUR,	/* notification attempts per account, per hour (cron/notify) */
	BL_LIM_SIGNIN_ACCOUNT,	/* sign-in attempts per account name from all clients, per hour */
	BL_LIM_NET48_CREATE,	/* creations per IPv6 /48 (all its /64s together), per day */
	BL_LIM_IP_ADMIN,	/* requests per client IP to /api/admin/, per day */
	BL_LIM_IP_SETUP,	/* requests per client IP to /api/setup, per day */
	BL_LIM_SETUP_FAIL,	/* wrong codes per setup file (all clients), per day */
	BL_LIM__MAX
};

struct bl_limit_info {
	const char	*name;		/* e.g. "ip:create"; part of the bucket */
	int64_t		 window;	/* seconds: 60, 3600 or 86400 */
	int64_t		 limit;		/* requests allowed in one window */
	enum bl_err	 err;		/* returned when exceeded */
};

/* A counter as an operator sees it: this window's count and when it ends. */
struct bl_usage {
	int64_t	limit;
	int64_t	count;
	int64_t	reset;		/* Unix seconds */
};

#define BL_IP_TEXT	64		/* canonical client address, NUL included */

const struct bl_limit_info *bl_limit_info(enum bl_limit);
int		 bl_ip_canon(const char *, char out[BL_IP_TEXT]);
void		 bl_client_ip(struct bl_ctx *, const char *remote_addr,
		    const char *forwarded_for, char out[BL_IP_TEXT]);
void		 bl_client_net48(const char *client_ip, char out[BL_IP_TEXT]);
enum bl_err	 bl_limit_count(struct bl_ctx *, enum bl_limit, const void *subject,
		    size_t len, struct bl_usage *);
enum bl_err	 bl_limit_usage(struct bl_ctx *, enum bl_limit, const void *subject,
		    size_t len, struct bl_usage *);
enum bl_err	 bl_limit_set(struct bl_ctx *, enum bl_limit, const void *subject,
		    size_t len, int64_t count);
#define BL_CLIENT_SHOW	0
#define BL_CLIENT_SET	1
enum bl_err	 bl_client_limits(struct bl_ctx *, const char *canon, const char *op, int set,
		    int64_t count, int (*cb)(void *, const char *op, const struct bl_usage *),
		    void *, int *done);

/* auth.c: accounts and API keys ("bl_" + 43 url-safe base64, stored as SHA-256). */
#define BL_API_KEY_LEN		46
#define BL_API_KEY_PREFIX	11		/* leading characters kept to recognise a key */
#define BL_NAME_MAX		128		/* bytes of an account name or a key label */

struct bl_account {
	int64_t	id;
	char	name[BL_NAME_MAX + 1];
	int64_t	created_ms;
	int64_t	keys_active;
	int64_t	secrets;		/* rows stored for it (active or tombstones) */
	int64_t	secrets_active;
	int	admin;			/* BL_ADMIN_*: the admin role (docs/ADMIN.md) */
	int64_t	disabled_ms;		/* -1: enabled; else when it was disabled */
};

/* accounts.admin: who gave the admin role (version 7). */
#define BL_ADMIN_NONE		0
#define BL_ADMIN_OPERATOR	1	/* burnlink-admin account admin NAME on, or /admin */
#define BL_ADMIN_GROUP		2	/* an admin_groups group at web-server sign-in */

struct bl_api_key {
	int64_t	id;
	int64_t	account_id;
	char	prefix[BL_API_KEY_PREFIX + 1];
	char	label[BL_NAME_MAX + 1];
	int64_t	created_ms;
	int64_t	last_used_ms;		/* -1: never used */
	int64_t	revoked_ms;		/* -1: valid */
	int64_t	account_disabled_ms;	/* -1: its account is enabled */
};

int		 bl_name_valid(const char *, int allow_empty);
enum bl_err	 bl_account_create(struct bl_ctx *, const char *name, struct bl_account *);
enum bl_err	 bl_account_find(struct bl_ctx *, const char *id_or_name, struct bl_account *);
enum bl_err	 bl_account_list(struct bl_ctx *,
		    int (*cb)(void *, const struct bl_account *), void *);
enum bl_err	 bl_account_set_email(struct bl_ctx *, int64_t account_id, const char *email);
enum bl_err	 bl_account_set_password(struct bl_ctx *, int64_t account_id,
		    const char *password, size_t len);
enum bl_err	 bl_account_totp_reset(struct bl_ctx *, int64_t account_id);
enum bl_err	 bl_account_set_admin(struct bl_ctx *, int64_t account_id, int admin);
enum bl_err	 bl_account_set_disabled(struct bl_ctx *, int64_t account_id, int disabled);
enum bl_err	 bl_account_delete(struct bl_ctx *, int64_t account_id);
enum bl_err	 bl_key_issue(struct bl_ctx *, int64_t account_id, const char *label,
		    char key[BL_API_KEY_LEN + 1], struct bl_api_key *);
enum bl_err	 bl_key_find(struct bl_ctx *, const char *id_or_key, struct bl_api_key *);
enum bl_err	 bl_key_list(struct bl_ctx *, int64_t account_id /* 0: all */,
		    int (*cb)(void *, const struct bl_api_key *), void *);
enum bl_err	 bl_key_revoke(struct bl_ctx *, int64_t key_id);
enum bl_err	 bl_key_check(struct bl_ctx *, const char *authorization,
		    int64_t *account_id, int64_t *key_id, const char **hint);

/*
 * account.c: sign-up, sign-in, sessions, the dashboard's API keys and "my
 * secrets" (docs/ACCOUNTS.md). Each operation writes its own success response.
 */
#define BL_PASSWORD_MIN		8		/* characters of a sign-in password */
#define BL_PASSWORD_MAX		256
#define BL_EMAIL_MAX		254		/* bytes of an e-mail address */
#define BL_SESSION_IDLE		7200		/* seconds without a request */
#define BL_SESSION_MAX		43200		/* seconds after sign-in */
#define BL_KEYS_MAX		100		/* valid API keys per account */
#define BL_MY_SECRETS_MAX	1000		/* rows "my secrets" lists */

/*
 * Notifications (docs/NOTIFY.md): what a creator asks for with a secret
 * (notify: ["email", "webhook"]), the events a webhook wants, and the caps.
 */
#define BL_NOTIFY_EMAIL		0x1u
#define BL_NOTIFY_WEBHOOK	0x2u
#define BL_EV_VIEWED		0x1u		/* each view, with views left */
#define BL_EV_EXHAUSTED		0x2u		/* the last view */
#define BL_EV_BURNED		0x4u		/* by receipt, recipient or dashboard */
#define BL_EV_EXPIRED		0x8u		/* expired unread */
#define BL_EV_ALL		0xfu
#define BL_RECEIPT_ID_LEN	26		/* "rcp_" + 22 url-safe base64 */
#define BL_WEBHOOK_URL_MAX	2048		/* bytes of a webhook URL */
#define BL_WEBHOOKS_MAX		10		/* webhooks per account */
#define BL_ADMIN_PAGE_MAX	200		/* rows per page of an /api/admin/ list */
#define BL_ADMIN_PAGE_DEFAULT	50
#define BL_ADMIN_QUERY_MAX	128		/* bytes of an /api/admin/ search */
#define BL_ADMIN_FRESH		600		/* seconds: a fresh web-server sign-in */
#define BL_NOTIFY_HOUR		100		/* notification attempts per account, per hour */
#define BL_TOKEN_VERIFY		1		/* an e-mail token: verify the address */
#define BL_TOKEN_RESET		2		/* ... reset the password */
#define BL_TOKEN_TTL		3600		/* seconds a token is valid */


/* config.c: the build's version (scripts/version.sh); getenv NULL reads the process environment. */
extern const char bl_build_version[];
int		 bl_config_load(struct bl_config *,
		    const char *(*getenv)(void *, const char *), void *arg);
int		 bl_config_is_pg(const char *db);
int		 bl_settings_load(struct bl_config *, int explicit_path);
void		 bl_config_free(struct bl_config *);
const char	*bl_config_db_name(const struct bl_config *);
const char	*bl_routes_own(void);
int		 bl_routes_differ(const char *);
void		 bl_config_data_dir(const struct bl_config *, char *dir, size_t);
void		 bl_config_guard(const struct bl_config *);
int		 bl_config_data_unreachable(const struct bl_config *, char *hint, size_t);
int		 bl_config_become_owner(const struct bl_config *, int *exists,
		    char *err, size_t errlen);

/* crypto.c: base64, AES-256-GCM, scrypt, SHA-256, HMAC, random. */
int		 bl_random(void *, size_t);
void		 bl_wipe(void *, size_t);
void		 bl_free_wipe(void *, size_t);
char		*bl_b64_encode(const unsigned char *, size_t, size_t *outlen);
unsigned char	*bl_b64_decode(const char *, size_t, size_t *outlen);
char		*bl_b64url_encode(const unsigned char *, size_t, size_t *outlen);
unsigned char	*bl_b64url_decode(const char *, size_t, size_t *outlen);
size_t		 bl_b64_decoded_len(const char *, size_t);
int		 bl_sha256(const void *, size_t, unsigned char out[BL_HASH_BYTES]);
int		 bl_new_key(char key[BL_KEY_LEN + 1], unsigned char hash[BL_HASH_BYTES]);
int		 bl_new_key_at(char key[BL_KEY_LEN + 1], unsigned char hash[BL_HASH_BYTES],
		    uint32_t at);
int64_t		 bl_key_at(const char *key);
/* What a secret's keys carry (bl_new_key_at()) and its row's lookup_at: its expiry in seconds. */
#define BL_KEY_AT(expires_ms)	((uint32_t)((expires_ms) / 1000))
int		 bl_hmac_sha256(const unsigned char *key, size_t keylen,
		    const void *, size_t, unsigned char out[BL_HASH_BYTES]);
int64_t		 bl_hotp(const unsigned char *key, size_t keylen, uint64_t counter, int digits);
size_t		 bl_base32_encode(const unsigned char *, size_t, char *out);
int		 bl_aes_gcm_encrypt(const unsigned char key[32],
		    const unsigned char iv[BL_IV_BYTES], const unsigned char *pt,
		    size_t ptlen, unsigned char *out /* ptlen + BL_TAG_BYTES */);
int		 bl_aes_gcm_decrypt(const unsigned char key[32],
		    const unsigned char iv[BL_IV_BYTES], const unsigned char *ct,
		    size_t ctlen, unsigned char *out /* ctlen - BL_TAG_BYTES */);
int		 bl_aes_gcm_direct(void);
int		 bl_pass_hash(const char *, size_t, unsigned char out[BL_PASSHASH_BYTES]);
int		 bl_pass_verify(const char *, size_t,
		    const unsigned char stored[BL_PASSHASH_BYTES]);
int		 bl_ct_equal(const void *, const void *, size_t);
int		 bl_key_commitment(const unsigned char key[32],
		    unsigned char out[BL_COMMIT_BYTES]);

/* validate.c: field checks with explicit bounds, the table's fields of a JSON object. */
int		 bl_key_valid(const char *, size_t);
enum bl_err	 bl_field_int(const struct bl_limits *, enum bl_field, json_object *,
		    int64_t *out);
enum bl_err	 bl_field_bool(const struct bl_limits *, enum bl_field, json_object *,
		    int *out);
enum bl_err	 bl_field_string(const struct bl_limits *, enum bl_field, json_object *,
		    const char **out, size_t *len);
enum bl_err	 bl_field_names(const struct bl_limits *, enum bl_field, json_object *,
		    const char *const *names, size_t n, unsigned *mask);
size_t		 bl_utf8_codepoints(const char *, size_t); /* SIZE_MAX if invalid */
int		 bl_text_valid(const char *, size_t);	/* UTF-8 without control characters */
int		 bl_json_int(json_object *, int64_t min, int64_t max, int64_t *out);
char		*bl_iso8601(int64_t ms, char buf[64]);
int		 bl_parse_when(const char *, int64_t now_ms, int64_t *ms);
int64_t		 bl_now_ms(void);

#endif /* BURNLINK_H */
