/* account.c (layer: handlers): sign-up, sign-in, browser sessions and CSRF, the dashboard's API keys and "my secrets". */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "internal.h"

/*
 * The session cookie. Over HTTPS it is "__Host-" prefixed (the browser then
 * insists on Secure, Path=/ and no Domain); only plain-http loopback
 * development uses the plain name without Secure.
 */
#define COOKIE_SECURE	"__Host-burnlink_session"
#define COOKIE_DEV	"burnlink_session"
#define SID_LEN		43		/* url-safe base64 of 32 random bytes */
#define TOUCH_MS	60000		/* last-seen is written at most once a minute */

static int
add_int(json_object *o, const char *k, int64_t v)
{
	return bl_json_add(o, k, json_object_new_int64(v));
}

/* 1 if HTTPS is on for this request. */
static int
https_on(const struct bl_req *r)
{
	const char	*h = bl_req_env(r, "HTTPS");

	return h != NULL && (strcasecmp(h, "on") == 0 || strcmp(h, "1") == 0);
}

/*
 * 1 for plain-http development on the loopback interface: HTTPS is off,
 * BURNLINK_SITE_URL (if set) is not https:// and HTTP_HOST is 127.0.0.1,
 * localhost or [::1], with or without a port. An https:// site URL means a
 * TLS-terminating proxy may forward plain http with any Host: the cookie
 * stays Secure then (docs/SECURITY.md, "Accounts and CSRF").
 */
static int
loopback_dev(const struct bl_req *r)
{
	static const char *const hosts[] = {"127.0.0.1", "localhost", "[::1]"};
	const char	*h = bl_req_env(r, "HTTP_HOST");
	const char	*site = r->ctx->cfg.site_url;
	size_t		 i, n, j;

	if (https_on(r) || h == NULL)
		return 0;
	if (site != NULL && strncasecmp(site, "https:", 6) == 0)
		return 0;
	for (i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++) {
		n = strlen(hosts[i]);
		if (strncasecmp(h, hosts[i], n) != 0)
			continue;
		if (h[n] == '\0')
			return 1;
		if (h[n] != ':' || h[n + 1] == '\0')
			continue;
		for (j = n + 1; h[j] >= '0' && h[j] <= '9'; j++)
			;
		if (h[j] == '\0' && j - n - 1 <= 5)
			return 1;
	}
	return 0;
}

static int
b64url_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '-' || c == '_';
}

/*
 * Finds cookie name in HTTP_COOKIE and copies its value to out when it has the
 * shape of a session id. 1 if found.
 */
static int
cookie_find(const struct bl_req *r, const char *name, char out[SID_LEN + 1])
{
	const char	*p = bl_req_env(r, "HTTP_COOKIE"), *v;
	size_t		 nlen = strlen(name), i;

	if (p == NULL)
		return 0;
	while (*p != '\0') {
		while (*p == ' ' || *p == '\t' || *p == ';')
			p++;
		if (strncmp(p, name, nlen) == 0 && p[nlen] == '=') {
			v = p + nlen + 1;
			for (i = 0; i < SID_LEN && b64url_char((unsigned char)v[i]); i++)
				;
			if (i == SID_LEN && (v[i] == '\0' || v[i] == ';' || v[i] == ' ')) {
				memcpy(out, v, SID_LEN);
				out[SID_LEN] = '\0';
				return 1;
			}
		}
		p += strcspn(p, ";");
	}
	return 0;
}

/* The session id the request carries, if any: the secure cookie, or in loopback development the plain one. */
static int
cookie_sid(const struct bl_req *r, char out[SID_LEN + 1])
{
	return cookie_find(r, COOKIE_SECURE, out) ||
	    (loopback_dev(r) && cookie_find(r, COOKIE_DEV, out));
}

/* Sets the session cookie (sid) or, for sid NULL, a cookie that removes it. */
static void
set_cookie(struct bl_req *r, const char *sid)
{
	int	 secure = !loopback_dev(r);

	snprintf(r->set_cookie, sizeof(r->set_cookie),
	    "%s=%s; Path=/; Max-Age=%d; HttpOnly;%s SameSite=Strict",
	    secure ? COOKIE_SECURE : COOKIE_DEV, sid != NULL ? sid : "",
	    sid != NULL ? BL_SESSION_MAX : 0, secure ? " Secure;" : "");
}

/* When a live session ends: the earlier of its idle and absolute limits (ms). */
static int64_t
session_end(const struct bl_session *s)
{
	int64_t	 idle = s->seen_ms + (int64_t)BL_SESSION_IDLE * 1000;
	int64_t	 abs = s->created_ms + (int64_t)BL_SESSION_MAX * 1000;

	return idle < abs ? idle : abs;
}

/*
 * Loads the request's session: none (found 0) without a cookie or with one of
 * an unknown, ended or expired session (an expired one is deleted and its
 * cookie removed); else found 1 with the account, and last-seen updated.
 */
enum bl_err
bl_session_load(struct bl_req *r, struct bl_sess *ss)
{
	char		 sid[SID_LEN + 1];
	enum bl_err	 e;

	memset(ss, 0, sizeof(*ss));
	if (!cookie_sid(r, sid))
		return BL_OK;
	e = bl_sha256(sid, SID_LEN, ss->hash) != 0 ? BL_ERR_INTERNAL : BL_OK;
	bl_wipe(sid, sizeof(sid));
	if (e != BL_OK || (e = bl_req_store(r)) != BL_OK)
		return e;
	e = bl_store_session_find(r->store, ss->hash, &ss->s);
	if (e == BL_ERR_NOT_FOUND) {
		set_cookie(r, NULL);
		return BL_OK;
	}
	if (e != BL_OK)
		return bl_req_logged(r, e);
	if (session_end(&ss->s) <= r->now_ms) {
		set_cookie(r, NULL);
		return bl_req_logged(r, bl_store_session_delete(r->store, ss->s.id));
	}
	e = bl_store_account_get(r->store, ss->s.account_id, NULL, &ss->account);
	if (e == BL_ERR_NOT_FOUND) {
		set_cookie(r, NULL);
		return BL_OK;
	}
	if (e != BL_OK)
		return bl_req_logged(r, e);
	/* A disabled account's session ends (the route answers 401 ACCOUNT_DISABLED). */
	if (ss->account.disabled_ms >= 0) {
		set_cookie(r, NULL);
		ss->disabled = 1;
		return bl_req_logged(r, bl_store_session_delete(r->store, ss->s.id));
	}
	/* The web server now says someone else: that session is over. */
	if (ss->s.via == BL_VIA_WEBSERVER && bl_webserver_user(r) != NULL &&
	    !bl_webserver_is(r, &ss->account)) {
		set_cookie(r, NULL);
		return bl_req_logged(r, bl_store_session_delete(r->store, ss->s.id));
	}
	if (r->now_ms - ss->s.seen_ms >= TOUCH_MS) {
		if ((e = bl_store_session_touch(r->store, ss->s.id, r->now_ms)) != BL_OK)
			return bl_req_logged(r, e);
		ss->s.seen_ms = r->now_ms;
	}
	ss->found = 1;
	return BL_OK;
}

/*
 * Starts a new session for an account, signed in by via (BL_VIA_*): 32 random
 * bytes as the cookie's id, only their SHA-256 stored. Ended sessions of
 * every account are pruned first.
 */
static enum bl_err
session_open(struct bl_req *r, const struct bl_account *a, int via, struct bl_sess *ss)
{
	unsigned char	 raw[32];
	char		*sid = NULL;
	size_t		 len = 0;
	enum bl_err	 e = BL_ERR_INTERNAL;

	memset(ss, 0, sizeof(*ss));
	if ((e = bl_req_store(r)) != BL_OK)
		return e;
	if ((e = bl_store_session_prune(r->store,
	    r->now_ms - (int64_t)BL_SESSION_IDLE * 1000,
	    r->now_ms - (int64_t)BL_SESSION_MAX * 1000)) != BL_OK)
		return bl_req_logged(r, e);
	e = BL_ERR_INTERNAL;
	if (bl_random(raw, sizeof(raw)) != 0 ||
	    (sid = bl_b64url_encode(raw, sizeof(raw), &len)) == NULL || len != SID_LEN ||
	    bl_sha256(sid, SID_LEN, ss->hash) != 0)
		goto out;
	r->ctx->who.account_id = a->id;	/* the actor of account.signed_in */
	if ((e = bl_req_logged(r, bl_store_session_insert(r->store, ss->hash, a->id,
	    r->now_ms, via, &ss->s.id))) != BL_OK)
		goto out;
	set_cookie(r, sid);
	ss->found = 1;
	ss->s.via = via;
	ss->s.account_id = a->id;
	ss->s.created_ms = r->now_ms;
	ss->s.seen_ms = r->now_ms;
	ss->account = *a;
out:
	bl_wipe(raw, sizeof(raw));
	if (sid != NULL)
		bl_free_wipe(sid, len);
	return e;
}

/* A session signed in with a password. */
static enum bl_err
session_start(struct bl_req *r, const struct bl_account *a, struct bl_sess *ss)
{
	return session_open(r, a, BL_VIA_PASSWORD, ss);
}

/* The CSRF token of a session: HMAC-SHA-256(install secret, "csrf" NUL session hash), url-safe base64. */
static enum bl_err
csrf_token(struct bl_req *r, const struct bl_sess *ss, char out[SID_LEN + 1])
{
	unsigned char	 msg[5 + BL_HASH_BYTES], mac[BL_HASH_BYTES];
	char		*s;
	size_t		 len = 0;

	if (bl_req_install_key(r) != BL_OK)
		return BL_ERR_STORE_UNAVAILABLE;
	memcpy(msg, "csrf", 5);
	memcpy(msg + 5, ss->hash, BL_HASH_BYTES);
	if (bl_hmac_sha256(r->ctx->install_key, sizeof(r->ctx->install_key), msg, sizeof(msg), mac) != 0 ||
	    (s = bl_b64url_encode(mac, sizeof(mac), &len)) == NULL)
		return BL_ERR_INTERNAL;
	if (len != SID_LEN) {
		free(s);
		return BL_ERR_INTERNAL;
	}
	memcpy(out, s, SID_LEN + 1);
	free(s);
	return BL_OK;
}

/* 1 if origin (len bytes) is scheme://host[:port] of the site URL or of this request. */
static int
same_origin(struct bl_req *r, const char *origin, size_t len)
{
	const char	*site = r->ctx->cfg.site_url, *host = bl_req_env(r, "HTTP_HOST"), *p;
	const char	*scheme = https_on(r) ? "https://" : "http://";
	size_t		 n, sl;

	if (site != NULL && (p = strstr(site, "://")) != NULL) {
		n = (size_t)(p + 3 - site);
		n += strcspn(site + n, "/?#");
		if (n == len && strncasecmp(site, origin, n) == 0)
			return 1;
	}
	sl = strlen(scheme);
	if (host == NULL || len <= sl || strncasecmp(origin, scheme, sl) != 0)
		return 0;
	return strlen(host) == len - sl && strncasecmp(origin + sl, host, len - sl) == 0;
}

/*
 * Refuses a request that a browser says came from another site: a
 * Sec-Fetch-Site other than same-origin (or none, typed by the user), or an
 * Origin that is not this site's.
 */
enum bl_err
bl_check_origin(struct bl_req *r)
{
	const char	*sfs = bl_req_env(r, "HTTP_SEC_FETCH_SITE");
	const char	*origin = bl_req_env(r, "HTTP_ORIGIN");

	if (sfs != NULL && strcmp(sfs, "same-origin") != 0 && strcmp(sfs, "none") != 0)
		return bl_req_fail(r, BL_ERR_CSRF_REJECTED,
		    "This request came from another site (Sec-Fetch-Site: %s); use this site's pages.",
		    strcmp(sfs, "same-site") == 0 ? "same-site" : "cross-site");
	if (origin != NULL && !same_origin(r, origin, strlen(origin)))
		return bl_req_fail(r, BL_ERR_CSRF_REJECTED,
		    "The Origin header names another site; send requests from this site's pages.");
	return BL_OK;
}

/* The origin check, and the session's token in X-CSRF-Token (constant-time compare). */
enum bl_err
bl_check_csrf(struct bl_req *r, const struct bl_sess *ss)
{
	const char	*sent = bl_req_env(r, "HTTP_X_CSRF_TOKEN");
	char		 want[SID_LEN + 1];
	enum bl_err	 e;
	int		 ok;

	if ((e = bl_check_origin(r)) != BL_OK)
		return e;
	if (sent == NULL || strlen(sent) != SID_LEN)
		return bl_req_fail(r, BL_ERR_CSRF_REJECTED, "Signed-in changes need the "
		    "X-CSRF-Token header: the csrfToken of GET /api/session.");
	if ((e = csrf_token(r, ss, want)) != BL_OK)
		return e;
	ok = bl_ct_equal(sent, want, SID_LEN);
	bl_wipe(want, sizeof(want));
	return ok ? BL_OK : bl_req_fail(r, BL_ERR_CSRF_REJECTED, "The X-CSRF-Token "
	    "header is not this session's; reload the page (GET /api/session) and retry.");
}

/* 1 if sign-up is open (the settings' signup, BURNLINK_SIGNUP over it); closed by default. */
int
bl_signup_open(const struct bl_req *r)
{
	return r->ctx->cfg.policy.signup == 1;
}

/* The string field k of the JSON body: BL_OK with *out, or err with hint. */
static enum bl_err
body_string(struct bl_req *r, const char *k, const char **out, size_t *len, enum bl_err err,
    const char *hint)
{
	json_object	*v;

	if (r->json == NULL || !json_object_object_get_ex(r->json, k, &v) ||
	    !json_object_is_type(v, json_type_string))
		return bl_req_fail(r, err, "%s", hint);
	*out = json_object_get_string(v);
	*len = (size_t)json_object_get_string_len(v);
	if (strlen(*out) != *len)
		return bl_req_fail(r, err, "%s", hint);
	return BL_OK;
}

/* SHA-256 of an account name with ASCII letters lower-cased (as sign-in compares). */
static int
name_hash(const char *name, unsigned char out[BL_HASH_BYTES])
{
	char	 low[BL_EMAIL_MAX + 1];
	size_t	 i, n = strlen(name);
	int	 rc;

	if (n > BL_EMAIL_MAX)
		n = BL_EMAIL_MAX;
	for (i = 0; i < n; i++)
		low[i] = (name[i] >= 'A' && name[i] <= 'Z') ? (char)(name[i] - 'A' + 'a') : name[i];
	rc = bl_sha256(low, n, out);
	bl_wipe(low, sizeof(low));
	return rc;
}

/*
 * Counts a sign-in attempt (or a password check) against the limits per
 * client address, per account name and address, and per account name from
 * all addresses (docs/API.md, "POST /session"): the last one bounds guessing
 * spread over many addresses; a completed password reset clears it.
 */
static enum bl_err
count_attempt(struct bl_req *r, const char *name)
{
	unsigned char	 msg[BL_HASH_BYTES + BL_IP_TEXT];
	size_t		 iplen = strlen(r->client_ip);
	enum bl_err	 e;

	if ((e = bl_limit_take(r, BL_LIM_SIGNIN_IP, r->client_ip, iplen, NULL)) != BL_OK)
		return e;
	if (name_hash(name, msg) != 0 || iplen > BL_IP_TEXT)
		return BL_ERR_INTERNAL;
	memcpy(msg + BL_HASH_BYTES, r->client_ip, iplen);
	if ((e = bl_limit_take(r, BL_LIM_SIGNIN, msg, BL_HASH_BYTES + iplen, NULL)) != BL_OK)
		return e;
	return bl_limit_take(r, BL_LIM_SIGNIN_ACCOUNT, msg, BL_HASH_BYTES, NULL);
}

/*
 * Clears the account-wide sign-in counter of an account (a completed password
 * reset: whoever reads the account's mail may sign in again at once, however
 * many attempts strangers spent). Logged when it cannot.
 */
void
bl_signin_clear(struct bl_req *r, int64_t account_id)
{
	struct bl_account	 a;
	unsigned char		 h[BL_HASH_BYTES];

	if (bl_req_store(r) != BL_OK ||
	    bl_store_account_get(r->store, account_id, NULL, &a) != BL_OK ||
	    name_hash(a.name, h) != 0 ||
	    bl_limit_set(r->ctx, BL_LIM_SIGNIN_ACCOUNT, h, sizeof(h), 0) != BL_OK)
		bl_log(r, "password reset: cannot clear the account's sign-in counter");
}

/*
 * 1 if password is the account's. An account without a password (made by
 * burnlink-admin and never given one), or no account at all, costs the same
 * scrypt run and says no.
 */
static enum bl_err
password_check(struct bl_req *r, int64_t account_id, const char *pw, size_t len, int *ok)
{
	/* Not the hash of anything: a salt and a digest no password produces. */
	static const unsigned char nobody[BL_PASSHASH_BYTES] = {
		0x62, 0x75, 0x72, 0x6e, 0x6c, 0x69, 0x6e, 0x6b,
		0x20, 0x6e, 0x6f, 0x62, 0x6f, 0x64, 0x79, 0x00,
	};
	unsigned char	 stored[BL_PASSHASH_BYTES];
	enum bl_err	 e = BL_ERR_NOT_FOUND;
	int		 v;

	*ok = 0;
	if (account_id > 0 && (e = bl_store_password_get(r->store, account_id, stored)) != BL_OK &&
	    e != BL_ERR_NOT_FOUND)
		return bl_req_logged(r, e);
	v = bl_pass_verify(pw, len, e == BL_OK ? stored : nobody);
	bl_wipe(stored, sizeof(stored));
	if (v < 0)
		return BL_ERR_INTERNAL;
	*ok = v == 1 && e == BL_OK;
	return BL_OK;
}

/*
 * Checks that pw is the password of the signed-in account, counted like a
 * sign-in attempt (a stolen session cannot guess it quickly): BL_OK, or
 * INVALID_CREDENTIALS, or a limit's error. What POST /api/password and
 * POST /api/email ask for (docs/API.md).
 */
enum bl_err
bl_account_confirm(struct bl_req *r, const char *pw, size_t len)
{
	enum bl_err	 e;
	int		 ok;

	if ((e = count_attempt(r, r->session.account.name)) != BL_OK ||
	    (e = password_check(r, r->session.account.id, pw, len, &ok)) != BL_OK)
		return e;
	return ok ? BL_OK : BL_ERR_INVALID_CREDENTIALS;
}

/* {id, email, createdAt} of an account. */
static json_object *
account_json(const struct bl_account *a)
{
	json_object	*o;

	if ((o = json_object_new_object()) == NULL)
		return NULL;
	if (add_int(o, "id", a->id) || bl_json_add(o, "email", json_object_new_string(a->name)) ||
	    bl_json_add_time(o, "createdAt", a->created_ms)) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/*
 * Answers with the state of the request's session: {signedIn, signup} and,
 * when signed in, account, csrfToken and expiresAt; success: true when asked.
 * BL_OK, or an error unanswered when the answer could not be made.
 */
static enum bl_err
respond_session(struct bl_req *r, const struct bl_sess *ss, int success)
{
	char		 token[SID_LEN + 1] = "";
	json_object	*o = json_object_new_object();
	enum bl_err	 e = BL_OK, sent;
	int		 failed;

	failed = o == NULL || (success && bl_json_add(o, "success", json_object_new_boolean(1))) ||
	    bl_json_add(o, "signedIn", json_object_new_boolean(ss->found)) ||
	    bl_json_add(o, "signup", json_object_new_string(bl_signup_open(r) ? "open" : "closed")) ||
	    bl_json_add(o, "signIn", bl_signin_json(&r->ctx->cfg.policy)) ||
	    (ss->found ? bl_json_add(o, "via", json_object_new_string(ss->s.via ==
	    BL_VIA_WEBSERVER ? "webServer" : "password")) :
	    bl_json_add(o, "webServerUser", json_object_new_boolean(bl_webserver_user(r) != NULL)));
	if (!failed && ss->found)
		failed = (e = csrf_token(r, ss, token)) != BL_OK ||
		    bl_json_add(o, "account", account_json(&ss->account)) ||
		    bl_json_add(o, "csrfToken", json_object_new_string(token)) ||
		    bl_json_add_time(o, "expiresAt", session_end(&ss->s));
	sent = bl_respond_json(r, 200, o, failed);
	bl_wipe(token, sizeof(token));
	return e != BL_OK ? e : sent;
}

/*
 * Answers a session this request started (ss). If the answer cannot be made,
 * the session, whose cookie nobody was given, is deleted again and the
 * cookie not set: an error, unanswered, as respond_session().
 */
static enum bl_err
answer_session(struct bl_req *r, const struct bl_sess *ss)
{
	enum bl_err	 e;

	if ((e = respond_session(r, ss, 1)) == BL_OK)
		return BL_OK;
	r->set_cookie[0] = '\0';
	if (bl_store_session_delete(r->store, ss->s.id) != BL_OK)
		bl_log(r, "a session nobody was given could not be deleted (it ends by itself)");
	return e;
}

/*
 * A refused sign-in's audit event (account.signin_refused) against account
 * (0: none known), outcome refused or limited; returns e, the refusal, or
 * the store's failure to record it.
 */
static enum bl_err
signin_refused(struct bl_req *r, int64_t account, enum bl_err e, const char *outcome,
    const char *detail)
{
	enum bl_err	 ae;

	if ((ae = bl_req_store(r)) != BL_OK ||
	    (ae = bl_req_logged(r, bl_audit_alone(r->store, BL_EV_SIGNIN_REFUSED, account,
	    account, NULL, outcome, detail))) != BL_OK)
		return ae;
	return e;
}

/* POST /api/session: signs in with {email, password}. */
enum bl_err
bl_op_sign_in(struct bl_req *r)
{
	const char		*email, *pw;
	char			 norm[BL_EMAIL_MAX + 1];
	size_t			 elen, plen, i;
	struct bl_account	 a;
	struct bl_sess		 old, ss;
	enum bl_err		 e;
	int			 ok;
	static const char	 hint[] = "Send {\"email\": \"...\", \"password\": \"...\"}, both strings.";

	/* {"webServer": true}: the web server's REMOTE_USER (lib/websignin.c) */
	if (r->json != NULL && json_object_object_get_ex(r->json, "webServer", NULL))
		return bl_op_sign_in_webserver(r);
	if (!r->ctx->cfg.policy.signin_password)
		return bl_req_fail(r, BL_ERR_SIGNIN_OFF, "Password sign-in is off here: "
		    "sign in through the web server (POST {\"webServer\": true}).");
	if ((e = body_string(r, "email", &email, &elen, BL_ERR_INVALID_JSON, hint)) != BL_OK ||
	    (e = body_string(r, "password", &pw, &plen, BL_ERR_INVALID_JSON, hint)) != BL_OK)
		return e;
	if (elen > BL_EMAIL_MAX || plen > BL_PASSWORD_MAX * 4)
		return BL_ERR_INVALID_CREDENTIALS;
	memcpy(norm, email, elen);
	norm[elen] = '\0';
	for (i = 0; i < elen; i++)
		if (norm[i] >= 'A' && norm[i] <= 'Z')
			norm[i] = (char)(norm[i] - 'A' + 'a');
	if ((e = count_attempt(r, norm)) != BL_OK)
		return e == BL_ERR_TOO_MANY_ATTEMPTS || e == BL_ERR_RATE_LIMIT_EXCEEDED ?
		    signin_refused(r, 0, e, "limited", NULL) : e;
	if ((e = bl_req_store(r)) != BL_OK)
		return e;
	/* Names burnlink-admin made keep their case; addresses compare without it. */
	e = bl_store_account_by_email(r->store, norm, &a);
	if (e == BL_ERR_NOT_FOUND)
		a.id = 0;
	else if (e != BL_OK)
		return bl_req_logged(r, e);
	if ((e = password_check(r, a.id, pw, plen, &ok)) != BL_OK)
		return e;
	if (!ok)
		return signin_refused(r, a.id, BL_ERR_INVALID_CREDENTIALS, "refused", NULL);
	/* only the one who knows the password learns that the account is disabled */
	if (a.disabled_ms >= 0)
		return signin_refused(r, a.id, BL_ERR_ACCOUNT_DISABLED, "refused", "disabled");
	/* and the second factor, if the account has one (lib/totp.c) */
	if ((e = bl_totp_signin(r, &a)) != BL_OK)
		return e == BL_ERR_INVALID_CREDENTIALS || e == BL_ERR_TOO_MANY_ATTEMPTS ?
		    signin_refused(r, a.id, e, e == BL_ERR_INVALID_CREDENTIALS ? "refused" :
		    "limited", "2fa") : e;
	/* A session the browser still had is replaced, never reused. */
	if ((e = bl_session_load(r, &old)) != BL_OK)
		return e;
	if (old.found && (e = bl_req_logged(r, bl_store_session_delete(r->store, old.s.id))) != BL_OK)
		return e;
	if ((e = session_start(r, &a, &ss)) != BL_OK)
		return e;
	return answer_session(r, &ss);
}

/*
 * DELETE /api/session: signs out. The preamble loaded the session and, while
 * it lives, checked its CSRF token.
 */
enum bl_err
bl_op_sign_out(struct bl_req *r)
{
	json_object	*o;
	enum bl_err	 e;

	if (r->session.found &&
	    (e = bl_req_logged(r, bl_store_session_end(r->store, r->session.s.id,
	    r->session.s.account_id))) != BL_OK)
		return e;
	set_cookie(r, NULL);
	o = json_object_new_object();
	return bl_respond_json(r, 200, o, o == NULL ||
	    bl_json_add(o, "success", json_object_new_boolean(1)) ||
	    bl_json_add(o, "signedIn", json_object_new_boolean(0)));
}

/*
 * GET /api/session: who is signed in, and the CSRF token. A session the web
 * server signed in ends here when the web server no longer says that person
 * (signed out at the module, or another one): this is the request every page
 * makes first, and the shipped configurations put it behind the module.
 */
enum bl_err
bl_op_session_get(struct bl_req *r)
{
	struct bl_sess	*ss = &r->session;
	enum bl_err	 e;

	if (ss->found && ss->s.via == BL_VIA_WEBSERVER && !bl_webserver_is(r, &ss->account)) {
		if ((e = bl_req_logged(r, bl_store_session_delete(r->store, ss->s.id))) != BL_OK)
			return e;
		set_cookie(r, NULL);
		memset(ss, 0, sizeof(*ss));
	}
	return respond_session(r, ss, 0);
}

/* A new session the web server signed in (lib/websignin.c), answered as sign-in is. */
enum bl_err
bl_session_webserver(struct bl_req *r, const struct bl_account *a)
{
	struct bl_sess	 old, ss;
	enum bl_err	 e;

	if ((e = bl_session_load(r, &old)) != BL_OK)
		return e;
	if (old.found && (e = bl_req_logged(r, bl_store_session_delete(r->store, old.s.id))) != BL_OK)
		return e;
	if ((e = session_open(r, a, BL_VIA_WEBSERVER, &ss)) != BL_OK)
		return e;
	return answer_session(r, &ss);
}

/* POST /api/signup: creates an account {email, password} and signs it in (the route is closed unless sign-up is open). */
enum bl_err
bl_op_signup(struct bl_req *r)
{
	const char		*email, *pw;
	char			 norm[BL_EMAIL_MAX + 1];
	unsigned char		 hash[BL_PASSHASH_BYTES];
	size_t			 elen, plen;
	struct bl_account	 a;
	struct bl_sess		 ss;
	int64_t			 id;
	enum bl_err		 e;

	if ((e = body_string(r, "email", &email, &elen, BL_ERR_INVALID_EMAIL,
	    "email must be an address such as name@example.org, at most 254 bytes.")) != BL_OK ||
	    (e = body_string(r, "password", &pw, &plen, BL_ERR_INVALID_PASSWORD,
	    "password must be a string of 8 to 256 characters.")) != BL_OK)
		return e;
	if (!bl_email_normalise(email, elen, norm))
		return BL_ERR_INVALID_EMAIL;
	if (!bl_password_valid(pw, plen))
		return BL_ERR_INVALID_PASSWORD;
	if ((e = bl_limit_request(r, BL_LIM_SIGNUP)) != BL_OK ||
	    (e = bl_req_store(r)) != BL_OK)
		return e;
	e = bl_store_account_by_email(r->store, norm, &a);
	if (e == BL_OK)
		return BL_ERR_ACCOUNT_EXISTS;
	if (e != BL_ERR_NOT_FOUND)
		return bl_req_logged(r, e);
	if (bl_pass_hash(pw, plen, hash) != 0)
		return BL_ERR_INTERNAL;
	e = bl_store_account_signup(r->store, norm, hash, r->now_ms, &id);
	bl_wipe(hash, sizeof(hash));
	if (e == BL_ERR_EXISTS)
		return BL_ERR_ACCOUNT_EXISTS;
	if (e != BL_OK)
		return bl_req_logged(r, e);
	/* From here on a failure must say that the account is there. */
	bl_req_fail(r, BL_ERR_INTERNAL, "The account was created, but the server could not "
	    "sign you in; sign in with this address and password.");
	if ((e = bl_store_account_get(r->store, id, NULL, &a)) != BL_OK)
		return bl_req_logged(r, e);
	if ((e = session_start(r, &a, &ss)) != BL_OK)
		return e;
	/* the address is verified by the link of this mail (docs/NOTIFY.md); resent by POST /api/email */
	if (bl_req_logged(r, bl_email_token_issue(r->store, id, norm, BL_TOKEN_VERIFY,
	    r->now_ms)) != BL_OK)
		bl_log(r, "sign-up: the verification mail could not be queued");
	return answer_session(r, &ss);
}

/*
 * POST /api/password: {currentPassword, newPassword}. Ends every session of
 * the account and signs this browser in again with a new one.
 */
enum bl_err
bl_op_password(struct bl_req *r)
{
	const struct bl_sess	*ss = &r->session;
	const char		*cur, *pw;
	size_t			 clen, plen;
	struct bl_sess		 fresh;
	enum bl_err		 e;
	static const char hint[] = "Send {\"currentPassword\": \"...\", \"newPassword\": \"...\"}, both strings.";

	if ((e = body_string(r, "currentPassword", &cur, &clen, BL_ERR_INVALID_JSON, hint)) != BL_OK ||
	    (e = body_string(r, "newPassword", &pw, &plen, BL_ERR_INVALID_PASSWORD, hint)) != BL_OK)
		return e;
	if (!bl_password_valid(pw, plen))
		return BL_ERR_INVALID_PASSWORD;
	if ((e = bl_account_confirm(r, cur, clen)) != BL_OK)
		return e;
	if ((e = bl_account_set_password(r->ctx, ss->account.id, pw, plen)) != BL_OK)
		return e;
	/* From here on a failure must say that the password was changed. */
	bl_req_fail(r, BL_ERR_INTERNAL, "The password was changed and every session "
	    "ended, but the server could not sign you in again; sign in with the new password.");
	if ((e = session_start(r, &ss->account, &fresh)) != BL_OK)
		return e;
	return answer_session(r, &fresh);
}

/* {id, name, prefix, createdAt, lastUsedAt, revokedAt, active} of an API key. */
static json_object *
key_json(const struct bl_api_key *k)
{
	json_object	*o;

	if ((o = json_object_new_object()) == NULL)
		return NULL;
	if (add_int(o, "id", k->id) || bl_json_add(o, "name", json_object_new_string(k->label)) ||
	    bl_json_add(o, "prefix", json_object_new_string(k->prefix)) ||
	    bl_json_add_time(o, "createdAt", k->created_ms) ||
	    bl_json_add_time(o, "lastUsedAt", k->last_used_ms) ||
	    bl_json_add_time(o, "revokedAt", k->revoked_ms) ||
	    bl_json_add(o, "active", json_object_new_boolean(k->revoked_ms < 0))) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static int
list_key(void *arg, const struct bl_api_key *k)
{
	json_object	*o = key_json(k);

	if (o == NULL || json_object_array_add(arg, o) != 0) {
		json_object_put(o);
		return -1;
	}
	return 0;
}

/* POST /api/keys: issues a named key; the key is in this response only. */
enum bl_err
bl_op_key_create(struct bl_req *r)
{
	const struct bl_sess	*ss = &r->session;
	const char		*name;
	char			 key[BL_API_KEY_LEN + 1];
	size_t			 nlen;
	struct bl_api_key	 k;
	json_object		*o = NULL;
	enum bl_err		 e;
	int			 bad;

	if ((e = body_string(r, "name", &name, &nlen, BL_ERR_INVALID_NAME,
	    "Send {\"name\": \"...\"}: 1 to 128 bytes without control characters.")) != BL_OK)
		return e;
	if (!bl_name_valid(name, 0))
		return BL_ERR_INVALID_NAME;
	if (ss->account.keys_active >= BL_KEYS_MAX)
		return BL_ERR_KEY_LIMIT;
	if ((e = bl_key_issue(r->ctx, ss->account.id, name, key, &k)) != BL_OK)
		return e;
	bad = (o = json_object_new_object()) == NULL ||
	    bl_json_add(o, "success", json_object_new_boolean(1)) ||
	    bl_json_add(o, "key", json_object_new_string(key)) ||
	    bl_json_add(o, "apiKey", key_json(&k));
	bl_wipe(key, sizeof(key));
	/* A key nobody was shown must not stay: a 500 leaves no key behind. */
	if ((e = bl_respond_json(r, 200, o, bad)) != BL_OK)
		bl_req_logged(r, bl_store_key_delete(r->store, ss->account.id, k.id));
	return e;
}

/* DELETE /api/keys/<id>: revokes one of the account's valid keys. */
enum bl_err
bl_op_key_revoke(struct bl_req *r)
{
	const struct bl_sess	*ss = &r->session;
	struct bl_api_key	 k;
	int64_t			 id = r->item_id;
	enum bl_err		 e;

	e = bl_req_logged(r, bl_store_key_get(r->store, id, &k));
	if (e == BL_ERR_NOT_FOUND || (e == BL_OK && (k.account_id != ss->account.id ||
	    k.revoked_ms >= 0)))
		return BL_ERR_KEY_NOT_FOUND;
	if (e != BL_OK)
		return e;
	if ((e = bl_key_revoke(r->ctx, id)) == BL_ERR_NOT_FOUND)
		return BL_ERR_KEY_NOT_FOUND;	/* revoked meanwhile */
	if (e != BL_OK || (e = bl_req_logged(r, bl_store_key_get(r->store, id, &k))) != BL_OK)
		return e;
	return bl_respond_fields(r, 1, "apiKey", key_json(&k), NULL, NULL);
}

/* GET /api/keys: the account's keys. */
enum bl_err
bl_op_keys_list(struct bl_req *r)
{
	json_object	*arr;
	enum bl_err	 e;

	if ((arr = json_object_new_array()) == NULL)
		return BL_ERR_INTERNAL;
	if ((e = bl_key_list(r->ctx, r->session.account.id, list_key, arr)) != BL_OK) {
		json_object_put(arr);
		return e;
	}
	return bl_respond_fields(r, 0, "keys", arr, NULL, NULL);
}

/* State name of a row as its owner sees it now: an active row past its expiry is expired. */
static const char *
row_state(const struct bl_req *r, const struct bl_secret *s)
{
	if (s->state == BL_ST_ACTIVE && s->expires_ms <= r->now_ms)
		return bl_state_name(BL_ST_EXPIRED);
	return bl_state_name(s->state);
}

struct list_ctx {
	const struct bl_req	*r;
	json_object		*arr;
};

/*
 * With notifications (docs/NOTIFY.md): receiptId, and lastEvent {type, at}
 * once there is one (null before). Without: neither member.
 */
static int
last_event(json_object *o, const struct bl_secret *s)
{
	json_object	*ev;

	if (s->receipt_id[0] == '\0')
		return 0;
	if (bl_json_add(o, "receiptId", json_object_new_string(s->receipt_id)))
		return -1;
	if (s->last_event[0] == '\0')
		return bl_json_add_null(o, "lastEvent");
	return bl_json_add(o, "lastEvent", ev = json_object_new_object()) ||
	    bl_json_add(ev, "type", json_object_new_string(s->last_event)) ||
	    bl_json_add_time(ev, "at", s->last_event_ms);
}

/*
 * One receipt of "my secrets": what the receipt page shows, by row id. Never
 * the content, a key or anything that leads to them.
 */
static int
list_secret(void *arg, const struct bl_secret *s)
{
	struct list_ctx	*lc = arg;
	json_object	*o;
	int		 active = s->state == BL_ST_ACTIVE && s->expires_ms > lc->r->now_ms;
	int64_t		 left;

	if ((o = json_object_new_object()) == NULL)
		return -1;
	if (json_object_array_add(lc->arr, o) != 0) {
		json_object_put(o);
		return -1;
	}
	left = s->max_views < 0 ? -1 : !active ? 0 :
	    s->max_views > s->view_count ? s->max_views - s->view_count : 0;
	if (add_int(o, "id", s->id) ||
	    bl_json_add(o, "state", json_object_new_string(row_state(lc->r, s))) ||
	    bl_json_add(o, "hasPassphrase", json_object_new_boolean(s->has_pass)) ||
	    bl_json_add_time(o, "createdAt", s->created_ms) ||
	    bl_json_add_time(o, "expiresAt", s->expires_ms) ||
	    (s->max_views < 0 ? bl_json_add_null(o, "maxViews") : add_int(o, "maxViews", s->max_views)) ||
	    add_int(o, "viewCount", s->view_count) ||
	    (left < 0 ? bl_json_add_null(o, "viewsRemaining") : add_int(o, "viewsRemaining", left)) ||
	    bl_json_add_time(o, "lastViewedAt", s->last_viewed_ms) ||
	    bl_json_add(o, "deletable", json_object_new_boolean(s->deletable)) ||
	    last_event(o, s))
		return -1;
	return 0;
}

/* {limit, used, remaining, resetsAt} of one of the account's creation windows. */
static json_object *
usage_json(struct bl_req *r, enum bl_limit which, int64_t account_id, enum bl_err *e)
{
	struct bl_usage	 u;
	char		 id[24];
	int		 n = snprintf(id, sizeof(id), "%lld", (long long)account_id);
	json_object	*o;
	int64_t		 used;

	if ((*e = bl_limit_usage(r->ctx, which, id, (size_t)n, &u)) != BL_OK)
		return NULL;
	*e = BL_ERR_INTERNAL;
	used = u.count < u.limit ? u.count : u.limit;
	if ((o = json_object_new_object()) == NULL)
		return NULL;
	if (add_int(o, "limit", u.limit) || add_int(o, "used", used) ||
	    add_int(o, "remaining", u.limit - used) || bl_json_add_time(o, "resetsAt", u.reset * 1000)) {
		json_object_put(o);
		return NULL;
	}
	*e = BL_OK;
	return o;
}

/* GET /api/my/secrets: the account's receipts and its usage against the limits. */
enum bl_err
bl_op_my_list(struct bl_req *r)
{
	const struct bl_sess	*ss = &r->session;
	struct list_ctx	 lc = { r, NULL };
	json_object	*o, *usage, *u;
	enum bl_err	 e;

	if ((o = json_object_new_object()) == NULL)
		return BL_ERR_INTERNAL;
	e = BL_ERR_INTERNAL;
	if (bl_json_add(o, "secrets", lc.arr = json_object_new_array()))
		goto out;
	if ((e = bl_req_logged(r, bl_store_account_secrets(r->store, ss->account.id,
	    BL_MY_SECRETS_MAX, list_secret, &lc))) != BL_OK)
		goto out;
	e = BL_ERR_INTERNAL;
	if (bl_json_add(o, "usage", usage = json_object_new_object()))
		goto out;
	if ((u = usage_json(r, BL_LIM_SESSION_HOUR, ss->account.id, &e)) == NULL ||
	    bl_json_add(usage, "hour", u) ||
	    (u = usage_json(r, BL_LIM_SESSION_DAY, ss->account.id, &e)) == NULL ||
	    bl_json_add(usage, "day", u) ||
	    (u = usage_json(r, BL_LIM_KEY_HOUR, ss->account.id, &e)) == NULL ||
	    bl_json_add(usage, "apiKeysHour", u)) {
		if (e == BL_OK)
			e = BL_ERR_INTERNAL;
		goto out;
	}
	e = bl_respond_json(r, 200, o, 0);
	o = NULL;	/* taken */
out:
	json_object_put(o);
	return e;
}

/*
 * DELETE /api/my/secrets/<id>: burns one of the account's secrets. Another
 * account's row and a missing row are the same 404.
 */
enum bl_err
bl_op_my_burn(struct bl_req *r)
{
	const struct bl_sess	*ss = &r->session;
	int64_t			 id = r->item_id;
	struct bl_secret	 s;
	json_object		*o;
	enum bl_err		 e;

	e = bl_req_logged(r, bl_store_secret_get(r->store, id, &s));
	if (e == BL_ERR_NOT_FOUND || (e == BL_OK && s.account_id != ss->account.id))
		return bl_req_fail(r, BL_ERR_NOT_FOUND,
		    "None of your secrets has this id; list them with GET /api/my/secrets.");
	if (e != BL_OK)
		return e;
	if ((e = bl_req_logged(r, bl_store_burn(r->store, id, r->now_ms, "dashboard"))) != BL_OK)
		return e;
	if ((o = json_object_new_string("burned")) == NULL)
		return BL_ERR_INTERNAL;
	return bl_respond_fields(r, 1, "state", o, NULL, NULL);
}

/*
 * The API key of the request, if it sent one (bl_key_check(), lib/auth.c):
 * *account_id and *key_id are 0 for an anonymous request.
 */
enum bl_err
bl_auth_request(struct bl_req *r, int64_t *account_id, int64_t *key_id)
{
	const char	*hint = NULL;
	enum bl_err	 e;

	e = bl_key_check(r->ctx, bl_req_env(r, "HTTP_AUTHORIZATION"), account_id, key_id, &hint);
	if (hint != NULL)
		return bl_req_fail(r, e, "%s", hint);
	return e;
}

/*
 * Who creates (the preamble's BL_NEED_CREATOR): the account of the API key,
 * else the signed-in session's, once its CSRF token and origin check out (403
 * otherwise), else anonymous; then the creation is counted against that
 * account's limits. Sets r->account_id and r->api_key_id.
 */
enum bl_err
bl_req_creator(struct bl_req *r)
{
	char		 sid[SID_LEN + 1];
	enum bl_err	 e;

	if ((e = bl_auth_request(r, &r->account_id, &r->api_key_id)) != BL_OK)
		return e;
	if (r->account_id == 0 && cookie_sid(r, sid)) {
		bl_wipe(sid, sizeof(sid));
		if ((e = bl_session_load(r, &r->session)) != BL_OK)
			return e;
		if (r->session.disabled)
			return BL_ERR_ACCOUNT_DISABLED;
		if (r->session.found) {
			if ((e = bl_check_csrf(r, &r->session)) != BL_OK)
				return e;
			r->account_id = r->session.account.id;
		}
	}
	return bl_limit_creator(r, r->account_id, r->api_key_id != 0);
}

/* The page of GET /api/my/events being built. */
struct events_page {
	json_object	*arr;
	int64_t		 account;
	int64_t		 last_id;
	int		 n;
};

/* One event as an account sees it: who acted is its own account or key, the operator, or nobody. */
static int
event_item(void *arg, const struct bl_audit_event *ev)
{
	struct events_page	*p = arg;
	json_object		*o;

	if ((o = bl_audit_json(ev)) == NULL)
		return -1;
	/* the operator's user name and the owner (the account itself) are not its business */
	json_object_object_del(o, "operator");
	json_object_object_del(o, "ownerId");
	if (bl_json_add(o, "actor", json_object_new_string(ev->operator_name[0] != '\0' ?
	    "operator" : ev->account_id == p->account ? (ev->api_key_id > 0 ? "apikey" :
	    "account") : ev->account_id > 0 ? "other" : "anonymous")) ||
	    json_object_array_add(p->arr, o) != 0) {
		json_object_put(o);
		return -1;
	}
	p->last_id = ev->id;
	p->n++;
	return 0;
}

/* A query parameter's value: 0 and v, vlen set when name=... is in q once, 1 when absent, -1 twice. */
static int
query_param(const char *q, const char *name, const char **v, size_t *vlen)
{
	size_t		 n = strlen(name);
	const char	*p, *end;
	int		 found = 0;

	for (p = q; p != NULL && *p != '\0'; p = *end == '&' ? end + 1 : NULL) {
		end = p + strcspn(p, "&");
		if ((size_t)(end - p) > n && strncmp(p, name, n) == 0 && p[n] == '=') {
			if (found++)
				return -1;
			*v = p + n + 1;
			*vlen = (size_t)(end - *v);
		}
	}
	return found ? 0 : 1;
}

/* A whole number of at most 18 digits from min to max; -1 if not. */
static int64_t
query_int(const char *v, size_t len, int64_t min, int64_t max)
{
	int64_t	 n = 0;
	size_t	 i;

	if (len == 0 || len > 18)
		return -1;
	for (i = 0; i < len; i++) {
		if (v[i] < '0' || v[i] > '9')
			return -1;
		n = n * 10 + (v[i] - '0');
	}
	return n >= min && n <= max ? n : -1;
}

/*
 * GET /api/my/events[?kind=K&cursor=C&limit=N]: the audit events of the
 * caller's account (its session, or an API key), newest first: what it did
 * and what happened to what it owns (docs/API.md, "Activity").
 */
enum bl_err
bl_op_my_events(struct bl_req *r)
{
	struct bl_audit_filter	 f;
	struct events_page	 p = { NULL, 0, 0, 0 };
	const char		*q = bl_req_env(r, "QUERY_STRING"), *v, *end;
	char			 kind[BL_AUDIT_KIND_MAX + 1];
	size_t			 vlen;
	json_object		*o = NULL;
	enum bl_err		 e;
	int			 rc;

	if ((e = bl_auth_request(r, &r->account_id, &r->api_key_id)) != BL_OK)
		return e;
	if (r->account_id == 0 && r->session.found)
		r->account_id = r->session.account.id;
	if (r->account_id == 0)
		return BL_ERR_NOT_SIGNED_IN;
	memset(&f, 0, sizeof(f));
	f.account_id = p.account = r->account_id;
	f.limit = 50;
	q = q != NULL ? q : "";
	/* every parameter is one of the three */
	for (v = q; *v != '\0'; v = *end == '&' ? end + 1 : end) {
		end = v + strcspn(v, "&");
		if (!((end - v > 5 && strncmp(v, "kind=", 5) == 0) ||
		    (end - v > 7 && strncmp(v, "cursor=", 7) == 0) ||
		    (end - v > 6 && strncmp(v, "limit=", 6) == 0)))
			return BL_ERR_INVALID_QUERY;
	}
	if ((rc = query_param(q, "kind", &v, &vlen)) < 0)
		return BL_ERR_INVALID_QUERY;
	if (rc == 0) {
		if (vlen > BL_AUDIT_KIND_MAX)
			return BL_ERR_INVALID_QUERY;
		memcpy(kind, v, vlen);
		kind[vlen] = '\0';
		if ((f.kind = bl_event_find(kind)) == 0)
			return bl_req_fail(r, BL_ERR_INVALID_QUERY, "kind: no such event kind; "
			    "the kinds are listed in docs/API.md, \"Activity\".");
	}
	if ((rc = query_param(q, "cursor", &v, &vlen)) < 0 ||
	    (rc == 0 && (f.before_id = query_int(v, vlen, 1, INT64_MAX / 10)) < 0))
		return BL_ERR_INVALID_QUERY;
	if ((rc = query_param(q, "limit", &v, &vlen)) < 0 ||
	    (rc == 0 && (f.limit = (int)query_int(v, vlen, 1, 100)) < 0))
		return BL_ERR_INVALID_QUERY;
	if ((p.arr = json_object_new_array()) == NULL)
		return BL_ERR_INTERNAL;
	f.limit++;	/* one more: whether there is a next page */
	if ((e = bl_req_store(r)) != BL_OK ||
	    (e = bl_req_logged(r, bl_audit_list(r->ctx, &f, event_item, &p))) != BL_OK) {
		json_object_put(p.arr);
		return e;
	}
	if (p.n == f.limit) {
		json_object_array_del_idx(p.arr, (size_t)--p.n, 1);
		p.last_id = json_object_get_int64(json_object_object_get(
		    json_object_array_get_idx(p.arr, (size_t)p.n - 1), "id"));
	} else
		p.last_id = 0;
	o = json_object_new_object();
	if (o == NULL || bl_json_add(o, "events", p.arr)) {
		if (o == NULL)
			json_object_put(p.arr);
		json_object_put(o);
		return BL_ERR_INTERNAL;
	}
	return bl_respond_json(r, 200, o, p.last_id > 0 ?
	    bl_json_add(o, "nextCursor", json_object_new_string(
	    (snprintf(kind, sizeof(kind), "%lld", (long long)p.last_id), kind))) :
	    bl_json_add_null(o, "nextCursor"));
}

/* Counts a check of the account's password or second factor as a sign-in attempt (lib/totp.c). */
enum bl_err
bl_count_signin(struct bl_req *r, const char *name)
{
	return count_attempt(r, name);
}

/* Checks the password of a signed-in account (lib/totp.c): *ok 1 if it is the account's. */
enum bl_err
bl_password_verify(struct bl_req *r, const struct bl_account *a, const char *pw, size_t len,
    int *ok)
{
	enum bl_err	 e;

	*ok = 0;
	if ((e = bl_req_store(r)) != BL_OK)
		return e;
	return password_check(r, a->id, pw, len, ok);
}

/*
 * Setup without a shell (docs/ADMIN.md, "Setting up without a shell"): the
 * operator uploads a file burnlink-setup into the data directory, its first
 * line a code of at least 24 characters; the programs never create it. While
 * no account has the admin role and the file is at most 24 hours old, POST
 * /api/setup with that code shows the settings file's check and creates the
 * first operator's account. The file is deleted by the request that uses it,
 * and after 5 wrong codes.
 */
#define SETUP_FILE	"burnlink-setup"
#define SETUP_CODE_MIN	24
#define SETUP_CODE_MAX	512
#define SETUP_AGE_MS	(24LL * 3600 * 1000)

struct setup {
	char		 path[PATH_MAX];
	unsigned char	 digest[BL_HASH_BYTES];	/* SHA-256 of the code */
	char		 subject[96];		/* the wrong codes' counter: this file */
};

/* 1 with s filled when the file is there, young and holds a code; else 0. */
static int
setup_file(struct bl_req *r, struct setup *s)
{
	char		 dir[PATH_MAX], buf[SETUP_CODE_MAX + 2];
	struct stat	 st;
	ssize_t		 n;
	size_t		 len;
	int		 fd, ok = 0;

	bl_config_data_dir(&r->ctx->cfg, dir, sizeof(dir));
	if ((size_t)snprintf(s->path, sizeof(s->path), "%s/%s", dir, SETUP_FILE) >=
	    sizeof(s->path))
		return 0;
	if ((fd = open(s->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) == -1)
		return 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    r->now_ms - (int64_t)st.st_mtime * 1000 <= SETUP_AGE_MS &&
	    (n = read(fd, buf, sizeof(buf) - 1)) > 0) {
		buf[n] = '\0';
		len = strcspn(buf, "\r\n");
		if (len >= SETUP_CODE_MIN && len <= SETUP_CODE_MAX &&
		    bl_sha256(buf, len, s->digest) == 0) {
			/* the file (its inode, its time) and its code: a new file counts afresh */
			snprintf(s->subject, sizeof(s->subject), "%llu:%lld.%09ld:%02x%02x%02x%02x",
			    (unsigned long long)st.st_ino, (long long)st.st_mtim.tv_sec,
			    (long)st.st_mtim.tv_nsec, s->digest[0], s->digest[1], s->digest[2],
			    s->digest[3]);
			ok = 1;
		}
	} else if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    r->now_ms - (int64_t)st.st_mtime * 1000 > SETUP_AGE_MS)
		bl_log(r, "setup: %s is older than 24 hours: upload a new one", s->path);
	bl_wipe(buf, sizeof(buf));
	close(fd);
	return ok;
}

/* 1 when setup is open (s filled), 0 when closed, -1 with *e when the store failed. */
static int
setup_open(struct bl_req *r, struct setup *s, enum bl_err *e)
{
	int64_t	 admins;

	if (!setup_file(r, s))
		return 0;
	if ((*e = bl_req_store(r)) != BL_OK ||
	    (*e = bl_req_logged(r, bl_store_account_admins(r->store, &admins))) != BL_OK)
		return -1;
	return admins == 0;
}

/* GET /api/setup: {open}, nothing else. */
enum bl_err
bl_op_setup_get(struct bl_req *r)
{
	struct setup	 s;
	json_object	*o;
	enum bl_err	 e = BL_OK;
	int		 open_;

	if ((open_ = setup_open(r, &s, &e)) < 0)
		return e;
	bl_wipe(&s, sizeof(s));
	o = json_object_new_object();
	return bl_respond_json(r, 200, o, o == NULL ||
	    bl_json_add(o, "open", json_object_new_boolean(open_)));
}

/*
 * POST /api/setup {code[, name, password]}: with the code alone, the settings
 * file's check; with a name and a password too, that account, created with
 * the admin role and signed in (as POST /api/signup answers).
 */
enum bl_err
bl_op_setup(struct bl_req *r)
{
	const char		*code, *name, *pw;
	size_t			 clen, nlen, plen;
	unsigned char		 digest[BL_HASH_BYTES], hash[BL_PASSHASH_BYTES];
	struct setup		 s;
	struct bl_account	 a;
	struct bl_usage		 u;
	struct bl_sess		 ss;
	json_object		*o, *v;
	enum bl_err		 e = BL_OK;
	int			 open_, right;

	if ((e = body_string(r, "code", &code, &clen, BL_ERR_INVALID_SETUP_CODE,
	    "Send {\"code\": \"...\"} (the first line of burnlink-setup), with \"name\" and "
	    "\"password\" to create the operator's account.")) != BL_OK)
		return e;
	if ((open_ = setup_open(r, &s, &e)) < 0)
		return e;
	if (open_ == 0) {
		bl_wipe(&s, sizeof(s));
		return BL_ERR_SETUP_CLOSED;
	}
	right = bl_sha256(code, clen, digest) == 0 &&
	    bl_ct_equal(digest, s.digest, sizeof(digest));
	bl_wipe(digest, sizeof(digest));
	bl_wipe(s.digest, sizeof(s.digest));
	if (!right) {
		/* counted per file: a new file starts afresh */
		if ((e = bl_limit_count(r->ctx, BL_LIM_SETUP_FAIL, s.subject, strlen(s.subject),
		    &u)) != BL_OK)
			return e;
		bl_log(r, "setup: a wrong setup code (%lld of 5)", (long long)u.count);
		if (u.count > u.limit) {
			if (unlink(s.path) == 0)
				bl_log(r, "setup: %s deleted after 5 wrong codes", s.path);
			return bl_req_fail(r, BL_ERR_INVALID_SETUP_CODE, "That was the 5th wrong "
			    "code: burnlink-setup was deleted; upload a new one to try again.");
		}
		return bl_req_fail(r, BL_ERR_INVALID_SETUP_CODE, "Send the first line of the file "
		    "burnlink-setup in the data directory; %lld more wrong code%s delete%s it.",
		    (long long)(u.limit + 1 - u.count), u.limit + 1 - u.count == 1 ? "" : "s",
		    u.limit + 1 - u.count == 1 ? "s" : "");
	}
	/* The code alone: the settings file's check. */
	if (r->json == NULL || !json_object_object_get_ex(r->json, "name", &v)) {
		o = json_object_new_object();
		return bl_respond_json(r, 200, o, o == NULL ||
		    bl_json_add(o, "settings", bl_settings_check_json(&r->ctx->cfg)));
	}
	if ((e = body_string(r, "name", &name, &nlen, BL_ERR_INVALID_TEXT,
	    "name must be a string of 1 to 128 bytes (an e-mail address, say).")) != BL_OK ||
	    (e = body_string(r, "password", &pw, &plen, BL_ERR_INVALID_PASSWORD,
	    "password must be a string of 8 to 256 characters.")) != BL_OK)
		return e;
	if (!bl_name_valid(name, 0))
		return bl_req_fail(r, BL_ERR_INVALID_TEXT, "name must be 1 to 128 bytes of "
		    "printable text (an e-mail address, say).");
	if (!bl_password_valid(pw, plen))
		return BL_ERR_INVALID_PASSWORD;
	if (r->ctx->cfg.policy.err[0] != '\0')
		return bl_req_fail(r, BL_ERR_CONFIG_INVALID, "The settings file is invalid: "
		    "fix it first (POST /api/setup with the code alone shows what is wrong); "
		    "the setup code stays valid.");
	/* Nor while a data file lies under the document root (lib/serve.c): move it first. */
	if (r->ctx->cfg.exposed != NULL) {
		bl_log(r, "files: %s", r->ctx->cfg.exposed_err);
		return bl_req_fail(r, BL_ERR_CONFIG_INVALID, "A data file lies under the web "
		    "server's document root, where anyone could download it; move the data "
		    "directory out (the error log names it); the setup code stays valid.");
	}
	if ((e = bl_account_find(r->ctx, name, &a)) == BL_OK)
		return bl_req_fail(r, BL_ERR_ACCOUNT_EXISTS, "An account of this name exists; "
		    "choose another name (the setup code stays valid).");
	if (e != BL_ERR_NOT_FOUND)
		return e;
	if (bl_pass_hash(pw, plen, hash) != 0)
		return BL_ERR_INTERNAL;
	/* The file first: of two requests with the code, only the one that deletes it goes on. */
	if (unlink(s.path) != 0) {
		bl_wipe(hash, sizeof(hash));
		if (errno == ENOENT)
			return BL_ERR_SETUP_CLOSED;
		bl_log(r, "setup: cannot delete %s: %s", s.path, strerror(errno));
		return bl_req_fail(r, BL_ERR_STORE_UNAVAILABLE, "The programs cannot delete "
		    "burnlink-setup: the data directory must be writable by the user they run as "
		    "(INSTALL, section 6).");
	}
	/* From here on a failure must say what became of the file and the account. */
	bl_req_fail(r, BL_ERR_INTERNAL, "burnlink-setup was used up, but no operator account "
	    "was made; upload a new burnlink-setup and try again.");
	if ((e = bl_req_store(r)) == BL_OK)
		e = bl_store_account_setup(r->store, name, hash, r->now_ms, &a.id);
	bl_wipe(hash, sizeof(hash));
	if (e == BL_ERR_EXISTS)
		return bl_req_fail(r, BL_ERR_ACCOUNT_EXISTS, "An account of this name was made "
		    "meanwhile, and burnlink-setup was used up; upload a new one and choose "
		    "another name.");
	if (e != BL_OK)
		return bl_req_logged(r, e);
	bl_log(r, "setup: account %lld created with the admin role", (long long)a.id);
	bl_req_fail(r, BL_ERR_INTERNAL, "The operator account was created, but the server could "
	    "not sign you in; sign in with this name and password.");
	if ((e = bl_store_account_get(r->store, a.id, NULL, &a)) != BL_OK)
		return bl_req_logged(r, e);
	if ((e = session_start(r, &a, &ss)) != BL_OK)
		return e;
	return answer_session(r, &ss);
}
