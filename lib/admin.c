/* admin.c (layer: handlers): the operator's API under /api/admin/ (docs/API.md, "The operator's API"), behind the page /admin. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "store.h"	/* BL_SCHEMA_VERSION */

/*
 * Whether the route is open to the request's session: its account has the
 * admin role (docs/ADMIN.md). The preamble (lib/serve.c) has loaded the
 * session (401 without one) and checked origin and CSRF first; otherwise 403
 * NOT_ADMIN. An API key never reaches here: these routes take sessions only.
 */
int
bl_admin_open(const struct bl_req *r)
{
	return r->session.found && r->session.account.admin != BL_ADMIN_NONE;
}

/*
 * Every action of the operator's API is itself an event of the audit trail
 * (docs/ADMIN.md): kind admin.command, the administrator's session as its
 * actor (lib/serve.c), owner the account acted on, detail "/admin" and the
 * action (never an argument: no address, no name). Written once the action
 * is done, outcome "ok" (or, for a refused confirmation, "refused"); the
 * error of the store when it could not be written, so that no action goes
 * unrecorded silently.
 */
static enum bl_err
acted(struct bl_req *r, const char *what, int64_t account_id, int64_t object_id,
    const char *outcome)
{
	char	 detail[64];

	snprintf(detail, sizeof(detail), "/admin %s", what);
	bl_log(r, "admin: %s (account %lld) by account %lld: %s", what, (long long)account_id,
	    (long long)r->session.account.id, outcome);
	if (bl_req_store(r) != BL_OK)
		return BL_ERR_STORE_UNAVAILABLE;
	return bl_req_logged(r, bl_audit_alone(r->store, BL_EV_ADMIN, account_id, object_id,
	    NULL, outcome, detail));
}

/* The string member k of the body, NULL when absent or null; *bad when it is another type. */
static const char *
member(struct bl_req *r, const char *k, size_t *len, int *bad)
{
	json_object	*v;

	*len = 0;
	if (r->json == NULL || !json_object_object_get_ex(r->json, k, &v) ||
	    json_object_is_type(v, json_type_null))
		return NULL;
	if (!json_object_is_type(v, json_type_string)) {
		*bad = 1;
		return NULL;
	}
	*len = (size_t)json_object_get_string_len(v);
	return json_object_get_string(v);
}

/*
 * A destructive action asks who is at the keyboard again (as POST
 * /api/email does): the password in currentPassword, counted as a sign-in
 * attempt; a session the web server signed in has no password here and must
 * instead be a fresh sign-in, at most adminFresh old. BL_OK, or the error.
 */
static enum bl_err
reauth(struct bl_req *r, const char *what, int64_t account_id)
{
	const char	*pw;
	size_t		 plen;
	int64_t		 fresh = r->ctx->cfg.limits.f[BL_F_ADMIN_FRESH].max * 1000;
	int		 bad = 0;
	enum bl_err	 e, ae;

	if (r->session.s.via == BL_VIA_WEBSERVER) {
		if (r->now_ms - r->session.s.created_ms <= fresh)
			return BL_OK;
		return bl_req_fail(r, BL_ERR_REAUTH_REQUIRED, "Your sign-in through the web "
		    "server is more than %lld minutes old: sign out, sign in again, and "
		    "repeat this within that time.", (long long)(fresh / 60000));
	}
	pw = member(r, "currentPassword", &plen, &bad);
	if (pw == NULL || bad || strlen(pw) != plen)
		return BL_ERR_REAUTH_REQUIRED;
	if ((e = bl_account_confirm(r, pw, plen)) == BL_ERR_INVALID_CREDENTIALS &&
	    (ae = acted(r, what, account_id, 0, "refused")) != BL_OK)
		return ae;
	return e;
}

/* A positive decimal id of the query (name=), 0 when absent, -1 when it is not one. */
static int64_t
query_id(struct bl_req *r, const char *name)
{
	char	 buf[24], *end;
	long long v;
	int	 q = bl_req_query(r, name, buf, sizeof(buf));

	if (q == 0)
		return 0;
	if (q < 0 || buf[0] < '1' || buf[0] > '9')
		return -1;
	v = strtoll(buf, &end, 10);
	return *end == '\0' && v > 0 ? (int64_t)v : -1;
}

/* The page size of the query (limit=), within adminPage; -1 when it is not one. */
static int64_t
query_limit(struct bl_req *r)
{
	const struct bl_bounds	*b = &r->ctx->cfg.limits.f[BL_F_ADMIN_PAGE];
	int64_t			 v;
	int			 q;
	char			 buf[24];

	if ((q = bl_req_query(r, "limit", buf, sizeof(buf))) == 0)
		return b->dflt;
	if (q < 0 || (v = query_id(r, "limit")) < b->min || v > b->max)
		return -1;
	return v;
}

/* A bad query parameter: 400 INVALID_ADMIN_ACTION naming it. */
static enum bl_err
bad_query(struct bl_req *r, const char *what)
{
	return bl_req_fail(r, BL_ERR_INVALID_ADMIN_ACTION, "%s (docs/API.md, \"The operator's "
	    "API\").", what);
}

/* {id, name, createdAt, admin, adminFrom, disabledAt, activeKeys, secrets, activeSecrets}. */
static json_object *
account_json(const struct bl_account *a)
{
	json_object	*o = json_object_new_object();

	if (o == NULL || bl_json_add(o, "id", json_object_new_int64(a->id)) ||
	    bl_json_add(o, "name", json_object_new_string(a->name)) ||
	    bl_json_add_time(o, "createdAt", a->created_ms) ||
	    bl_json_add(o, "admin", json_object_new_boolean(a->admin != BL_ADMIN_NONE)) ||
	    (a->admin == BL_ADMIN_NONE ? bl_json_add_null(o, "adminFrom") :
	    bl_json_add(o, "adminFrom", json_object_new_string(a->admin == BL_ADMIN_GROUP ?
	    "group" : "operator"))) ||
	    bl_json_add_time(o, "disabledAt", a->disabled_ms) ||
	    bl_json_add(o, "activeKeys", json_object_new_int64(a->keys_active)) ||
	    bl_json_add(o, "secrets", json_object_new_int64(a->secrets)) ||
	    bl_json_add(o, "activeSecrets", json_object_new_int64(a->secrets_active))) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* A key as the list shows it: never the key, its prefix ("bl_" + 8) only. */
static json_object *
key_json(const struct bl_api_key *k)
{
	json_object	*o = json_object_new_object();

	if (o == NULL || bl_json_add(o, "id", json_object_new_int64(k->id)) ||
	    bl_json_add(o, "accountId", json_object_new_int64(k->account_id)) ||
	    bl_json_add(o, "prefix", json_object_new_string(k->prefix)) ||
	    bl_json_add(o, "name", json_object_new_string(k->label)) ||
	    bl_json_add_time(o, "createdAt", k->created_ms) ||
	    bl_json_add_time(o, "lastUsedAt", k->last_used_ms) ||
	    bl_json_add_time(o, "revokedAt", k->revoked_ms)) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/*
 * A webhook as the list shows it: its host alone, never the URL (a chat
 * service's webhook URL is itself a credential) nor its signing secret.
 */
static json_object *
webhook_json(const struct bl_webhook *w)
{
	static const char *const names[] = {"secret.viewed", "secret.exhausted",
	    "secret.burned", "secret.expired"};
	json_object	*o = json_object_new_object(), *ev = json_object_new_array();
	const char	*h = strstr(w->url, "://");
	char		 host[256];
	size_t		 i, n;

	h = h != NULL ? h + 3 : w->url;
	n = strcspn(h, "/?#@");
	if (h[n] == '@') {	/* userinfo: never shown */
		h += n + 1;
		n = strcspn(h, "/?#");
	}
	snprintf(host, sizeof(host), "%.*s", (int)n, h);
	for (i = 0; ev != NULL && i < 4; i++)
		if (w->events & (1u << i))
			json_object_array_add(ev, json_object_new_string(names[i]));
	if (o == NULL || bl_json_add(o, "id", json_object_new_int64(w->id)) ||
	    bl_json_add(o, "host", json_object_new_string(host)) ||
	    bl_json_add(o, "events", ev) ||
	    bl_json_add_time(o, "createdAt", w->created_ms) ||
	    (w->last_status < 0 ? bl_json_add_null(o, "lastStatus") :
	    bl_json_add(o, "lastStatus", json_object_new_int64(w->last_status)))) {
		if (o == NULL)
			json_object_put(ev);
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* Row callbacks into a JSON array. */
static int
add_account(void *arg, const struct bl_account *a)
{
	json_object	*item = account_json(a);

	return item == NULL || json_object_array_add(arg, item) != 0;
}

static int
add_key(void *arg, const struct bl_api_key *k)
{
	json_object	*item = key_json(k);

	return item == NULL || json_object_array_add(arg, item) != 0;
}

static int
add_webhook(void *arg, const struct bl_webhook *w)
{
	json_object	*item = w->events != 0 ? webhook_json(w) : NULL;

	if (w->events == 0)
		return 0;	/* a deleted one's tombstone */
	return item == NULL || json_object_array_add(arg, item) != 0;
}

/*
 * GET /api/admin/overview: the health checks (as GET /api/health), the
 * settings in force (as burnlink-admin config show), the version, the
 * gauges of GET /api/metrics (secrets and requests by state, accounts, keys,
 * the outbox, the last cleanup, the limiter's occupancy).
 */
enum bl_err
bl_op_admin_overview(struct bl_req *r)
{
	static const char *const sstates[4] = {"active", "expired", "burned", "exhausted"};
	static const char *const rstates[5] = {"waiting", "answered", "read", "expired", "burned"};
	struct bl_overview	 ov;
	json_object		*o, *sec, *req, *keys, *out, *cl, *lim, *health;
	enum bl_err		 e;
	int			 healthy, failed;
	size_t			 i;

	if ((e = bl_metrics_read(r->ctx, &ov)) != BL_OK)
		return e;
	if ((health = bl_health(r->ctx, BL_OK, &healthy)) == NULL)
		return BL_ERR_INTERNAL;
	o = json_object_new_object();
	failed = o == NULL || bl_json_add(o, "version", json_object_new_string(bl_build_version)) ||
	    bl_json_add(o, "schemaVersion", json_object_new_int(BL_SCHEMA_VERSION)) ||
	    bl_json_add(o, "backend", json_object_new_string(bl_store_is_pg(r->ctx->cfg.db_path) ?
	    "postgresql" : "sqlite")) ||
	    bl_json_add(o, "health", health) ||
	    bl_json_add(o, "settings", bl_config_json(&r->ctx->cfg)) ||
	    bl_json_add(o, "secrets", sec = json_object_new_object()) ||
	    bl_json_add(o, "requests", req = json_object_new_object()) ||
	    bl_json_add(o, "accounts", json_object_new_int64(ov.g.accounts)) ||
	    bl_json_add(o, "apiKeys", keys = json_object_new_object()) ||
	    bl_json_add(keys, "valid", json_object_new_int64(ov.g.keys_valid)) ||
	    bl_json_add(keys, "revoked", json_object_new_int64(ov.g.keys_revoked)) ||
	    bl_json_add(o, "outbox", out = json_object_new_object()) ||
	    bl_json_add(out, "pending", json_object_new_int64(ov.g.outbox_pending)) ||
	    bl_json_add_time(out, "oldestAt", ov.g.outbox_oldest_ms) ||
	    bl_json_add(o, "cleanup", cl = json_object_new_object()) ||
	    bl_json_add_time(cl, "lastRun", ov.cleanup_last_ms) ||
	    (ov.cleanup_took_ms < 0 ? bl_json_add_null(cl, "durationMs") :
	    bl_json_add(cl, "durationMs", json_object_new_int64(ov.cleanup_took_ms))) ||
	    bl_json_add(o, "limiter", lim = json_object_new_object()) ||
	    bl_json_add(lim, "entries", json_object_new_int64(ov.limiter_used)) ||
	    (ov.limiter_cap < 0 ? bl_json_add_null(lim, "capacity") :
	    bl_json_add(lim, "capacity", json_object_new_int64(ov.limiter_cap))) ||
	    bl_json_add(o, "databaseBytes", json_object_new_int64(ov.g.db_bytes));
	if (o == NULL)
		json_object_put(health);
	for (i = 0; !failed && i < 4; i++)
		failed = bl_json_add(sec, sstates[i], json_object_new_int64(ov.g.secrets[i]));
	for (i = 0; !failed && i < 5; i++)
		failed = bl_json_add(req, rstates[i], json_object_new_int64(ov.g.requests[i]));
	return bl_respond_json(r, 200, o, failed);
}

/*
 * GET /api/admin/accounts?q=&after=&limit=: accounts whose name contains q
 * (without ASCII case), after id after, at most limit, in id order; next is
 * the after= of the next page (null: the last page).
 */
enum bl_err
bl_op_admin_accounts_list(struct bl_req *r)
{
	char		 q[BL_ADMIN_QUERY_MAX + 1], pat[2 * BL_ADMIN_QUERY_MAX + 3];
	json_object	*o, *arr;
	int64_t		 after, limit;
	size_t		 i, n = 0, len;
	enum bl_err	 e;

	if (bl_req_query(r, "q", q, sizeof(q)) < 0)
		return bad_query(r, "q is a search of at most 128 bytes of text");
	if ((after = query_id(r, "after")) < 0)
		return bad_query(r, "after is the id the last page ended with (next)");
	if ((limit = query_limit(r)) < 0)
		return bad_query(r, "limit is a page size from 1 to 200");
	len = strlen(q);
	if (len > 0)
		pat[n++] = '%';
	for (i = 0; i < len; i++) {
		if (q[i] == '%' || q[i] == '_' || q[i] == '\\')
			pat[n++] = '\\';
		pat[n++] = (q[i] >= 'A' && q[i] <= 'Z') ? (char)(q[i] - 'A' + 'a') : q[i];
	}
	if (len > 0)
		pat[n++] = '%';
	pat[n] = '\0';
	if ((arr = json_object_new_array()) == NULL)
		return BL_ERR_INTERNAL;
	if ((e = bl_req_store(r)) != BL_OK ||
	    (e = bl_req_logged(r, bl_store_account_page(r->store, pat, after, limit,
	    add_account, arr))) != BL_OK) {
		json_object_put(arr);
		return e;
	}
	n = json_object_array_length(arr);
	o = json_object_new_object();
	if (o == NULL)
		json_object_put(arr);
	return bl_respond_json(r, 200, o, o == NULL || bl_json_add(o, "accounts", arr) ||
	    ((int64_t)n < limit || n == 0 ? bl_json_add_null(o, "next") :
	    bl_json_add(o, "next", json_object_new_int64(json_object_get_int64(
	    json_object_object_get(json_object_array_get_idx(arr, n - 1), "id"))))));
}

/* The account of the path's id: BL_OK with *a, or 404. */
static enum bl_err
item_account(struct bl_req *r, int64_t id, struct bl_account *a)
{
	enum bl_err	 e;

	if ((e = bl_req_store(r)) != BL_OK)
		return e;
	e = bl_store_account_get(r->store, id, NULL, a);
	if (e == BL_ERR_NOT_FOUND || (e == BL_OK && strncmp(a->name, "deleted:", 8) == 0))
		return BL_ERR_ACCOUNT_NOT_FOUND;
	return bl_req_logged(r, e);
}

/* Answers {account} for the account of id, read again. */
static enum bl_err
respond_account(struct bl_req *r, int64_t id)
{
	struct bl_account	 a;
	json_object		*o;
	enum bl_err		 e;

	if ((e = item_account(r, id, &a)) != BL_OK)
		return e;
	o = json_object_new_object();
	return bl_respond_json(r, 200, o, o == NULL || bl_json_add(o, "account", account_json(&a)));
}

/* POST /api/admin/accounts {name}: a new account (as burnlink-admin account create). */
enum bl_err
bl_op_admin_account_create(struct bl_req *r)
{
	struct bl_account	 a;
	const char		*name;
	size_t			 len;
	int			 bad = 0;
	enum bl_err		 e;

	name = member(r, "name", &len, &bad);
	if (name == NULL || bad || strlen(name) != len || !bl_name_valid(name, 0))
		return bl_req_fail(r, BL_ERR_INVALID_NAME, "Send {\"name\": \"...\"}: 1 to 128 "
		    "bytes without control characters (an e-mail address, usually).");
	if ((e = bl_account_create(r->ctx, name, &a)) == BL_ERR_EXISTS)
		return bl_req_fail(r, BL_ERR_ACCOUNT_EXISTS, "An account has this name already; "
		    "find it with GET /api/admin/accounts?q=.");
	if (e != BL_OK)
		return e;
	if ((e = acted(r, "account create", a.id, a.id, "ok")) != BL_OK)
		return e;
	return respond_account(r, a.id);
}

/* GET /api/admin/accounts/<id>: the account, its keys and webhooks, its address, its second factor. */
enum bl_err
bl_op_admin_account_get(struct bl_req *r)
{
	struct bl_account	 a;
	struct bl_email		 m;
	struct bl_totp		 t;
	json_object		*o, *keys, *hooks, *mail = NULL;
	enum bl_err		 e, em, et;

	if ((e = item_account(r, r->item_id, &a)) != BL_OK)
		return e;
	if ((keys = json_object_new_array()) == NULL || (hooks = json_object_new_array()) == NULL) {
		json_object_put(keys);
		return BL_ERR_INTERNAL;
	}
	if ((e = bl_req_logged(r, bl_store_key_list(r->store, a.id, add_key, keys))) != BL_OK ||
	    (e = bl_req_logged(r, bl_store_webhook_list(r->store, a.id, add_webhook, hooks))) != BL_OK) {
		json_object_put(keys);
		json_object_put(hooks);
		return e;
	}
	em = bl_store_email_get(r->store, a.id, &m);
	et = bl_store_totp_get(r->store, a.id, &t);
	bl_wipe(&t, sizeof(t));
	if ((em != BL_OK && em != BL_ERR_NOT_FOUND) || (et != BL_OK && et != BL_ERR_NOT_FOUND)) {
		json_object_put(keys);
		json_object_put(hooks);
		return bl_req_logged(r, em != BL_OK && em != BL_ERR_NOT_FOUND ? em : et);
	}
	o = json_object_new_object();
	if (em == BL_OK && (mail = json_object_new_object()) != NULL &&
	    (bl_json_add(mail, "address", json_object_new_string(m.email)) ||
	    bl_json_add(mail, "verified", json_object_new_boolean(m.verified_ms >= 0)))) {
		json_object_put(mail);
		mail = NULL;
		em = BL_ERR_INTERNAL;
	}
	if (o == NULL) {
		json_object_put(keys);
		json_object_put(hooks);
		json_object_put(mail);
	}
	return bl_respond_json(r, 200, o, o == NULL || em == BL_ERR_INTERNAL ||
	    bl_json_add(o, "account", account_json(&a)) ||
	    (mail != NULL ? bl_json_add(o, "email", mail) : bl_json_add_null(o, "email")) ||
	    bl_json_add(o, "secondFactor", json_object_new_boolean(et == BL_OK)) ||
	    bl_json_add(o, "keys", keys) || bl_json_add(o, "webhooks", hooks));
}

/*
 * A password-reset mail to the account's verified address, by the path of
 * POST /api/token {email} (one outbox row; cron/notify mails the link).
 */
static enum bl_err
send_reset(struct bl_req *r, const struct bl_account *a)
{
	unsigned char	 pw[BL_PASSHASH_BYTES];
	struct bl_email	 m;
	enum bl_err	 e;

	e = bl_store_email_get(r->store, a->id, &m);
	if (e == BL_ERR_NOT_FOUND || (e == BL_OK && m.verified_ms < 0))
		return bl_req_fail(r, BL_ERR_INVALID_ADMIN_ACTION, "This account has no verified "
		    "e-mail address, so no reset link can reach it; set one with burnlink-admin "
		    "account email, or give it a password with burnlink-admin account password.");
	if (e != BL_OK)
		return bl_req_logged(r, e);
	/* cron/notify mails no password to an account of the web server's sign-in */
	if (r->ctx->cfg.policy.signin_webserver) {
		e = bl_store_password_get(r->store, a->id, pw);
		bl_wipe(pw, sizeof(pw));
		if (e == BL_ERR_NOT_FOUND)
			return bl_req_fail(r, BL_ERR_INVALID_ADMIN_ACTION, "This account has no "
			    "password: it signs in through the web server, and no reset link "
			    "gives it one; set one with burnlink-admin account password.");
		if (e != BL_OK)
			return bl_req_logged(r, e);
	}
	return bl_req_logged(r, bl_store_reset_request(r->store, m.email, r->now_ms));
}

/*
 * POST /api/admin/accounts/<id> {action, currentPassword}: disable, enable,
 * admin-on, admin-off, reset-password (a reset mail), reset-2fa. Those that
 * take something away need the password again (reauth()); none may lock the
 * administrator out of their own account.
 */
enum bl_err
bl_op_admin_account_act(struct bl_req *r)
{
	static const struct {
		const char	*name;
		int		 reauth;
		int		 not_self;
	} acts[] = {
		{"disable", 1, 1}, {"enable", 0, 0}, {"admin-on", 1, 0}, {"admin-off", 1, 1},
		{"reset-password", 0, 0}, {"reset-2fa", 1, 0},
	};
	struct bl_account	 a;
	const char		*act;
	size_t			 len, i;
	int			 bad = 0;
	enum bl_err		 e;

	act = member(r, "action", &len, &bad);
	for (i = 0; act != NULL && i < sizeof(acts) / sizeof(acts[0]); i++)
		if (strcmp(act, acts[i].name) == 0)
			break;
	if (act == NULL || bad || i == sizeof(acts) / sizeof(acts[0]))
		return bl_req_fail(r, BL_ERR_INVALID_ADMIN_ACTION, "Send {\"action\": ...}: "
		    "disable, enable, admin-on, admin-off, reset-password or reset-2fa (with "
		    "currentPassword for disable, admin-on, admin-off and reset-2fa).");
	if ((e = item_account(r, r->item_id, &a)) != BL_OK)
		return e;
	if (acts[i].not_self && a.id == r->session.account.id)
		return bl_req_fail(r, BL_ERR_INVALID_ADMIN_ACTION, "Not your own account: you "
		    "would lock yourself out. Another administrator, or burnlink-admin, can.");
	if (acts[i].reauth && (e = reauth(r, acts[i].name, a.id)) != BL_OK)
		return e;
	switch (i) {
	case 0:
	case 1:
		e = bl_account_set_disabled(r->ctx, a.id, i == 0);
		break;
	case 2:
	case 3:
		e = bl_account_set_admin(r->ctx, a.id, i == 2 ? BL_ADMIN_OPERATOR : BL_ADMIN_NONE);
		break;
	case 4:
		e = send_reset(r, &a);
		break;
	default:
		e = bl_account_totp_reset(r->ctx, a.id);
		break;
	}
	if (e != BL_OK || (e = acted(r, acts[i].name, a.id, a.id, "ok")) != BL_OK)
		return e;
	return respond_account(r, a.id);
}

/*
 * DELETE /api/admin/accounts/<id> {currentPassword}: its secrets burned, its
 * sessions ended, its keys revoked, its webhooks, address, password and
 * second factor removed (bl_account_delete()); then 404 for that id.
 */
enum bl_err
bl_op_admin_account_delete(struct bl_req *r)
{
	struct bl_account	 a;
	json_object		*o;
	enum bl_err		 e;

	if ((e = item_account(r, r->item_id, &a)) != BL_OK)
		return e;
	if (a.id == r->session.account.id)
		return bl_req_fail(r, BL_ERR_INVALID_ADMIN_ACTION, "Not your own account: "
		    "another administrator, or burnlink-admin, can delete it.");
	if ((e = reauth(r, "delete", a.id)) != BL_OK || (e = bl_account_delete(r->ctx, a.id)) != BL_OK ||
	    (e = acted(r, "delete", a.id, a.id, "ok")) != BL_OK)
		return e;
	o = json_object_new_object();
	return bl_respond_json(r, 200, o, o == NULL ||
	    bl_json_add(o, "success", json_object_new_boolean(1)) ||
	    bl_json_add(o, "deleted", json_object_new_int64(a.id)));
}

/* GET /api/admin/keys?account=<id> (or /webhooks): the account's keys (webhooks). */
static enum bl_err
list_of(struct bl_req *r, int webhooks)
{
	struct bl_account	 a;
	json_object		*o, *arr;
	int64_t			 id = query_id(r, "account");
	enum bl_err		 e;

	if (id <= 0)
		return bad_query(r, "account is the id of the account whose items to list");
	if ((e = item_account(r, id, &a)) != BL_OK)
		return e;
	if ((arr = json_object_new_array()) == NULL)
		return BL_ERR_INTERNAL;
	e = webhooks ? bl_store_webhook_list(r->store, id, add_webhook, arr) :
	    bl_store_key_list(r->store, id, add_key, arr);
	if ((e = bl_req_logged(r, e)) != BL_OK) {
		json_object_put(arr);
		return e;
	}
	o = json_object_new_object();
	if (o == NULL)
		json_object_put(arr);
	return bl_respond_json(r, 200, o, o == NULL ||
	    bl_json_add(o, webhooks ? "webhooks" : "keys", arr));
}

enum bl_err
bl_op_admin_keys_list(struct bl_req *r)
{
	return list_of(r, 0);
}

enum bl_err
bl_op_admin_webhooks_list(struct bl_req *r)
{
	return list_of(r, 1);
}

/* DELETE /api/admin/keys/<id> {currentPassword}: revokes the key (its row stays, revoked). */
enum bl_err
bl_op_admin_key_revoke(struct bl_req *r)
{
	struct bl_api_key	 k;
	json_object		*o;
	enum bl_err		 e;

	if ((e = bl_req_store(r)) != BL_OK)
		return e;
	if ((e = bl_store_key_get(r->store, r->item_id, &k)) == BL_ERR_NOT_FOUND)
		return BL_ERR_KEY_NOT_FOUND;
	if (e != BL_OK)
		return bl_req_logged(r, e);
	if ((e = reauth(r, "key revoke", k.account_id)) != BL_OK)
		return e;
	if (k.revoked_ms < 0) {
		if ((e = bl_key_revoke(r->ctx, k.id)) != BL_OK && e != BL_ERR_NOT_FOUND)
			return e;
		if ((e = acted(r, "key revoke", k.account_id, k.id, "ok")) != BL_OK)
			return e;
		if ((e = bl_req_logged(r, bl_store_key_get(r->store, k.id, &k))) != BL_OK)
			return e;
	}
	o = json_object_new_object();
	return bl_respond_json(r, 200, o, o == NULL || bl_json_add(o, "key", key_json(&k)));
}

/* DELETE /api/admin/webhooks/<id> {currentPassword}: deletes the webhook, its pending deliveries with it. */
enum bl_err
bl_op_admin_webhook_delete(struct bl_req *r)
{
	int64_t		 owner = 0;
	json_object	*o;
	enum bl_err	 e;

	if ((e = bl_req_store(r)) != BL_OK)
		return e;
	if ((e = bl_store_webhook_owner(r->store, r->item_id, &owner)) == BL_ERR_NOT_FOUND)
		return BL_ERR_WEBHOOK_NOT_FOUND;
	if (e != BL_OK)
		return bl_req_logged(r, e);
	if ((e = reauth(r, "webhook delete", owner)) != BL_OK)
		return e;
	if ((e = bl_store_webhook_delete(r->store, owner, r->item_id)) == BL_ERR_NOT_FOUND)
		return BL_ERR_WEBHOOK_NOT_FOUND;
	if ((e = bl_req_logged(r, e)) != BL_OK ||
	    (e = acted(r, "webhook delete", owner, r->item_id, "ok")) != BL_OK)
		return e;
	o = json_object_new_object();
	return bl_respond_json(r, 200, o, o == NULL ||
	    bl_json_add(o, "success", json_object_new_boolean(1)) ||
	    bl_json_add(o, "deleted", json_object_new_int64(r->item_id)));
}

/* One counter of a client into a JSON array: {op, count, limit, resetsAt}. */
static int
add_usage(void *arg, const char *op, const struct bl_usage *u)
{
	json_object	*o = json_object_new_object();

	if (o == NULL || bl_json_add(o, "op", json_object_new_string(op)) ||
	    bl_json_add(o, "count", json_object_new_int64(u->count)) ||
	    bl_json_add(o, "limit", json_object_new_int64(u->limit)) ||
	    bl_json_add_time(o, "resetsAt", u->reset * 1000) ||
	    json_object_array_add(arg, o) != 0) {
		json_object_put(o);
		return -1;
	}
	return 0;
}

/* Answers {client, windows} for the canonical address, after setting its counters when set. */
static enum bl_err
respond_client(struct bl_req *r, const char *canon, const char *op, int set, int64_t count)
{
	json_object	*o, *arr;
	enum bl_err	 e;
	int		 done;

	if ((arr = json_object_new_array()) == NULL)
		return BL_ERR_INTERNAL;
	if ((e = bl_client_limits(r->ctx, canon, op, set, count, add_usage, arr, &done)) != BL_OK) {
		json_object_put(arr);
		return e;
	}
	if (done == 0) {
		json_object_put(arr);
		return bad_query(r, "op is create, metadata, retrieve, burn, create-48 (IPv6) or all");
	}
	o = json_object_new_object();
	if (o == NULL)
		json_object_put(arr);
	return bl_respond_json(r, 200, o, o == NULL ||
	    bl_json_add(o, "client", json_object_new_string(canon)) ||
	    bl_json_add(o, "windows", arr));
}

/* GET /api/admin/clients?ip=ADDR: the address's requests today per operation (as burnlink-admin limits show --ip). */
enum bl_err
bl_op_admin_client_get(struct bl_req *r)
{
	char	 ip[BL_IP_TEXT], canon[BL_IP_TEXT];

	if (bl_req_query(r, "ip", ip, sizeof(ip)) != 1 || bl_ip_canon(ip, canon) != 0)
		return bad_query(r, "ip is an IPv4 or IPv6 address (IPv6 is counted per /64)");
	return respond_client(r, canon, NULL, BL_CLIENT_SHOW, 0);
}

/*
 * POST /api/admin/clients {ip, action: "unblock" | "block", op}: clears the
 * address's counters of op (default all) for the current window, or sets
 * them to their limit until the window ends (block; needs the password
 * again), as burnlink-admin limits reset / set --ip do.
 */
enum bl_err
bl_op_admin_client_set(struct bl_req *r)
{
	char		 canon[BL_IP_TEXT], opbuf[16];
	const char	*ip, *act, *op;
	size_t		 len, alen, olen;
	int		 bad = 0, block;
	enum bl_err	 e;

	ip = member(r, "ip", &len, &bad);
	act = member(r, "action", &alen, &bad);
	op = member(r, "op", &olen, &bad);
	if (bad || ip == NULL || act == NULL || strlen(ip) != len || len >= BL_IP_TEXT ||
	    bl_ip_canon(ip, canon) != 0 || (strcmp(act, "block") != 0 && strcmp(act, "unblock") != 0) ||
	    (op != NULL && olen >= sizeof(opbuf)))
		return bl_req_fail(r, BL_ERR_INVALID_ADMIN_ACTION, "Send {\"ip\": an IPv4 or IPv6 "
		    "address, \"action\": \"unblock\" or \"block\", \"op\": create, metadata, "
		    "retrieve, burn, create-48 or all (the default)}; block needs currentPassword.");
	block = strcmp(act, "block") == 0;
	if (block && (e = reauth(r, "client block", 0)) != BL_OK)
		return e;
	snprintf(opbuf, sizeof(opbuf), "%s", op != NULL ? op : "all");
	/* recorded first: the answer below is the last thing this request does */
	if ((e = acted(r, block ? "client block" : "client unblock", 0, 0, "ok")) != BL_OK)
		return e;
	/* a block is the day's limit reached: the highest a limit of these counters allows */
	return respond_client(r, canon, opbuf, BL_CLIENT_SET, block ? 1000000000 : 0);
}

/* A CSV field (RFC 4180) into f: quoted when it must be; a leading = + - @ made text (a spreadsheet's formula). */
static void
csv_field(FILE *f, const char *v, int last)
{
	if (v[0] == '=' || v[0] == '+' || v[0] == '-' || v[0] == '@')
		fputc('\'', f);
	if (strpbrk(v, ",\"\r\n") != NULL) {
		fputc('"', f);
		for (; *v != '\0'; v++) {
			if (*v == '"')
				fputc('"', f);
			fputc(*v, f);
		}
		fputc('"', f);
	} else
		fputs(v, f);
	fputs(last ? "\r\n" : ",", f);
}

struct activity {
	json_object	*arr;		/* JSON: the events */
	FILE		*csv;		/* CSV: the rows */
	int64_t		 last_id;
	int64_t		 n;
	int		 failed;
};

/* bl_audit_list()'s callback: one event as JSON or as a CSV row. */
static int
activity_row(void *arg, const struct bl_audit_event *ev)
{
	struct activity	*a = arg;
	json_object	*j;
	char		 t[64], id[24], ac[24] = "", k[24] = "", ow[24] = "", ob[24] = "";
	size_t		 i;

	a->last_id = ev->id;
	a->n++;
	if (a->csv == NULL) {
		if ((j = bl_audit_json(ev)) == NULL || json_object_array_add(a->arr, j) != 0) {
			json_object_put(j);
			a->failed = 1;
			return 1;
		}
		return 0;
	}
	snprintf(id, sizeof(id), "%lld", (long long)ev->id);
	if (ev->account_id > 0)
		snprintf(ac, sizeof(ac), "%lld", (long long)ev->account_id);
	if (ev->api_key_id > 0)
		snprintf(k, sizeof(k), "%lld", (long long)ev->api_key_id);
	if (ev->owner_id > 0)
		snprintf(ow, sizeof(ow), "%lld", (long long)ev->owner_id);
	if (ev->object_id > 0)
		snprintf(ob, sizeof(ob), "%lld", (long long)ev->object_id);
	{
		const char	*f[] = { id, bl_iso8601(ev->at_ms, t), ev->kind, ac, k,
				    ev->operator_name, ev->client, ow, ob, ev->receipt_id,
				    ev->outcome, ev->detail };

		for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
			csv_field(a->csv, f[i], i + 1 == sizeof(f) / sizeof(f[0]));
	}
	return 0;
}

/*
 * The filter of GET /api/admin/activity's query: since, until (ISO 8601 or
 * a time ago: 7d), kind, account, receipt, before (the cursor), limit.
 * BL_OK, or 400 naming the parameter.
 */
static enum bl_err
activity_filter(struct bl_req *r, struct bl_audit_filter *f, char receipt[BL_RECEIPT_ID_LEN + 1])
{
	char		 v[64];
	int		 q;
	int64_t		 n;

	memset(f, 0, sizeof(*f));
	if ((q = bl_req_query(r, "since", v, sizeof(v))) < 0 ||
	    (q == 1 && v[0] != '\0' && bl_parse_when(v, r->now_ms, &f->since_ms) != 0))
		return bad_query(r, "since is an ISO 8601 time (2026-11-27T14:00:00Z, 2026-11-27) or a time ago (7d, 12h)");
	if ((q = bl_req_query(r, "until", v, sizeof(v))) < 0 ||
	    (q == 1 && v[0] != '\0' && bl_parse_when(v, r->now_ms, &f->until_ms) != 0))
		return bad_query(r, "until is an ISO 8601 time (2026-11-27T14:00:00Z, 2026-11-27) or a time ago (7d, 12h)");
	if ((q = bl_req_query(r, "kind", v, sizeof(v))) < 0 ||
	    (q == 1 && v[0] != '\0' && (f->kind = bl_event_find(v)) == 0))
		return bad_query(r, "kind is one of the audit trail's kinds (burnlink-admin audit kinds), e.g. secret.viewed");
	if ((n = query_id(r, "account")) < 0)
		return bad_query(r, "account is an account's id");
	f->account_id = n;
	if ((q = bl_req_query(r, "receipt", receipt, BL_RECEIPT_ID_LEN + 1)) < 0 ||
	    (q == 1 && receipt[0] != '\0' && (strlen(receipt) != BL_RECEIPT_ID_LEN ||
	    strncmp(receipt, "rcp_", 4) != 0)))
		return bad_query(r, "receipt is a receipt id: rcp_ and 22 characters");
	f->receipt_id = receipt[0] != '\0' ? receipt : NULL;
	if ((n = query_id(r, "before")) < 0)
		return bad_query(r, "before is the id the last page ended with (next)");
	f->before_id = n;
	if ((n = query_limit(r)) < 0)
		return bad_query(r, "limit is a page size from 1 to 200");
	f->limit = (int)n;
	return BL_OK;
}

/*
 * GET /api/admin/activity: the audit trail, newest first, filtered by time,
 * kind, account (actor or owner) and receipt id, a page at a time (next: the
 * before= of the next page, null on the last); format=csv: the same page as
 * CSV (RFC 4180, a header row; the columns of burnlink-admin audit --format
 * csv), to save.
 */
enum bl_err
bl_op_admin_activity(struct bl_req *r)
{
	static const char	 head[] = "id,at,kind,accountId,apiKeyId,operator,client,"
	    "ownerId,objectId,receiptId,outcome,detail\r\n";
	struct bl_audit_filter	 f;
	struct activity		 a;
	char			 receipt[BL_RECEIPT_ID_LEN + 1] = "", fmt[8];
	char			*text = NULL;
	size_t			 len = 0;
	json_object		*o;
	enum bl_err		 e;
	int			 csv, q;

	if ((e = activity_filter(r, &f, receipt)) != BL_OK)
		return e;
	if ((q = bl_req_query(r, "format", fmt, sizeof(fmt))) < 0 ||
	    (q == 1 && strcmp(fmt, "csv") != 0 && strcmp(fmt, "json") != 0))
		return bad_query(r, "format is json (the default) or csv");
	csv = q == 1 && strcmp(fmt, "csv") == 0;
	memset(&a, 0, sizeof(a));
	if (csv) {
		if ((a.csv = open_memstream(&text, &len)) == NULL)
			return BL_ERR_INTERNAL;
		fputs(head, a.csv);
	} else if ((a.arr = json_object_new_array()) == NULL)
		return BL_ERR_INTERNAL;
	e = bl_audit_list(r->ctx, &f, activity_row, &a);
	if (a.csv != NULL && fclose(a.csv) != 0)
		e = BL_ERR_INTERNAL;
	if (e == BL_OK && a.failed)
		e = BL_ERR_INTERNAL;
	if (e != BL_OK) {
		json_object_put(a.arr);
		free(text);
		return e;
	}
	if (csv) {
		r->content_type = "text/csv; charset=utf-8";
		e = bl_respond_text(r, 200, text, len) == 0 ? BL_OK : BL_ERR_INTERNAL;
		free(text);
		return e;
	}
	o = json_object_new_object();
	if (o == NULL)
		json_object_put(a.arr);
	return bl_respond_json(r, 200, o, o == NULL || bl_json_add(o, "events", a.arr) ||
	    (a.n < f.limit ? bl_json_add_null(o, "next") :
	    bl_json_add(o, "next", json_object_new_int64(a.last_id))));
}
