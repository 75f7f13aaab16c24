/* totp.c (layer: handlers): the second factor of password accounts (docs/ACCOUNTS.md, "A second factor"): enrolment, the sign-in check, removal. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/*
 * RFC 6238 with its defaults: HMAC-SHA-1, a 30-second step, 6 digits. A code
 * of the step before or after is accepted too (clocks drift), and each step
 * at most once: the newest step used is stored and a code of it or an older
 * one is refused (a replay within the window).
 */
#define STEP		30
#define DIGITS		6
#define DRIFT		1
#define CODE_LEN	10	/* a recovery code: 10 base32 characters (50 bits), shown as xxxxx-xxxxx */
#define B32_LEN		32	/* base32 of the 20-byte secret */

/* The key that seals TOTP secrets: HMAC-SHA-256(install secret, "totp"), so a copy of the database alone yields no codes. */
static enum bl_err
seal_key(struct bl_req *r, unsigned char key[32])
{
	if (bl_req_install_key(r) != BL_OK)
		return BL_ERR_STORE_UNAVAILABLE;
	return bl_hmac_sha256(r->ctx->install_key, sizeof(r->ctx->install_key), "totp", 5, key) == 0 ?
	    BL_OK : BL_ERR_INTERNAL;
}

/* Seals a raw secret into t (AES-256-GCM, a fresh IV). */
static enum bl_err
seal(struct bl_req *r, const unsigned char raw[BL_TOTP_KEY_BYTES], struct bl_totp *t)
{
	unsigned char	 key[32];
	enum bl_err	 e;

	memset(t, 0, sizeof(*t));
	if ((e = seal_key(r, key)) == BL_OK && (bl_random(t->iv, BL_IV_BYTES) != 0 ||
	    bl_aes_gcm_encrypt(key, t->iv, raw, BL_TOTP_KEY_BYTES, t->ct) != 0))
		e = BL_ERR_INTERNAL;
	t->ctlen = sizeof(t->ct);
	bl_wipe(key, sizeof(key));
	return e;
}

/* Opens a sealed secret. */
static enum bl_err
unseal(struct bl_req *r, const struct bl_totp *t, unsigned char raw[BL_TOTP_KEY_BYTES])
{
	unsigned char	 key[32];
	enum bl_err	 e;

	if ((e = seal_key(r, key)) == BL_OK && (t->ctlen != sizeof(t->ct) ||
	    bl_aes_gcm_decrypt(key, t->iv, t->ct, t->ctlen, raw) != 0)) {
		bl_log(r, "second factor: the stored secret does not open under the install secret");
		e = BL_ERR_INTERNAL;
	}
	bl_wipe(key, sizeof(key));
	return e;
}

/* The 6-digit code in s (blanks allowed between digits), or -1. */
static int64_t
parse_code(const char *s)
{
	int64_t	 v = 0;
	int	 n = 0;

	for (; *s != '\0'; s++) {
		if (*s == ' ')
			continue;
		if (*s < '0' || *s > '9' || ++n > DIGITS)
			return -1;
		v = v * 10 + (*s - '0');
	}
	return n == DIGITS ? v : -1;
}

/*
 * The keyed hash of a recovery code for an account: HMAC-SHA-256(install
 * secret, "recovery" NUL account id NUL the 10 characters, upper case), so
 * that a copy of the database cannot be searched for codes. -1 when s is not
 * the shape of one (blanks and '-' are ignored, any case).
 */
static int
recovery_hash(struct bl_req *r, int64_t account_id, const char *s,
    unsigned char out[BL_HASH_BYTES])
{
	char	 msg[64], c[CODE_LEN];
	size_t	 n = 0;
	int	 len, rc;

	for (; *s != '\0'; s++) {
		if (*s == '-' || *s == ' ')
			continue;
		if (n == CODE_LEN)
			return -1;
		c[n] = (*s >= 'a' && *s <= 'z') ? (char)(*s - 'a' + 'A') : *s;
		if (!((c[n] >= 'A' && c[n] <= 'Z') || (c[n] >= '2' && c[n] <= '7')))
			return -1;
		n++;
	}
	if (n != CODE_LEN || bl_req_install_key(r) != BL_OK)
		return -1;
	len = snprintf(msg, sizeof(msg), "recovery%c%lld%c%.*s", 0, (long long)account_id, 0,
	    CODE_LEN, c);
	rc = len > 0 && (size_t)len < sizeof(msg) && bl_hmac_sha256(r->ctx->install_key,
	    sizeof(r->ctx->install_key), msg, (size_t)len, out) == 0 ? 0 : -1;
	bl_wipe(msg, sizeof(msg));
	bl_wipe(c, sizeof(c));
	return rc;
}

/*
 * The time step a code of raw matches (now, or DRIFT steps either side), or
 * -1. Every step is computed and compared in constant time.
 */
static int64_t
matching_step(struct bl_req *r, const unsigned char raw[BL_TOTP_KEY_BYTES], int64_t code)
{
	int64_t	 now = r->now_ms / 1000 / STEP, step, found = -1, want;

	for (step = now - DRIFT; step <= now + DRIFT; step++) {
		want = bl_hotp(raw, BL_TOTP_KEY_BYTES, (uint64_t)step, DIGITS);
		if (bl_ct_equal(&want, &code, sizeof(want)))
			found = step;
	}
	return found;
}

/*
 * Checks a code of the account's confirmed second factor: a TOTP code (its
 * step recorded, a replay refused) or a recovery code (used up). BL_OK, or
 * 401 INVALID_CODE with a hint.
 */
static enum bl_err
check_code(struct bl_req *r, int64_t account_id, const struct bl_totp *t, const char *code)
{
	unsigned char	 raw[BL_TOTP_KEY_BYTES], hash[BL_HASH_BYTES];
	int64_t		 c = parse_code(code), step;
	enum bl_err	 e;

	if (c >= 0) {
		if ((e = unseal(r, t, raw)) != BL_OK)
			return e;
		step = matching_step(r, raw, c);
		bl_wipe(raw, sizeof(raw));
		if (step < 0)
			return BL_ERR_INVALID_CODE;
		e = bl_store_totp_step(r->store, account_id, step);
		if (e == BL_ERR_NOT_FOUND)
			return bl_req_fail(r, BL_ERR_INVALID_CODE, "This code was used already; "
			    "wait for the next one of your authenticator app (every 30 seconds).");
		return bl_req_logged(r, e);
	}
	if (recovery_hash(r, account_id, code, hash) != 0)
		return BL_ERR_INVALID_CODE;
	e = bl_store_recovery_use(r->store, account_id, hash, r->now_ms);
	if (e == BL_ERR_NOT_FOUND)
		return BL_ERR_INVALID_CODE;
	if (e == BL_OK)
		bl_log(r, "second factor: a recovery code of account %lld was used", (long long)account_id);
	return bl_req_logged(r, e);
}

/* The string member k of the body, or NULL. */
static const char *
body_text(const struct bl_req *r, const char *k)
{
	json_object	*v;

	if (r->json == NULL || !json_object_object_get_ex(r->json, k, &v) ||
	    !json_object_is_type(v, json_type_string) ||
	    strlen(json_object_get_string(v)) != (size_t)json_object_get_string_len(v))
		return NULL;
	return json_object_get_string(v);
}

/* The account's second factor, confirmed or pending; *has 0 when none. */
static enum bl_err
totp_of(struct bl_req *r, int64_t account_id, struct bl_totp *t, int *has)
{
	enum bl_err	 e;

	*has = 0;
	if ((e = bl_req_store(r)) != BL_OK)
		return e;
	e = bl_store_totp_get(r->store, account_id, t);
	if (e == BL_ERR_NOT_FOUND)
		return BL_OK;
	if (e == BL_OK)
		*has = 1;
	return bl_req_logged(r, e);
}

/*
 * The sign-in check after a right password (lib/account.c): an account with a
 * confirmed second factor also needs {"code"}: 401 TOTP_REQUIRED without it,
 * 401 INVALID_CODE when wrong. Counted with the password's attempt.
 */
enum bl_err
bl_totp_signin(struct bl_req *r, const struct bl_account *a)
{
	struct bl_totp	 t;
	const char	*code;
	enum bl_err	 e;
	int		 has;

	if ((e = totp_of(r, a->id, &t, &has)) != BL_OK || !has || t.confirmed_ms < 0)
		return e;
	if ((code = body_text(r, "code")) == NULL)
		return BL_ERR_TOTP_REQUIRED;
	return check_code(r, a->id, &t, code);
}

/* A web-server session has no second factor here: its identity provider asks for one. */
static enum bl_err
password_account(struct bl_req *r)
{
	if (r->session.s.via == BL_VIA_WEBSERVER)
		return bl_req_fail(r, BL_ERR_SIGNIN_OFF, "You signed in through the web server: "
		    "your organisation's identity provider asks for the second factor.");
	return BL_OK;
}

/* GET /api/totp: {enabled, pending, recoveryCodesLeft}. */
enum bl_err
bl_op_totp_get(struct bl_req *r)
{
	struct bl_totp	 t;
	int64_t		 left = 0;
	json_object	*o;
	enum bl_err	 e;
	int		 has, on;

	if ((e = totp_of(r, r->session.account.id, &t, &has)) != BL_OK)
		return e;
	on = has && t.confirmed_ms >= 0;
	if (on && (e = bl_req_logged(r, bl_store_recovery_left(r->store,
	    r->session.account.id, &left))) != BL_OK)
		return e;
	o = json_object_new_object();
	return bl_respond_json(r, 200, o, o == NULL ||
	    bl_json_add(o, "enabled", json_object_new_boolean(on)) ||
	    bl_json_add(o, "pending", json_object_new_boolean(has && !on)) ||
	    bl_json_add(o, "recoveryCodesLeft", json_object_new_int64(left)));
}

/* Appends s to out as an RFC 3986 URI component (at most max bytes with the NUL); -1 if it does not fit. */
static int
pct_append(char *out, size_t max, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t		 n = strlen(out);
	unsigned char	 c;

	for (; *s != '\0'; s++) {
		c = (unsigned char)*s;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '.' || c == '_' || c == '~') {
			if (n + 1 >= max)
				return -1;
			out[n++] = (char)c;
		} else {
			if (n + 3 >= max)
				return -1;
			out[n++] = '%';
			out[n++] = hex[c >> 4];
			out[n++] = hex[c & 15];
		}
	}
	out[n] = '\0';
	return 0;
}

/*
 * Enrolment, step one ({password}): a new secret, sealed and stored
 * unconfirmed; the answer shows it once, as text and as an otpauth:// URI
 * (the page draws it as a QR code). The current password is asked so that a
 * stolen session cannot lock its owner out.
 */
static enum bl_err
totp_begin(struct bl_req *r)
{
	const struct bl_account	*a = &r->session.account;
	const char		*issuer = r->ctx->cfg.policy.site_name[0] != '\0' ?
				    r->ctx->cfg.policy.site_name : "burnlink";
	unsigned char		 raw[BL_TOTP_KEY_BYTES];
	char			 b32[B32_LEN + 8], uri[1024] = "otpauth://totp/";
	const char		*pw;
	struct bl_totp		 t;
	json_object		*o;
	enum bl_err		 e;
	int			 has, ok, bad;

	if ((pw = body_text(r, "password")) == NULL)
		return bl_req_fail(r, BL_ERR_INVALID_JSON, "Send {\"password\": \"...\"} (your "
		    "current password) to start, then {\"code\": \"123456\"} to confirm.");
	if ((e = totp_of(r, a->id, &t, &has)) != BL_OK)
		return e;
	if (has && t.confirmed_ms >= 0)
		return BL_ERR_TOTP_ENABLED;
	if ((e = bl_password_verify(r, a, pw, strlen(pw), &ok)) != BL_OK)
		return e;
	if (!ok)
		return BL_ERR_INVALID_CREDENTIALS;
	if (bl_random(raw, sizeof(raw)) != 0)
		return BL_ERR_INTERNAL;
	if ((e = seal(r, raw, &t)) != BL_OK ||
	    (e = bl_req_logged(r, bl_store_totp_put(r->store, a->id, &t, r->now_ms))) != BL_OK) {
		bl_wipe(raw, sizeof(raw));
		return e;
	}
	bl_base32_encode(raw, sizeof(raw), b32);
	bl_wipe(raw, sizeof(raw));
	/* otpauth://totp/<issuer>:<name>?secret=...&issuer=<issuer> (the Key Uri Format) */
	bad = pct_append(uri, sizeof(uri), issuer) || pct_append(uri, sizeof(uri), ":") ||
	    pct_append(uri, sizeof(uri), a->name);
	if (!bad)
		bad = snprintf(uri + strlen(uri), sizeof(uri) - strlen(uri),
		    "?secret=%s&algorithm=SHA1&digits=%d&period=%d&issuer=", b32, DIGITS, STEP) < 0 ||
		    pct_append(uri, sizeof(uri), issuer);
	o = json_object_new_object();
	bad = bad || o == NULL || bl_json_add(o, "success", json_object_new_boolean(1)) ||
	    bl_json_add(o, "secret", json_object_new_string(b32)) ||
	    bl_json_add(o, "otpauthUrl", json_object_new_string(uri)) ||
	    bl_json_add(o, "digits", json_object_new_int(DIGITS)) ||
	    bl_json_add(o, "period", json_object_new_int(STEP));
	bl_wipe(b32, sizeof(b32));
	bl_wipe(uri, sizeof(uri));
	return bl_respond_json(r, 200, o, bad);
}

/*
 * Enrolment, step two ({code}): a code of the new secret confirms it; the
 * answer carries 10 recovery codes, shown this once and stored as keyed
 * hashes. From now on every password sign-in asks for a code.
 */
static enum bl_err
totp_confirm(struct bl_req *r, const char *code)
{
	const struct bl_account	*a = &r->session.account;
	unsigned char		 raw[BL_TOTP_KEY_BYTES], hashes[BL_RECOVERY_CODES][BL_HASH_BYTES];
	unsigned char		 rnd[BL_RECOVERY_CODES][8];
	char			 b32[BL_RECOVERY_CODES][24], shown[BL_RECOVERY_CODES][16];
	struct bl_totp		 t;
	json_object		*o = NULL, *arr;
	int64_t			 c = parse_code(code), step;
	enum bl_err		 e;
	size_t			 i;
	int			 has, bad = 0;

	if ((e = totp_of(r, a->id, &t, &has)) != BL_OK)
		return e;
	if (has && t.confirmed_ms >= 0)
		return BL_ERR_TOTP_ENABLED;
	if (!has)
		return bl_req_fail(r, BL_ERR_TOTP_NOT_ENABLED, "Start the enrolment first: "
		    "POST /api/totp {\"password\": \"...\"}.");
	if (c < 0)
		return BL_ERR_INVALID_CODE;
	if ((e = unseal(r, &t, raw)) != BL_OK)
		return e;
	step = matching_step(r, raw, c);
	bl_wipe(raw, sizeof(raw));
	if (step < 0)
		return BL_ERR_INVALID_CODE;
	e = BL_ERR_INTERNAL;
	if (bl_random(rnd, sizeof(rnd)) != 0)
		goto out;
	for (i = 0; i < BL_RECOVERY_CODES; i++) {
		bl_base32_encode(rnd[i], 8, b32[i]);	/* 13 characters; 10 are used */
		snprintf(shown[i], sizeof(shown[i]), "%.5s-%.5s", b32[i], b32[i] + 5);
		if (recovery_hash(r, a->id, shown[i], hashes[i]) != 0)
			goto out;
	}
	e = bl_req_logged(r, bl_store_totp_confirm(r->store, a->id, step, r->now_ms,
	    (const unsigned char (*)[BL_HASH_BYTES])hashes, BL_RECOVERY_CODES));
	if (e == BL_ERR_NOT_FOUND)
		e = BL_ERR_TOTP_ENABLED;	/* confirmed meanwhile */
	if (e != BL_OK)
		goto out;
	bl_req_fail(r, BL_ERR_INTERNAL, "The second factor is on, but its recovery codes "
	    "could not be shown; turn it off with a code and on again for new ones.");
	bad = (o = json_object_new_object()) == NULL ||
	    bl_json_add(o, "success", json_object_new_boolean(1)) ||
	    bl_json_add(o, "enabled", json_object_new_boolean(1)) ||
	    bl_json_add(o, "recoveryCodes", arr = json_object_new_array());
	for (i = 0; !bad && i < BL_RECOVERY_CODES; i++)
		bad = json_object_array_add(arr, json_object_new_string(shown[i])) != 0;
	e = bl_respond_json(r, 200, o, bad);
out:
	bl_wipe(rnd, sizeof(rnd));
	bl_wipe(b32, sizeof(b32));
	bl_wipe(shown, sizeof(shown));
	return e;
}

/* POST /api/totp: {password} starts the enrolment, {code} confirms it. Attempts count as sign-ins. */
enum bl_err
bl_op_totp_post(struct bl_req *r)
{
	const char	*code = body_text(r, "code");
	enum bl_err	 e;

	if ((e = password_account(r)) != BL_OK ||
	    (e = bl_count_signin(r, r->session.account.name)) != BL_OK)
		return e;
	return code != NULL ? totp_confirm(r, code) : totp_begin(r);
}

/* DELETE /api/totp {code}: turns the second factor off with a code of it (or a recovery code). */
enum bl_err
bl_op_totp_delete(struct bl_req *r)
{
	const struct bl_account	*a = &r->session.account;
	struct bl_totp		 t;
	const char		*code;
	json_object		*o;
	enum bl_err		 e;
	int			 has;

	if ((e = password_account(r)) != BL_OK || (e = bl_count_signin(r, a->name)) != BL_OK ||
	    (e = totp_of(r, a->id, &t, &has)) != BL_OK)
		return e;
	if (!has || t.confirmed_ms < 0) {
		if (has && (e = bl_req_logged(r, bl_store_totp_delete(r->store, a->id))) != BL_OK)
			return e;	/* an enrolment never confirmed just goes */
		if (!has)
			return BL_ERR_TOTP_NOT_ENABLED;
	} else {
		if ((code = body_text(r, "code")) == NULL)
			return bl_req_fail(r, BL_ERR_INVALID_JSON, "Send {\"code\": \"...\"}: a code "
			    "of your authenticator app, or a recovery code.");
		if ((e = check_code(r, a->id, &t, code)) != BL_OK ||
		    (e = bl_req_logged(r, bl_store_totp_delete(r->store, a->id))) != BL_OK)
			return e;
	}
	o = json_object_new_object();
	return bl_respond_json(r, 200, o, o == NULL ||
	    bl_json_add(o, "success", json_object_new_boolean(1)) ||
	    bl_json_add(o, "enabled", json_object_new_boolean(0)));
}
