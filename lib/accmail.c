/* accmail.c (layer: handlers): the mail accounts need: /api/email (the address, its verification) and /api/token (the links of the mails: verify, reset the password) (docs/NOTIFY.md, docs/API.md). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Queues the verification mail of email as the account's address (bl_email_token_issue()). */
static enum bl_err
mail_verify(struct bl_req *r, int64_t account_id, const char *email)
{
	enum bl_err	 e;

	if ((e = bl_req_store(r)) != BL_OK)
		return e;
	return bl_req_logged(r, bl_email_token_issue(r->store, account_id, email,
	    BL_TOKEN_VERIFY, r->now_ms));
}

static enum bl_err
respond_email(struct bl_req *r, int success, const struct bl_email *m)
{
	json_object	*o;

	o = json_object_new_object();
	return bl_respond_json(r, 200, o, o == NULL ||
	    (success && bl_json_add(o, "success", json_object_new_boolean(1))) ||
	    (m->email[0] != '\0' ? bl_json_add(o, "email", json_object_new_string(m->email)) :
	    bl_json_add_null(o, "email")) ||
	    bl_json_add(o, "verified", json_object_new_boolean(m->verified_ms >= 0)));
}

/* GET /api/email: the address notifications go to, and whether it is verified. */
enum bl_err
bl_op_email_get(struct bl_req *r)
{
	struct bl_email	 m;
	enum bl_err	 e;

	if ((e = bl_req_store(r)) != BL_OK)
		return e;
	e = bl_store_email_get(r->store, r->session.account.id, &m);
	if (e == BL_ERR_NOT_FOUND) {
		memset(&m, 0, sizeof(m));
		m.verified_ms = -1;
		e = BL_OK;
	}
	if ((e = bl_req_logged(r, e)) != BL_OK)
		return e;
	return respond_email(r, 0, &m);
}

/* The string member k of the body, or NULL when absent; *bad when not a string. */
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
 * POST /api/email {email, currentPassword}: makes email the account's
 * address, not verified until the link of the mail sent to it comes back
 * (POST /api/token). The same address again resends the mail (and keeps it
 * verified if it was). The password is asked for, as POST /api/password
 * does, so that a stolen session cannot move the account's mail (and so its
 * password resets) elsewhere; a verified address replaced is told by mail.
 */
enum bl_err
bl_op_email_set(struct bl_req *r)
{
	char		 norm[BL_EMAIL_MAX + 1];
	const char	*email, *pw;
	size_t		 len, plen;
	int		 bad = 0;
	int64_t		 id = r->session.account.id;
	struct bl_email	 m;
	enum bl_err	 e;

	email = member(r, "email", &len, &bad);
	if (email == NULL || !bl_email_normalise(email, len, norm))
		return bl_req_fail(r, BL_ERR_INVALID_EMAIL,
		    "Send {\"email\": \"name@example.org\"}: at most 254 bytes.");
	pw = member(r, "currentPassword", &plen, &bad);
	if (pw == NULL || strlen(pw) != plen)
		return bl_req_fail(r, BL_ERR_INVALID_JSON, "Send {\"email\": \"...\", "
		    "\"currentPassword\": \"...\"}: changing the address needs the "
		    "account's password.");
	if ((e = bl_account_confirm(r, pw, plen)) != BL_OK ||
	    (e = bl_limit_take(r, BL_LIM_EMAIL, &id, sizeof(id), NULL)) != BL_OK ||
	    (e = mail_verify(r, id, norm)) != BL_OK)
		return e;
	/* From here on a failure must say that the address was set. */
	bl_req_fail(r, BL_ERR_INTERNAL, "The address was set and its verification mail "
	    "queued, but the server could not answer; GET /api/email shows it.");
	if ((e = bl_req_logged(r, bl_store_email_get(r->store, id, &m))) != BL_OK)
		return e;
	return respond_email(r, 1, &m);
}

static enum bl_err
respond_done(struct bl_req *r)
{
	json_object	*o;

	o = json_object_new_object();
	return bl_respond_json(r, 200, o, o == NULL ||
	    bl_json_add(o, "success", json_object_new_boolean(1)));
}

/*
 * POST /api/token:
 *   {email}            a password-reset mail to that address if an account
 *                      has it verified; the same answer whether or not
 *   {token}            verifies the address the token was sent to
 *   {token, password}  sets a new password and ends every session
 * A token works once, for BL_TOKEN_TTL seconds; else 400 INVALID_TOKEN.
 */
enum bl_err
bl_op_token(struct bl_req *r)
{
	char		 norm[BL_EMAIL_MAX + 1];
	unsigned char	 hash[BL_HASH_BYTES], pass[BL_PASSHASH_BYTES];
	const char	*email, *token, *pw;
	size_t		 elen, tlen, plen;
	int		 bad = 0;
	int64_t		 account = 0;
	enum bl_err	 e;

	email = member(r, "email", &elen, &bad);
	token = member(r, "token", &tlen, &bad);
	pw = member(r, "password", &plen, &bad);
	if (bad || (email == NULL) == (token == NULL) || (email != NULL && pw != NULL))
		return bl_req_fail(r, BL_ERR_INVALID_JSON, "Send {\"email\": ...} to be "
		    "mailed a reset link, or {\"token\": ...} from a mail's link (with "
		    "\"password\" to set a new one).");
	if (email != NULL) {
		/*
		 * The same work and the same headers whatever the address: one
		 * outbox row; cron/notify finds the account, keeps a reset link
		 * still valid rather than voiding it, and mails (docs/ACCOUNTS.md).
		 */
		if (!bl_email_normalise(email, elen, norm))
			return BL_ERR_INVALID_EMAIL;
		if ((e = bl_req_store(r)) != BL_OK ||
		    (e = bl_req_logged(r, bl_store_reset_request(r->store, norm, r->now_ms))) != BL_OK)
			return e;
		return respond_done(r);
	}
	if (pw != NULL && !bl_password_valid(pw, plen))
		return BL_ERR_INVALID_PASSWORD;
	if (tlen != 43 || bl_sha256(token, tlen, hash) != 0)
		return BL_ERR_INVALID_TOKEN;
	if (pw != NULL && bl_pass_hash(pw, plen, pass) != 0)
		return BL_ERR_INTERNAL;
	if ((e = bl_req_store(r)) == BL_OK)
		e = bl_req_logged(r, bl_store_email_redeem(r->store, hash,
		    pw != NULL ? BL_TOKEN_RESET : BL_TOKEN_VERIFY, r->now_ms, &account,
		    pw != NULL ? pass : NULL));
	bl_wipe(pass, sizeof(pass));
	if (e != BL_OK)
		return e;
	if (pw != NULL)
		bl_signin_clear(r, account);
	return respond_done(r);
}
