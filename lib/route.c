/*
 * route.c (layer: handlers): every endpoint, declared once: its URL and
 * program, its per-IP limit, what its path names, the Allow header of a 405,
 * and for each method what the preamble checks (lib/serve.c) before the
 * handler answers. Each route is its own object, so a program links only its
 * own handlers. The web servers' routing (conf/, the tests' map of routes) is
 * generated from this table by scripts/routes-gen.c (`make`, docs/HACKING.md):
 * routes that share a URL and its path (metadata, retrieve, delete) each take
 * the methods of their actions, and the first of them the other methods.
 */
#include "internal.h"

#define SECRET_ALLOW	"GET, HEAD, POST, DELETE"	/* /api/secrets/<key> */
#define GET_HEAD	(BL_MASK(BL_M_GET) | BL_MASK(BL_M_HEAD))

const struct bl_route bl_route_create = {
	.name = "create", .url = "/api/secrets",
	.limit = BL_LIM_IP_CREATE, .path = BL_PATH_NONE, .allow = "POST",
	.actions = {
		{ BL_MASK(BL_M_POST), 0, BL_NEED_CREATOR | BL_NEED_BODY, bl_op_create },
	},
};

const struct bl_route bl_route_metadata = {
	.name = "metadata", .url = "/api/secrets",
	.limit = BL_LIM_IP_METADATA, .path = BL_PATH_KEY,
	.allow = SECRET_ALLOW,
	.actions = {
		{ GET_HEAD, 0, 0, bl_op_metadata },
	},
};

const struct bl_route bl_route_retrieve = {
	.name = "retrieve", .url = "/api/secrets",
	.limit = BL_LIM_IP_RETRIEVE, .path = BL_PATH_KEY,
	.allow = SECRET_ALLOW,
	.actions = {
		{ BL_MASK(BL_M_POST), 0, BL_NEED_BODY_OPT, bl_op_retrieve },
	},
};

const struct bl_route bl_route_delete = {
	.name = "delete", .url = "/api/secrets",
	.limit = BL_LIM_IP_BURN, .path = BL_PATH_KEY,
	.allow = SECRET_ALLOW,
	.actions = {
		{ BL_MASK(BL_M_DELETE), 0, BL_NEED_BODY_OPT, bl_op_burn },
	},
};

const struct bl_route bl_route_session = {
	.name = "session", .url = "/api/session",
	.limit = BL_LIM_IP_SESSION, .path = BL_PATH_NONE,
	.allow = "GET, HEAD, POST, DELETE",
	.actions = {
		{ GET_HEAD, 0, BL_NEED_SESSION_OPT, bl_op_session_get },
		{ BL_MASK(BL_M_POST), 0, BL_NEED_ORIGIN | BL_NEED_BODY, bl_op_sign_in },
		/* the CSRF token is needed while the session lives */
		{ BL_MASK(BL_M_DELETE), 0, BL_NEED_SESSION_OPT | BL_NEED_CSRF, bl_op_sign_out },
	},
};

const struct bl_route bl_route_signup = {
	.name = "signup", .url = "/api/signup",
	.limit = BL_LIM_IP_SIGNUP, .path = BL_PATH_NONE, .allow = "POST",
	.open = bl_signup_open, .closed = BL_ERR_SIGNUP_CLOSED,
	.actions = {
		{ BL_MASK(BL_M_POST), 0, BL_NEED_ORIGIN | BL_NEED_BODY, bl_op_signup },
	},
};

/*
 * The first operator's account, from the browser (docs/ADMIN.md, "Setting up
 * without a shell"): answers with invalid settings too, so that the operator
 * with the setup code can read the settings file's check.
 */
const struct bl_route bl_route_setup = {
	.name = "setup", .url = "/api/setup",
	.limit = BL_LIM_IP_SETUP, .path = BL_PATH_NONE, .allow = "GET, HEAD, POST",
	.flags = BL_ROUTE_PROBE,
	.actions = {
		{ GET_HEAD, 0, 0, bl_op_setup_get },
		{ BL_MASK(BL_M_POST), 0, BL_NEED_ORIGIN | BL_NEED_BODY, bl_op_setup },
	},
};

const struct bl_route bl_route_password = {
	.name = "password", .url = "/api/password",
	.limit = BL_LIM_IP_PASSWORD, .path = BL_PATH_NONE, .allow = "POST",
	.actions = {
		{ BL_MASK(BL_M_POST), 0, BL_NEED_SESSION | BL_NEED_CSRF | BL_NEED_BODY,
		    bl_op_password },
	},
};

const struct bl_route bl_route_keys = {
	.name = "keys", .url = "/api/keys",
	.limit = BL_LIM_IP_KEYS, .path = BL_PATH_ITEM,
	.allow = "GET, HEAD, POST", .allow_item = "DELETE", .bad_item = BL_ERR_KEY_NOT_FOUND,
	.actions = {
		{ GET_HEAD, 0, BL_NEED_SESSION, bl_op_keys_list },
		{ BL_MASK(BL_M_POST), 0, BL_NEED_SESSION | BL_NEED_CSRF | BL_NEED_BODY,
		    bl_op_key_create },
		{ BL_MASK(BL_M_DELETE), 1, BL_NEED_SESSION | BL_NEED_CSRF, bl_op_key_revoke },
	},
};

/* GET the list, POST a new one; /<id>: GET its last deliveries, POST a test, DELETE it. */
const struct bl_route bl_route_webhooks = {
	.name = "webhooks", .url = "/api/webhooks",
	.limit = BL_LIM_IP_WEBHOOKS, .path = BL_PATH_ITEM,
	.allow = "GET, HEAD, POST", .allow_item = "GET, HEAD, POST, DELETE",
	.bad_item = BL_ERR_WEBHOOK_NOT_FOUND,
	.actions = {
		{ GET_HEAD, 0, BL_NEED_SESSION, bl_op_webhooks_list },
		{ BL_MASK(BL_M_POST), 0, BL_NEED_SESSION | BL_NEED_CSRF | BL_NEED_BODY,
		    bl_op_webhook_create },
		{ GET_HEAD, 1, BL_NEED_SESSION, bl_op_webhook_get },
		{ BL_MASK(BL_M_POST) | BL_MASK(BL_M_DELETE), 1, BL_NEED_SESSION | BL_NEED_CSRF,
		    bl_op_webhook_item },
	},
};

/* The account's address: GET it, POST a new one (a verification mail). */
const struct bl_route bl_route_email = {
	.name = "email", .url = "/api/email",
	.limit = BL_LIM_IP_EMAIL, .path = BL_PATH_NONE, .allow = "GET, HEAD, POST",
	.actions = {
		{ GET_HEAD, 0, BL_NEED_SESSION, bl_op_email_get },
		{ BL_MASK(BL_M_POST), 0, BL_NEED_SESSION | BL_NEED_CSRF | BL_NEED_BODY,
		    bl_op_email_set },
	},
};

/* The second factor (docs/ACCOUNTS.md): GET its state, POST to enrol and confirm, DELETE to turn it off. */
const struct bl_route bl_route_totp = {
	.name = "totp", .url = "/api/totp",
	.limit = BL_LIM_IP_PASSWORD, .path = BL_PATH_NONE,
	.allow = "GET, HEAD, POST, DELETE",
	.actions = {
		{ GET_HEAD, 0, BL_NEED_SESSION, bl_op_totp_get },
		{ BL_MASK(BL_M_POST), 0, BL_NEED_SESSION | BL_NEED_CSRF | BL_NEED_BODY,
		    bl_op_totp_post },
		{ BL_MASK(BL_M_DELETE), 0, BL_NEED_SESSION | BL_NEED_CSRF | BL_NEED_BODY,
		    bl_op_totp_delete },
	},
};

/* The links of the account mails: ask for a reset, verify, reset (no session). */
const struct bl_route bl_route_token = {
	.name = "token", .url = "/api/token",
	.limit = BL_LIM_IP_EMAIL, .path = BL_PATH_NONE, .allow = "POST",
	.actions = {
		{ BL_MASK(BL_M_POST), 0, BL_NEED_ORIGIN | BL_NEED_BODY, bl_op_token },
	},
};

const struct bl_route bl_route_mysecrets = {
	.name = "mysecrets", .url = "/api/my/secrets",
	.limit = BL_LIM_IP_MYSECRETS, .path = BL_PATH_ITEM,
	.allow = "GET, HEAD", .allow_item = "DELETE", .bad_item = BL_ERR_NOT_FOUND,
	.actions = {
		{ GET_HEAD, 0, BL_NEED_SESSION, bl_op_my_list },
		{ BL_MASK(BL_M_DELETE), 1, BL_NEED_SESSION | BL_NEED_CSRF, bl_op_my_burn },
	},
};

/* An account's audit events (docs/API.md, "Activity"): its session or an API key. */
const struct bl_route bl_route_myevents = {
	.name = "myevents", .url = "/api/my/events",
	.limit = BL_LIM_IP_MYSECRETS, .path = BL_PATH_NONE, .allow = "GET, HEAD",
	.actions = {
		{ GET_HEAD, 0, BL_NEED_SESSION_OPT, bl_op_my_events },
	},
};

/*
 * Answers from the settings alone, opening no store: not counted. Every other
 * path under /api/ reaches this program with the path "/-": the API's JSON 404.
 */
const struct bl_route bl_route_config = {
	.name = "config", .url = "/api/config",
	.limit = BL_LIM__MAX, .path = BL_PATH_NONE, .allow = "GET, HEAD",
	.flags = BL_ROUTE_NOT_PRECOUNTED | BL_ROUTE_FALLBACK,
	.actions = {
		{ GET_HEAD, 0, 0, bl_op_config },
	},
};

/* The build's and the schema's version, from the program alone: not counted. */
const struct bl_route bl_route_version = {
	.name = "version", .url = "/api/version",
	.limit = BL_LIM__MAX, .path = BL_PATH_NONE, .allow = "GET, HEAD",
	.flags = BL_ROUTE_NOT_PRECOUNTED,
	.actions = {
		{ GET_HEAD, 0, 0, bl_op_version },
	},
};

/* Counts itself (BL_LIM_IP_HEALTH): the count is its check that the counters are writable. */
const struct bl_route bl_route_health = {
	.name = "health", .url = "/api/health",
	.limit = BL_LIM_IP_HEALTH, .path = BL_PATH_NONE, .allow = "GET, HEAD",
	.flags = BL_ROUTE_NOT_PRECOUNTED | BL_ROUTE_PROBE,
	.actions = {
		{ GET_HEAD, 0, 0, bl_op_health },
	},
};

/*
 * GET /api/metrics (docs/API.md): visible only to the settings' bearer token
 * or an allowed network, else the 404 of a path that is no endpoint (counted
 * as that is); not counted by a limit, so a scraper is never refused.
 */
const struct bl_route bl_route_metrics = {
	.name = "metrics", .url = "/api/metrics",
	.limit = BL_LIM__MAX, .path = BL_PATH_NONE, .allow = "GET, HEAD",
	.flags = BL_ROUTE_NOT_PRECOUNTED, .visible = bl_metrics_visible,
	.actions = {
		{ GET_HEAD, 0, 0, bl_op_metrics },
	},
};

/*
 * /api/requests and /api/requests/<key> (docs/API.md, "Secret requests"):
 * one program; each method is counted by the per-IP limit of the secret
 * operation it resembles (create, metadata, retrieve, burn).
 */
const struct bl_route bl_route_requests = {
	.name = "requests", .url = "/api/requests",
	.limit = BL_LIM_IP_METADATA, .path = BL_PATH_KEY_ITEM,
	.allow = "POST", .allow_item = "GET, HEAD, POST, DELETE", .bad_item = BL_ERR_REQUEST_NOT_FOUND,
	.actions = {
		{ BL_MASK(BL_M_POST), 0, BL_NEED_CREATOR | BL_NEED_BODY, bl_op_request_create,
		    1, BL_LIM_IP_CREATE },
		{ GET_HEAD, 1, 0, bl_op_request_get, 0, 0 },
		{ BL_MASK(BL_M_POST), 1, BL_NEED_BODY_OPT, bl_op_request_post,
		    1, BL_LIM_IP_RETRIEVE },
		{ BL_MASK(BL_M_DELETE), 1, 0, bl_op_request_burn, 1, BL_LIM_IP_BURN },
	},
};

/*
 * The operator's API (docs/API.md, "The operator's API"): browser sessions of
 * an account with the admin role only (.open: else 403 NOT_ADMIN), never an
 * API key; reads checked for their origin too (an administrator's answers
 * are not for another site's pages), changes for the CSRF token as the
 * dashboard's; one per-IP limit of their own.
 */
#define ADMIN_READ	(BL_NEED_SESSION | BL_NEED_ORIGIN)
#define ADMIN_WRITE	(BL_NEED_SESSION | BL_NEED_CSRF | BL_NEED_BODY)
#define ADMIN_WRITE_OPT	(BL_NEED_SESSION | BL_NEED_CSRF | BL_NEED_BODY_OPT)

const struct bl_route bl_route_admin_overview = {
	.name = "admin_overview", .url = "/api/admin/overview",
	.limit = BL_LIM_IP_ADMIN, .path = BL_PATH_NONE, .allow = "GET, HEAD",
	.open = bl_admin_open, .closed = BL_ERR_NOT_ADMIN,
	.actions = {
		{ GET_HEAD, 0, ADMIN_READ, bl_op_admin_overview },
	},
};

/* GET a page of accounts, POST a new one; /<id>: GET it, POST an action, DELETE it. */
const struct bl_route bl_route_admin_accounts = {
	.name = "admin_accounts", .url = "/api/admin/accounts",
	.limit = BL_LIM_IP_ADMIN, .path = BL_PATH_ITEM,
	.allow = "GET, HEAD, POST", .allow_item = "GET, HEAD, POST, DELETE",
	.bad_item = BL_ERR_ACCOUNT_NOT_FOUND,
	.open = bl_admin_open, .closed = BL_ERR_NOT_ADMIN, .flags = BL_ROUTE_QUERY,
	.actions = {
		{ GET_HEAD, 0, ADMIN_READ, bl_op_admin_accounts_list },
		{ BL_MASK(BL_M_POST), 0, ADMIN_WRITE, bl_op_admin_account_create },
		{ GET_HEAD, 1, ADMIN_READ, bl_op_admin_account_get },
		{ BL_MASK(BL_M_POST), 1, ADMIN_WRITE, bl_op_admin_account_act },
		{ BL_MASK(BL_M_DELETE), 1, ADMIN_WRITE_OPT, bl_op_admin_account_delete },
	},
};

/* GET ?account=<id>: an account's API keys; DELETE /<id>: revoke one. */
const struct bl_route bl_route_admin_keys = {
	.name = "admin_keys", .url = "/api/admin/keys",
	.limit = BL_LIM_IP_ADMIN, .path = BL_PATH_ITEM,
	.allow = "GET, HEAD", .allow_item = "DELETE", .bad_item = BL_ERR_KEY_NOT_FOUND,
	.open = bl_admin_open, .closed = BL_ERR_NOT_ADMIN, .flags = BL_ROUTE_QUERY,
	.actions = {
		{ GET_HEAD, 0, ADMIN_READ, bl_op_admin_keys_list },
		{ BL_MASK(BL_M_DELETE), 1, ADMIN_WRITE_OPT, bl_op_admin_key_revoke },
	},
};

/* GET ?account=<id>: an account's webhooks; DELETE /<id>: delete one. */
const struct bl_route bl_route_admin_webhooks = {
	.name = "admin_webhooks", .url = "/api/admin/webhooks",
	.limit = BL_LIM_IP_ADMIN, .path = BL_PATH_ITEM,
	.allow = "GET, HEAD", .allow_item = "DELETE", .bad_item = BL_ERR_WEBHOOK_NOT_FOUND,
	.open = bl_admin_open, .closed = BL_ERR_NOT_ADMIN, .flags = BL_ROUTE_QUERY,
	.actions = {
		{ GET_HEAD, 0, ADMIN_READ, bl_op_admin_webhooks_list },
		{ BL_MASK(BL_M_DELETE), 1, ADMIN_WRITE_OPT, bl_op_admin_webhook_delete },
	},
};

/* GET ?ip=: an address's counts today; POST {ip, action}: unblock or block it. */
const struct bl_route bl_route_admin_clients = {
	.name = "admin_clients", .url = "/api/admin/clients",
	.limit = BL_LIM_IP_ADMIN, .path = BL_PATH_NONE, .allow = "GET, HEAD, POST",
	.open = bl_admin_open, .closed = BL_ERR_NOT_ADMIN, .flags = BL_ROUTE_QUERY,
	.actions = {
		{ GET_HEAD, 0, ADMIN_READ, bl_op_admin_client_get },
		{ BL_MASK(BL_M_POST), 0, ADMIN_WRITE, bl_op_admin_client_set },
	},
};

/* GET: the audit trail, filtered and paged, or as CSV (format=csv). */
const struct bl_route bl_route_admin_activity = {
	.name = "admin_activity", .url = "/api/admin/activity",
	.limit = BL_LIM_IP_ADMIN, .path = BL_PATH_NONE, .allow = "GET, HEAD",
	.open = bl_admin_open, .closed = BL_ERR_NOT_ADMIN, .flags = BL_ROUTE_QUERY,
	.actions = {
		{ GET_HEAD, 0, ADMIN_READ, bl_op_admin_activity },
	},
};

/*
 * Every route, in the order the web servers try them (scripts/routes-gen.c
 * writes their routing from it; `make` fails on a program in cgi-bin/ that is
 * not here). A program links only its own route: nothing else refers to this.
 */
const struct bl_route *const bl_routes[] = {
	&bl_route_create, &bl_route_metadata, &bl_route_retrieve, &bl_route_delete,
	&bl_route_session, &bl_route_signup, &bl_route_setup, &bl_route_password, &bl_route_keys,
	&bl_route_webhooks, &bl_route_email, &bl_route_totp, &bl_route_token, &bl_route_mysecrets,
	&bl_route_myevents,
	&bl_route_config, &bl_route_health, &bl_route_version, &bl_route_metrics,
	&bl_route_requests,
	&bl_route_admin_overview, &bl_route_admin_accounts, &bl_route_admin_keys,
	&bl_route_admin_webhooks, &bl_route_admin_clients, &bl_route_admin_activity,
	NULL
};
