/* auth.c (layer: domain): accounts, their passwords and API keys (the Authorization header). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

static int
b64url_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '-' || c == '_';
}

/* 1 if s (len bytes) has the shape of an API key: "bl_" + 43 url-safe base64. */
static int
key_shape(const char *s, size_t len)
{
	size_t	 i;

	if (len != BL_API_KEY_LEN || strncmp(s, "bl_", 3) != 0)
		return 0;
	for (i = 3; i < len; i++)
		if (!b64url_char((unsigned char)s[i]))
			return 0;
	return 1;
}

/*
 * The account of the API key in an Authorization header h (NULL: none). No
 * header, or one with another scheme (Basic, for a server's own password
 * protection), is anonymous: *account_id and *key_id are 0. "Bearer <key>"
 * (or a bare "bl_...") with a key that is malformed, unknown or revoked is 401
 * INVALID_API_KEY, with *hint saying which.
 */
enum bl_err
bl_key_check(struct bl_ctx *c, const char *h, int64_t *account_id, int64_t *key_id,
    const char **hint)
{
	unsigned char		 hash[BL_HASH_BYTES];
	struct bl_api_key	 k;
	size_t			 len;
	enum bl_err		 e;

	*account_id = 0;
	*key_id = 0;
	if (h == NULL)
		return BL_OK;
	while (*h == ' ' || *h == '\t')
		h++;
	if (strncasecmp(h, "Bearer", 6) == 0 && (h[6] == ' ' || h[6] == '\t' || h[6] == '\0')) {
		h += 6;
		while (*h == ' ' || *h == '\t')
			h++;
	} else if (strncmp(h, "bl_", 3) != 0)
		return BL_OK;
	len = strlen(h);
	while (len > 0 && (h[len - 1] == ' ' || h[len - 1] == '\t'))
		len--;
	if (!key_shape(h, len)) {
		*hint = "API keys look like bl_ followed by 43 characters; send "
		    "Authorization: Bearer <key>, or no Authorization header to create "
		    "anonymously.";
		return BL_ERR_INVALID_API_KEY;
	}
	if (bl_sha256(h, len, hash) != 0)
		return BL_ERR_INTERNAL;
	if ((e = bl_ctx_store(c)) != BL_OK)
		return e;
	e = bl_store_key_find(c->store, hash, &k);
	if (e == BL_ERR_NOT_FOUND) {
		*hint = "This API key is unknown; check it, or send no Authorization "
		    "header to create anonymously.";
		return BL_ERR_INVALID_API_KEY;
	}
	if (e != BL_OK) {
		bl_log_id(c->log_id, "database: %s", bl_store_error(c->store));
		return e;
	}
	if (k.revoked_ms >= 0) {
		*hint = "This API key was revoked; ask for a new one, or send no "
		    "Authorization header to create anonymously.";
		return BL_ERR_INVALID_API_KEY;
	}
	if (k.account_disabled_ms >= 0) {
		*hint = "The operator disabled this key's account: its API keys are refused "
		    "until they enable it again.";
		return BL_ERR_ACCOUNT_DISABLED;
	}
	*account_id = k.account_id;
	*key_id = k.id;
	return BL_OK;
}

/* 1 if s is a valid account name or key label: 1-128 bytes (0 if allow_empty), bl_text_valid(). */
int
bl_name_valid(const char *s, int allow_empty)
{
	size_t	 n = strlen(s);

	return (n > 0 || allow_empty) && n <= BL_NAME_MAX && bl_text_valid(s, n);
}

/* Logs a store failure and passes e on. */
static enum bl_err
logged(struct bl_ctx *c, enum bl_err e)
{
	if (e != BL_OK && e != BL_ERR_NOT_FOUND && e != BL_ERR_EXISTS && c->store != NULL)
		bl_log_id(c->log_id, "database: %s", bl_store_error(c->store));
	return e;
}

/* Creates an account; BL_ERR_EXISTS if the name is taken, INVALID_TEXT if invalid. */
enum bl_err
bl_account_create(struct bl_ctx *c, const char *name, struct bl_account *a)
{
	int64_t		 id;
	enum bl_err	 e;

	if (!bl_name_valid(name, 0))
		return BL_ERR_INVALID_TEXT;
	if ((e = bl_ctx_store(c)) != BL_OK ||
	    (e = logged(c, bl_store_account_create(c->store, name, c->now_ms, &id))) != BL_OK)
		return e;
	return logged(c, bl_store_account_get(c->store, id, NULL, a));
}

/* Parses a positive decimal id; 0 if s is not one. */
static int64_t
parse_id(const char *s)
{
	int64_t	 v = 0;

	if (*s == '\0' || *s == '0')
		return 0;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9' || v > (INT64_MAX - 9) / 10)
			return 0;
		v = v * 10 + (*s - '0');
	}
	return v;
}

/* Finds an account by its id (all digits) or its name; NOT_FOUND if none. */
enum bl_err
bl_account_find(struct bl_ctx *c, const char *s, struct bl_account *a)
{
	int64_t		 id = parse_id(s);
	enum bl_err	 e;

	if ((e = bl_ctx_store(c)) != BL_OK)
		return e;
	if (id > 0 && (e = logged(c, bl_store_account_get(c->store, id, NULL, a))) !=
	    BL_ERR_NOT_FOUND)
		return e;
	return logged(c, bl_store_account_get(c->store, 0, s, a));
}

enum bl_err
bl_account_list(struct bl_ctx *c, int (*cb)(void *, const struct bl_account *), void *arg)
{
	enum bl_err	 e;

	if ((e = bl_ctx_store(c)) != BL_OK)
		return e;
	return logged(c, bl_store_account_list(c->store, cb, arg));
}

/*
 * Issues a new key for an account: 32 random bytes, "bl_" + url-safe base64.
 * The key is written to key (the only time it exists outside the caller);
 * only its SHA-256 is stored.
 */
enum bl_err
bl_key_issue(struct bl_ctx *c, int64_t account_id, const char *label,
    char key[BL_API_KEY_LEN + 1], struct bl_api_key *k)
{
	unsigned char	 raw[32], hash[BL_HASH_BYTES];
	char		*enc = NULL;
	size_t		 elen = 0;
	enum bl_err	 e = BL_ERR_INTERNAL;

	if (label == NULL)
		label = "";
	if (!bl_name_valid(label, 1))
		return BL_ERR_INVALID_TEXT;
	if (bl_random(raw, sizeof(raw)) != 0 ||
	    (enc = bl_b64url_encode(raw, sizeof(raw), &elen)) == NULL ||
	    elen != BL_API_KEY_LEN - 3)
		goto out;
	memcpy(key, "bl_", 3);
	memcpy(key + 3, enc, elen + 1);
	if (bl_sha256(key, BL_API_KEY_LEN, hash) != 0)
		goto out;
	memset(k, 0, sizeof(*k));
	k->account_id = account_id;
	memcpy(k->prefix, key, BL_API_KEY_PREFIX);
	k->prefix[BL_API_KEY_PREFIX] = '\0';
	snprintf(k->label, sizeof(k->label), "%s", label);
	k->created_ms = c->now_ms;
	k->last_used_ms = -1;
	k->revoked_ms = -1;
	if ((e = bl_ctx_store(c)) == BL_OK)
		e = logged(c, bl_store_key_insert(c->store, hash, k));
out:
	if (e != BL_OK)
		bl_wipe(key, BL_API_KEY_LEN + 1);
	if (enc != NULL)
		bl_free_wipe(enc, elen);
	bl_wipe(raw, sizeof(raw));
	return e;
}

/* Finds a key by its id, or by the whole key ("bl_..."); NOT_FOUND if none. */
enum bl_err
bl_key_find(struct bl_ctx *c, const char *s, struct bl_api_key *k)
{
	unsigned char	 hash[BL_HASH_BYTES];
	int64_t		 id;
	enum bl_err	 e;

	if ((e = bl_ctx_store(c)) != BL_OK)
		return e;
	if (key_shape(s, strlen(s))) {
		if (bl_sha256(s, strlen(s), hash) != 0)
			return BL_ERR_INTERNAL;
		return logged(c, bl_store_key_find(c->store, hash, k));
	}
	if ((id = parse_id(s)) == 0)
		return BL_ERR_NOT_FOUND;
	return logged(c, bl_store_key_get(c->store, id, k));
}

enum bl_err
bl_key_list(struct bl_ctx *c, int64_t account_id,
    int (*cb)(void *, const struct bl_api_key *), void *arg)
{
	enum bl_err	 e;

	if ((e = bl_ctx_store(c)) != BL_OK)
		return e;
	return logged(c, bl_store_key_list(c->store, account_id, cb, arg));
}

/* Revokes a key; NOT_FOUND if there is no valid key with that id. */
enum bl_err
bl_key_revoke(struct bl_ctx *c, int64_t key_id)
{
	enum bl_err	 e;

	if ((e = bl_ctx_store(c)) != BL_OK)
		return e;
	return logged(c, bl_store_key_revoke(c->store, key_id, c->now_ms));
}

/* 1 if a password has 8 to 256 characters (code points) of valid UTF-8. */
int
bl_password_valid(const char *p, size_t len)
{
	size_t	 n = bl_utf8_codepoints(p, len);

	return n != (size_t)-1 && n >= BL_PASSWORD_MIN && n <= BL_PASSWORD_MAX;
}

/* Sets an account's password (8-256 characters) and ends its sessions. */
/*
 * Sets an account's e-mail address for the operator (burnlink-admin account
 * email): verified at once, so that mail receipts and password resets reach
 * it (docs/ADMIN.md). INVALID_EMAIL when it is not an address; NOT_FOUND when
 * there is no such account.
 */
enum bl_err
bl_account_set_email(struct bl_ctx *c, int64_t account_id, const char *email)
{
	char			 norm[BL_EMAIL_MAX + 1];
	struct bl_account	 a;
	enum bl_err		 e;

	if (!bl_email_normalise(email, strlen(email), norm))
		return BL_ERR_INVALID_EMAIL;
	if ((e = bl_ctx_store(c)) != BL_OK ||
	    (e = logged(c, bl_store_account_get(c->store, account_id, NULL, &a))) != BL_OK)
		return e;
	return logged(c, bl_store_email_assign(c->store, account_id, norm, c->now_ms));
}

enum bl_err
bl_account_set_password(struct bl_ctx *c, int64_t account_id, const char *pw, size_t len)
{
	unsigned char		 hash[BL_PASSHASH_BYTES];
	struct bl_account	 a;
	enum bl_err		 e;

	if (!bl_password_valid(pw, len))
		return BL_ERR_INVALID_PASSWORD;
	if ((e = bl_ctx_store(c)) != BL_OK ||
	    (e = logged(c, bl_store_account_get(c->store, account_id, NULL, &a))) != BL_OK)
		return e;
	if (bl_pass_hash(pw, len, hash) != 0)
		return BL_ERR_INTERNAL;
	e = bl_store_password_set(c->store, account_id, hash, c->now_ms);
	bl_wipe(hash, sizeof(hash));
	return logged(c, e);
}

/*
 * Removes an account's second factor and its recovery codes (burnlink-admin
 * account 2fa-reset, for a person who lost both); its sessions stay.
 */
enum bl_err
bl_account_totp_reset(struct bl_ctx *c, int64_t account_id)
{
	enum bl_err	 e;

	if ((e = bl_ctx_store(c)) != BL_OK)
		return e;
	return logged(c, bl_store_totp_delete(c->store, account_id));
}

/*
 * Gives (admin BL_ADMIN_OPERATOR) or takes (BL_ADMIN_NONE) an account's admin
 * role (docs/ADMIN.md); NOT_FOUND when there is no such account.
 */
enum bl_err
bl_account_set_admin(struct bl_ctx *c, int64_t account_id, int admin)
{
	enum bl_err	 e;

	if ((e = bl_ctx_store(c)) != BL_OK)
		return e;
	return logged(c, bl_store_account_admin(c->store, account_id, admin));
}

/*
 * Disables an account (its sign-in, sessions and API keys refused: 401
 * ACCOUNT_DISABLED, docs/API.md) or enables it again; NOT_FOUND when there is
 * no such account.
 */
enum bl_err
bl_account_set_disabled(struct bl_ctx *c, int64_t account_id, int disabled)
{
	enum bl_err	 e;

	if ((e = bl_ctx_store(c)) != BL_OK)
		return e;
	return logged(c, bl_store_account_disable(c->store, account_id,
	    disabled ? c->now_ms : -1));
}

/* Deletes an account (bl_store_account_delete(): its secrets burned, sessions ended, keys revoked). */
enum bl_err
bl_account_delete(struct bl_ctx *c, int64_t account_id)
{
	struct bl_account	 a;
	enum bl_err		 e;

	if ((e = bl_ctx_store(c)) != BL_OK ||
	    (e = logged(c, bl_store_account_get(c->store, account_id, NULL, &a))) != BL_OK)
		return e;
	return logged(c, bl_store_account_delete(c->store, account_id, c->now_ms));
}
