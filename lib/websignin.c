/* websignin.c (layer: handlers): sign-in through the web server's REMOTE_USER (docs/ACCOUNTS.md, "Sign-in through the web server"). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

/*
 * Who the web server signed in: the CGI (or FastCGI) variable REMOTE_USER,
 * which only the web server sets (an authentication module: mod_auth_openidc,
 * mod_auth_mellon, mod_authnz_ldap, lighttpd's mod_auth). A client's own
 * "Remote-User:" header arrives as HTTP_REMOTE_USER, a query parameter in
 * QUERY_STRING, a cookie in HTTP_COOKIE: none of them is read here. NULL
 * when signin_webserver is off, or the variable is unset or empty.
 */
const char *
bl_webserver_user(const struct bl_req *r)
{
	const char	*u;

	if (!r->ctx->cfg.policy.signin_webserver)
		return NULL;
	u = bl_req_env(r, "REMOTE_USER");
	return u != NULL && *u != '\0' ? u : NULL;
}

/* 1 if the web server signed in the person of account a (names compare without ASCII case). */
int
bl_webserver_is(const struct bl_req *r, const struct bl_account *a)
{
	const char	*u = bl_webserver_user(r);

	return u != NULL && strcasecmp(u, a->name) == 0;
}

/* 1 if item (len bytes) is one of the comma-separated list's items; cmp is strncmp or strncasecmp. */
static int
in_list(const char *list, const char *item, size_t len,
    int (*cmp)(const char *, const char *, size_t))
{
	size_t	 n;

	while (*list != '\0') {
		n = strcspn(list, ",");
		if (n == len && cmp(list, item, len) == 0)
			return 1;
		list += n;
		if (*list == ',')
			list++;
	}
	return 0;
}

/* 1 if one of the groups in v (separated by commas, as mod_auth_openidc joins a claim's values) is allowed. */
static int
group_allowed(const char *allowed, const char *v)
{
	size_t	 n;

	while (v != NULL && *v != '\0') {
		while (*v == ' ' || *v == ',')
			v++;
		n = strcspn(v, ",");
		while (n > 0 && v[n - 1] == ' ')
			n--;
		if (n > 0 && in_list(allowed, v, n, strncmp))
			return 1;
		v += strcspn(v, ",");
	}
	return 0;
}

/*
 * The settings' checks of who may sign in: the e-mail domain (from
 * webserver_email_var, else the user name) and the groups (from
 * webserver_groups_var). BL_OK, or 403 SIGNIN_REFUSED with a hint saying why.
 */
static enum bl_err
allowed(struct bl_req *r, const char *user)
{
	const struct bl_policy	*pol = &r->ctx->cfg.policy;
	const char		*mail = user, *at;

	if (pol->email_var[0] != '\0')
		mail = bl_req_env(r, pol->email_var);
	if (pol->domains[0] != '\0') {
		if (mail == NULL || (at = strrchr(mail, '@')) == NULL || at[1] == '\0')
			return bl_req_fail(r, BL_ERR_SIGNIN_REFUSED, "Only addresses of "
			    "some domains may sign in here, and the web server gave no e-mail "
			    "address (%s); ask the operator.", pol->email_var[0] != '\0' ?
			    pol->email_var : "REMOTE_USER");
		if (!in_list(pol->domains, at + 1, strlen(at + 1), strncasecmp))
			return bl_req_fail(r, BL_ERR_SIGNIN_REFUSED, "Addresses of %.64s may "
			    "not sign in here; ask the operator if you should.", at + 1);
	}
	if (pol->groups[0] != '\0' && !group_allowed(pol->groups, bl_req_env(r, pol->groups_var)))
		return bl_req_fail(r, BL_ERR_SIGNIN_REFUSED, "You are in none of the groups "
		    "that may sign in here (%s); ask the operator to let you in.", pol->groups_var);
	return BL_OK;
}

/*
 * The admin role of the settings' admin_groups (docs/ADMIN.md): at each
 * web-server sign-in, an account in one of those groups is given the role
 * (BL_ADMIN_GROUP), and one that had it from a group and is in none of them
 * any more loses it. A role the operator gave (burnlink-admin account admin
 * NAME on) is theirs to take. Nothing is done while admin_groups is unset.
 */
static enum bl_err
admin_groups(struct bl_req *r, struct bl_account *a)
{
	const struct bl_policy	*pol = &r->ctx->cfg.policy;
	int			 in, want;
	enum bl_err		 e;

	if (pol->admin_groups[0] == '\0' || pol->groups_var[0] == '\0')
		return BL_OK;
	in = group_allowed(pol->admin_groups, bl_req_env(r, pol->groups_var));
	want = a->admin;
	if (in && a->admin == BL_ADMIN_NONE)
		want = BL_ADMIN_GROUP;
	else if (!in && a->admin == BL_ADMIN_GROUP)
		want = BL_ADMIN_NONE;
	if (want == a->admin)
		return BL_OK;
	if ((e = bl_req_logged(r, bl_store_account_admin(r->store, a->id, want))) != BL_OK)
		return e;
	bl_log(r, "web-server sign-in of account %lld: admin role %s by admin_groups",
	    (long long)a->id, want != BL_ADMIN_NONE ? "given" : "taken");
	a->admin = want;
	return BL_OK;
}

/*
 * The account of name (lower-cased): found without ASCII case, else created
 * when webserver_create is on. A password account of that name is the same
 * person only while sign-up is closed (the operator made it): with sign-up
 * open anyone could have taken the name first.
 */
static enum bl_err
webserver_account(struct bl_req *r, const char *name, struct bl_account *a)
{
	unsigned char	 pw[BL_PASSHASH_BYTES];
	int64_t		 id;
	enum bl_err	 e;

	e = bl_store_account_by_email(r->store, name, a);
	if (e == BL_OK) {
		if (!bl_signup_open(r))
			return BL_OK;
		e = bl_store_password_get(r->store, a->id, pw);
		bl_wipe(pw, sizeof(pw));
		if (e == BL_ERR_NOT_FOUND)
			return BL_OK;
		if (e != BL_OK)
			return bl_req_logged(r, e);
		return bl_req_fail(r, BL_ERR_SIGNIN_REFUSED, "An account that signs in with "
		    "a password has this name, and anyone can sign up here; the operator "
		    "must rename one of them.");
	}
	if (e != BL_ERR_NOT_FOUND)
		return bl_req_logged(r, e);
	if (!r->ctx->cfg.policy.webserver_create)
		return bl_req_fail(r, BL_ERR_SIGNIN_REFUSED, "There is no account %.64s here, "
		    "and signing in does not create one; ask the operator "
		    "(burnlink-admin account create).", name);
	e = bl_store_account_create(r->store, name, r->now_ms, &id);
	if (e == BL_ERR_EXISTS)		/* made meanwhile by a sign-in of its own */
		return bl_req_logged(r, bl_store_account_by_email(r->store, name, a));
	if (e != BL_OK)
		return bl_req_logged(r, e);
	return bl_req_logged(r, bl_store_account_get(r->store, id, NULL, a));
}

/*
 * The identity provider's e-mail address (the settings' webserver_email_var)
 * recorded as the account's, verified: the provider vouches for it, so mail
 * receipts and notifications reach the person without a verification mail
 * (docs/ACCOUNTS.md). Nothing when the variable is not set, empty or not an
 * address (the address recorded stays). An address another account has
 * verified is never taken: the sign-in goes on, the account's address stays
 * as it was, and the operator's log and the audit trail say so. A different
 * address replaces the account's (the provider's changed), and the one
 * replaced is told by mail.
 */
static enum bl_err
provider_email(struct bl_req *r, const struct bl_account *a)
{
	const struct bl_policy	*pol = &r->ctx->cfg.policy;
	const char		*v;
	char			 norm[BL_EMAIL_MAX + 1];
	int			 what = 0;
	enum bl_err		 e;

	if (pol->email_var[0] == '\0' || (v = bl_req_env(r, pol->email_var)) == NULL ||
	    *v == '\0')
		return BL_OK;
	if (!bl_email_normalise(v, strlen(v), norm)) {
		bl_log(r, "web-server sign-in of account %lld: %s is not an e-mail address; "
		    "not recorded", (long long)a->id, pol->email_var);
		return BL_OK;
	}
	if ((e = bl_req_logged(r, bl_store_email_provider(r->store, a->id, norm, r->now_ms,
	    &what))) != BL_OK)
		return e;
	if (what < 0)
		bl_log(r, "web-server sign-in of account %lld: the address in %s is another "
		    "account's verified address; not recorded", (long long)a->id, pol->email_var);
	else if (what > 0)
		bl_log(r, "web-server sign-in of account %lld: the address in %s recorded, "
		    "verified", (long long)a->id, pol->email_var);
	return BL_OK;
}

/*
 * POST /api/session {"webServer": true}: signs in the person the web server
 * signed in. The preamble checked the Origin (a login CSRF could not choose
 * the person anyway: only the web server names them). The answer is sign-in's:
 * a session of burnlink's own (via "webServer"), with its cookie and CSRF
 * token, so every later request is checked as a password session's is.
 */
enum bl_err
bl_op_sign_in_webserver(struct bl_req *r)
{
	const char		*user;
	char			 name[BL_NAME_MAX + 1];
	size_t			 i, n;
	struct bl_account	 a;
	enum bl_err		 e;

	if (!r->ctx->cfg.policy.signin_webserver)
		return bl_req_fail(r, BL_ERR_SIGNIN_OFF, "Sign-in through the web server "
		    "is off here (signin_webserver); sign in with e-mail and password.");
	if ((user = bl_webserver_user(r)) == NULL)
		return bl_req_fail(r, BL_ERR_NOT_SIGNED_IN, "The web server did not sign "
		    "you in (no REMOTE_USER): open the dashboard page, where the web server "
		    "asks who you are.");
	n = strlen(user);
	if (n > BL_NAME_MAX || !bl_name_valid(user, 0)) {
		bl_log(r, "web-server sign-in: REMOTE_USER is not a valid account name");
		return bl_req_fail(r, BL_ERR_SIGNIN_REFUSED, "The name the web server gave "
		    "is not a valid account name (1 to 128 bytes without control characters).");
	}
	for (i = 0; i <= n; i++)
		name[i] = (user[i] >= 'A' && user[i] <= 'Z') ? (char)(user[i] - 'A' + 'a') : user[i];
	if ((e = allowed(r, user)) != BL_OK) {
		bl_log(r, "web-server sign-in of %s refused: %s", name, r->hint);
		return e;
	}
	if ((e = bl_req_store(r)) != BL_OK || (e = webserver_account(r, name, &a)) != BL_OK)
		return e;
	if (a.disabled_ms >= 0)
		return BL_ERR_ACCOUNT_DISABLED;
	if ((e = admin_groups(r, &a)) != BL_OK || (e = provider_email(r, &a)) != BL_OK)
		return e;
	return bl_session_webserver(r, &a);
}
