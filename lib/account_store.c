/* account_store.c (layer: domain): accounts, API keys, passwords and sessions, written once above the backends (lib/store.h). */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "store.h"

/* Row callback: an account (BL_ACCOUNT_COLUMNS). */
static int
account_row(void *arg, const struct bl_row *row)
{
	struct bl_account	*a = arg;

	memset(a, 0, sizeof(*a));
	a->id = bl_col_int(row, 0, 0);
	bl_col_text(row, 1, a->name, sizeof(a->name));
	a->created_ms = bl_col_int(row, 2, 0);
	a->keys_active = bl_col_int(row, 3, 0);
	a->secrets = bl_col_int(row, 4, 0);
	a->secrets_active = bl_col_int(row, 5, 0);
	a->admin = (int)bl_col_int(row, 6, 0);
	a->disabled_ms = bl_col_int(row, 7, -1);
	return 0;
}

/* Row callback: an API key (BL_KEY_COLUMNS). */
static int
key_row(void *arg, const struct bl_row *row)
{
	struct bl_api_key	*k = arg;

	memset(k, 0, sizeof(*k));
	k->id = bl_col_int(row, 0, 0);
	k->account_id = bl_col_int(row, 1, 0);
	bl_col_text(row, 2, k->prefix, sizeof(k->prefix));
	bl_col_text(row, 3, k->label, sizeof(k->label));
	k->created_ms = bl_col_int(row, 4, 0);
	k->last_used_ms = bl_col_int(row, 5, -1);
	k->revoked_ms = bl_col_int(row, 6, -1);
	k->account_disabled_ms = bl_col_int(row, 7, -1);
	return 0;
}

/* Inside a transaction: the account's row and its audit event; BL_ERR_EXISTS if the name is taken. */
static enum bl_err
account_insert(struct bl_store *s, const char *name, int64_t now, int64_t *id)
{
	enum bl_err	 e;

	*id = 0;
	if ((e = bl_st_run(s, ST_ACCOUNT_INSERT, PARMS(P_TEXT(name), P_INT(now)), bl_row_id, id,
	    NULL)) != BL_OK)
		return e;
	return bl_audit(s, BL_EV_SIGNED_UP, *id, *id, NULL, "ok", NULL);
}

/* Creates an account; BL_ERR_EXISTS if the name is taken. */
enum bl_err
bl_store_account_create(struct bl_store *s, const char *name, int64_t now, int64_t *id)
{
	enum bl_err	 e;

	if ((e = bl_st_begin(s)) != BL_OK)
		return e;
	return bl_st_end(s, account_insert(s, name, now, id));
}

/* Finds an account by id, or by name when name is not NULL; NOT_FOUND if none. */
enum bl_err
bl_store_account_get(struct bl_store *s, int64_t id, const char *name, struct bl_account *a)
{
	return bl_st_one(s, ST_ACCOUNT_GET, PARMS(P_INT(name != NULL ? -1 : id),
	    P_TEXT_OR_NULL(name)), account_row, a);
}

/*
 * Finds the account whose name, with ASCII letters lower-cased, is email (which
 * the caller lower-cased); the oldest if several. NOT_FOUND if none.
 */
enum bl_err
bl_store_account_by_email(struct bl_store *s, const char *email, struct bl_account *a)
{
	return bl_st_one(s, ST_ACCOUNT_BY_EMAIL, PARMS(P_TEXT(email)), account_row, a);
}

/*
 * A listing: each row read as one kind of item (an account, a key, a secret)
 * and handed to the caller's callback, until it returns non-zero.
 */
enum list_kind {
	LIST_ACCOUNTS,
	LIST_KEYS,
	LIST_SECRETS
};

struct list {
	enum list_kind	 kind;
	union {
		int	(*account)(void *, const struct bl_account *);
		int	(*key)(void *, const struct bl_api_key *);
		int	(*secret)(void *, const struct bl_secret *);
	} cb;
	void		*arg;
};

static int
list_row(void *arg, const struct bl_row *row)
{
	struct list		*l = arg;
	union {
		struct bl_account	 a;
		struct bl_api_key	 k;
		struct bl_secret	 s;
	} item;

	switch (l->kind) {
	case LIST_ACCOUNTS:
		account_row(&item.a, row);
		return l->cb.account(l->arg, &item.a) != 0;
	case LIST_KEYS:
		key_row(&item.k, row);
		return l->cb.key(l->arg, &item.k) != 0;
	default:
		if (bl_secret_row(&item.s, row) != 0)
			return -1;
		/* after the row and its flag: NOTIFY_COLUMNS (lib/store_sql.c) */
		bl_col_text(row, BL_ROW_NCOLS + 1, item.s.last_event, sizeof(item.s.last_event));
		item.s.last_event_ms = bl_col_int(row, BL_ROW_NCOLS + 2, -1);
		bl_col_text(row, BL_ROW_NCOLS + 3, item.s.receipt_id, sizeof(item.s.receipt_id));
		return l->cb.secret(l->arg, &item.s) != 0;
	}
}

/* Calls cb for every account in id order; stops early when cb returns non-zero. */
enum bl_err
bl_store_account_list(struct bl_store *s, int (*cb)(void *, const struct bl_account *),
    void *arg)
{
	struct list	 l = { LIST_ACCOUNTS, { .account = cb }, arg };

	return bl_st_run(s, ST_ACCOUNT_LIST, NO_PARMS, list_row, &l, NULL);
}

/*
 * Calls cb for at most max accounts after id after, in id order, whose name
 * (lower-cased) matches the LIKE pattern (""; any), deleted ones left out.
 */
enum bl_err
bl_store_account_page(struct bl_store *s, const char *pattern, int64_t after, int64_t max,
    int (*cb)(void *, const struct bl_account *), void *arg)
{
	struct list	 l = { LIST_ACCOUNTS, { .account = cb }, arg };

	return bl_st_run(s, ST_ACCOUNT_PAGE, PARMS(P_TEXT(pattern), P_INT(after), P_INT(max)),
	    list_row, &l, NULL);
}

/* Sets an account's admin role (BL_ADMIN_*); NOT_FOUND if there is no such account. */
enum bl_err
bl_store_account_admin(struct bl_store *s, int64_t id, int admin)
{
	int64_t	 n = 0;
	enum bl_err	 e;

	if ((e = bl_st_run(s, ST_ACCOUNT_ADMIN, PARMS(P_INT(id), P_INT(admin)), NULL, NULL,
	    &n)) != BL_OK)
		return e;
	return n > 0 ? BL_OK : BL_ERR_NOT_FOUND;
}

/* How many accounts have the admin role (POST /api/setup is open only while none has). */
enum bl_err
bl_store_account_admins(struct bl_store *s, int64_t *n)
{
	*n = 0;
	return bl_st_one(s, ST_ACCOUNT_ADMINS, NO_PARMS, bl_row_id, n);
}

/* Disables an account (at now) or, now < 0, enables it; NOT_FOUND if there is no such account. */
enum bl_err
bl_store_account_disable(struct bl_store *s, int64_t id, int64_t now)
{
	int64_t	 n = 0;
	enum bl_err	 e;

	if ((e = bl_st_begin(s)) != BL_OK)
		return e;
	e = bl_st_run(s, ST_ACCOUNT_DISABLE, PARMS(P_INT(id), P_INT_OR_NULL(now >= 0, now)),
	    NULL, NULL, &n);
	if (e == BL_OK && n == 0)
		e = BL_ERR_NOT_FOUND;
	/* account.disabled, enabling too (its detail says which), in the same transaction */
	if (e == BL_OK)
		e = bl_audit(s, BL_EV_ACCOUNT_DISABLED, id, id, NULL, "ok",
		    now >= 0 ? "disabled" : "enabled");
	return bl_st_end(s, e);
}

/* Row callback: the id of the first column into an array (struct ids). */
struct ids {
	int64_t	 id[100];
	size_t	 n;
};

static int
ids_row(void *arg, const struct bl_row *row)
{
	struct ids	*l = arg;

	if (l->n < sizeof(l->id) / sizeof(l->id[0]))
		l->id[l->n++] = bl_col_int(row, 0, 0);
	return 0;
}

/*
 * Deletes an account (docs/ADMIN.md): its active secrets burned (each with
 * its "secret.burned" event, by "admin"), then in one transaction its keys
 * revoked, its webhooks deleted and their pending deliveries dropped, its
 * sessions ended, its password, address and second factor removed, and the
 * row kept as a tombstone named "deleted:<id>" (its keys and secrets name it).
 */
enum bl_err
bl_store_account_delete(struct bl_store *s, int64_t id, int64_t now)
{
	static const enum bl_stmt	 drop[] = { ST_WEBHOOK_DELETE_ALL, ST_OUTBOX_UNQUEUE_ACCOUNT,
	    ST_SESSION_END_ALL, ST_PASSWORD_DELETE, ST_EMAIL_DELETE, ST_TOTP_DELETE,
	    ST_RECOVERY_DELETE };
	struct ids	 l;
	int64_t		 after = 0;
	char		 name[32];
	size_t		 i;
	enum bl_err	 e;

	if ((e = bl_st_alone(s, ST_ACCOUNT_DISABLE, PARMS(P_INT(id), P_INT(now)), NULL, NULL)) != BL_OK)
		return e;
	do {
		l.n = 0;
		if ((e = bl_st_run(s, ST_ACCOUNT_ACTIVE, PARMS(P_INT(id), P_INT(after)), ids_row,
		    &l, NULL)) != BL_OK)
			return e;
		/* one that ended meanwhile (its expiry, its last view) is gone already */
		for (i = 0; i < l.n; i++) {
			after = l.id[i];
			e = bl_store_burn(s, l.id[i], now, "admin");
			if (e != BL_OK && e != BL_ERR_SECRET_EXPIRED && e != BL_ERR_SECRET_BURNED &&
			    e != BL_ERR_MAX_VIEWS_REACHED && e != BL_ERR_NOT_FOUND)
				return e;
		}
	} while (l.n > 0);
	snprintf(name, sizeof(name), "deleted:%lld", (long long)id);
	if ((e = bl_st_begin(s)) != BL_OK)
		return e;
	e = bl_st_run(s, ST_KEY_REVOKE_ALL, PARMS(P_INT(id), P_INT(now)), NULL, NULL, NULL);
	for (i = 0; e == BL_OK && i < sizeof(drop) / sizeof(drop[0]); i++)
		e = bl_st_run(s, drop[i], PARMS(P_INT(id)), NULL, NULL, NULL);
	if (e == BL_OK)
		e = bl_st_run(s, ST_ACCOUNT_TOMBSTONE, PARMS(P_INT(id), P_TEXT(name), P_INT(now)),
		    NULL, NULL, NULL);
	return bl_st_end(s, e);
}

/* Calls cb for every key of account_id (0: of all accounts), in id order. */
enum bl_err
bl_store_key_list(struct bl_store *s, int64_t account_id,
    int (*cb)(void *, const struct bl_api_key *), void *arg)
{
	struct list	 l = { LIST_KEYS, { .key = cb }, arg };

	return bl_st_run(s, ST_KEY_LIST, PARMS(P_INT(account_id)), list_row, &l, NULL);
}

/*
 * Calls cb for the newest max secret rows of an account ("my secrets": active
 * ones and the tombstones cleanup has not removed yet), newest first; stops
 * early when cb returns non-zero. The rows are as stored: an active row past
 * its expiry is still active here.
 */
enum bl_err
bl_store_account_secrets(struct bl_store *s, int64_t account_id, int64_t max,
    int (*cb)(void *, const struct bl_secret *), void *arg)
{
	struct list	 l = { LIST_SECRETS, { .secret = cb }, arg };

	return bl_st_run(s, ST_ACCOUNT_SECRETS, PARMS(P_INT(account_id), P_INT(max)),
	    list_row, &l, NULL);
}

/* Stores a new key (account_id, prefix, label, created_ms of k); sets k->id. */
enum bl_err
bl_store_key_insert(struct bl_store *s, const unsigned char hash[BL_HASH_BYTES],
    struct bl_api_key *k)
{
	enum bl_err	 e;

	if ((e = bl_st_begin(s)) != BL_OK)
		return e;
	if ((e = bl_st_run(s, ST_KEY_INSERT, PARMS(P_INT(k->account_id),
	    P_BLOB(hash, BL_HASH_BYTES), P_TEXT(k->prefix), P_TEXT(k->label),
	    P_INT(k->created_ms)), bl_row_id, &k->id, NULL)) == BL_OK)
		e = bl_audit(s, BL_EV_KEY_CREATED, k->account_id, k->id, NULL, "ok", NULL);
	return bl_st_end(s, e);
}

/* Finds a key by the SHA-256 of the whole key (revoked ones too). */
enum bl_err
bl_store_key_find(struct bl_store *s, const unsigned char hash[BL_HASH_BYTES],
    struct bl_api_key *k)
{
	return bl_st_one(s, ST_KEY_FIND, PARMS(P_BLOB(hash, BL_HASH_BYTES)), key_row, k);
}

enum bl_err
bl_store_key_get(struct bl_store *s, int64_t id, struct bl_api_key *k)
{
	return bl_st_one(s, ST_KEY_GET, PARMS(P_INT(id)), key_row, k);
}

/* Runs a change of one key's row (two integer parameters); NOT_FOUND if it changed none. */
static enum bl_err
key_change(struct bl_store *s, enum bl_stmt st, int64_t a, int64_t b)
{
	enum bl_err	 e;
	int64_t		 changed;

	if ((e = bl_st_run(s, st, PARMS(P_INT(a), P_INT(b)), NULL, NULL, &changed)) != BL_OK)
		return e;
	return changed == 1 ? BL_OK : BL_ERR_NOT_FOUND;
}

/* Marks key id revoked (it stays in the table); NOT_FOUND if it was not valid. */
enum bl_err
bl_store_key_revoke(struct bl_store *s, int64_t id, int64_t now)
{
	struct bl_api_key	 k;
	enum bl_err		 e;

	if ((e = bl_st_begin(s)) != BL_OK)
		return e;
	memset(&k, 0, sizeof(k));
	if ((e = bl_store_key_get(s, id, &k)) == BL_OK &&
	    (e = key_change(s, ST_KEY_REVOKE, id, now)) == BL_OK)
		e = bl_audit(s, BL_EV_KEY_REVOKED, k.account_id, id, NULL, "ok", NULL);
	return bl_st_end(s, e);
}

/*
 * Removes key id of an account if it was never used (a key issued a moment
 * ago whose answer could not be made); NOT_FOUND if there is no such key.
 */
enum bl_err
bl_store_key_delete(struct bl_store *s, int64_t account_id, int64_t id)
{
	return key_change(s, ST_KEY_DELETE, id, account_id);
}

/* Creates an account and its password in one transaction; BL_ERR_EXISTS if the name is taken. */
enum bl_err
bl_store_account_signup(struct bl_store *s, const char *name,
    const unsigned char hash[BL_PASSHASH_BYTES], int64_t now, int64_t *id)
{
	enum bl_err	 e;

	if ((e = bl_st_begin(s)) != BL_OK)
		return e;
	if ((e = account_insert(s, name, now, id)) == BL_OK)
		e = bl_st_run(s, ST_PASSWORD_SET, PARMS(P_INT(*id),
		    P_BLOB(hash, BL_PASSHASH_BYTES), P_INT(now)), NULL, NULL, NULL);
	return bl_st_end(s, e);
}

/*
 * Creates the first operator's account (POST /api/setup) in one transaction:
 * the account, its password, the admin role and the admin.command event
 * (detail "/setup"); BL_ERR_EXISTS if the name is taken.
 */
enum bl_err
bl_store_account_setup(struct bl_store *s, const char *name,
    const unsigned char hash[BL_PASSHASH_BYTES], int64_t now, int64_t *id)
{
	int64_t		 n = 0;
	enum bl_err	 e;

	if ((e = bl_st_begin(s)) != BL_OK)
		return e;
	if ((e = account_insert(s, name, now, id)) == BL_OK)
		e = bl_st_run(s, ST_PASSWORD_SET, PARMS(P_INT(*id),
		    P_BLOB(hash, BL_PASSHASH_BYTES), P_INT(now)), NULL, NULL, NULL);
	if (e == BL_OK && (e = bl_st_run(s, ST_ACCOUNT_ADMIN, PARMS(P_INT(*id),
	    P_INT(BL_ADMIN_OPERATOR)), NULL, NULL, &n)) == BL_OK && n == 0)
		e = BL_ERR_INTERNAL;
	if (e == BL_OK)
		e = bl_audit(s, BL_EV_ADMIN, *id, *id, NULL, "ok", "/setup");
	return bl_st_end(s, e);
}

/* Row callback: a password hash; a malformed one is not copied (it lets no one in). */
static int
password_row(void *arg, const struct bl_row *row)
{
	const void	*p;
	size_t		 n;

	if (bl_col_blob(row, 0, &p, &n) != 0)
		return -1;
	if (p == NULL || n != BL_PASSHASH_BYTES)
		return 1;
	memcpy(arg, p, BL_PASSHASH_BYTES);
	*((unsigned char *)arg + BL_PASSHASH_BYTES) = 1;
	return 0;
}

/* The password hash of an account; NOT_FOUND if it has none (no sign-in). */
enum bl_err
bl_store_password_get(struct bl_store *s, int64_t account_id,
    unsigned char hash[BL_PASSHASH_BYTES])
{
	unsigned char	 got[BL_PASSHASH_BYTES + 1] = { 0 };
	enum bl_err	 e;

	e = bl_st_one(s, ST_PASSWORD_GET, PARMS(P_INT(account_id)), password_row, got);
	if (e == BL_OK && !got[BL_PASSHASH_BYTES])
		e = BL_ERR_NOT_FOUND;
	if (e == BL_OK)
		memcpy(hash, got, BL_PASSHASH_BYTES);
	bl_wipe(got, sizeof(got));
	return e;
}

/*
 * Sets an account's password, ends every session of the account and voids a
 * password reset mailed before (its link would undo the change), in one
 * transaction.
 */
enum bl_err
bl_store_password_set(struct bl_store *s, int64_t account_id,
    const unsigned char hash[BL_PASSHASH_BYTES], int64_t now)
{
	enum bl_err	 e;

	if ((e = bl_st_begin(s)) != BL_OK)
		return e;
	if ((e = bl_st_run(s, ST_PASSWORD_SET, PARMS(P_INT(account_id),
	    P_BLOB(hash, BL_PASSHASH_BYTES), P_INT(now)), NULL, NULL, NULL)) == BL_OK)
		e = bl_st_run(s, ST_SESSION_END_ALL, PARMS(P_INT(account_id)), NULL, NULL, NULL);
	if (e == BL_OK)
		e = bl_st_run(s, ST_RESET_END, PARMS(P_INT(account_id)), NULL, NULL, NULL);
	if (e == BL_OK)
		e = bl_audit(s, BL_EV_PASSWORD_CHANGED, account_id, account_id, NULL, "ok", NULL);
	return bl_st_end(s, e);
}

/* Stores a new session (by the SHA-256 of its id) for an account, seen now, signed in by via (BL_VIA_*). */
enum bl_err
bl_store_session_insert(struct bl_store *s, const unsigned char hash[BL_HASH_BYTES],
    int64_t account_id, int64_t now, int via, int64_t *id)
{
	enum bl_err	 e;

	*id = 0;
	if ((e = bl_st_begin(s)) != BL_OK)
		return e;
	if ((e = bl_st_run(s, ST_SESSION_INSERT, PARMS(P_BLOB(hash, BL_HASH_BYTES),
	    P_INT(account_id), P_INT(now), P_INT(via)), bl_row_id, id, NULL)) == BL_OK)
		e = bl_audit(s, BL_EV_SIGNED_IN, account_id, account_id, NULL, "ok",
		    via == BL_VIA_WEBSERVER ? "via=webserver" : "via=password");
	return bl_st_end(s, e);
}

static int
session_row(void *arg, const struct bl_row *row)
{
	struct bl_session	*out = arg;
	int64_t			*col[] = { &out->id, &out->account_id, &out->created_ms,
				    &out->seen_ms };
	size_t			 i;

	for (i = 0; i < sizeof(col) / sizeof(col[0]); i++)
		*col[i] = bl_col_int(row, (int)i, 0);
	out->via = (int)bl_col_int(row, 4, BL_VIA_PASSWORD);
	return 0;
}

/* Finds a session by the SHA-256 of its id (expired ones too); NOT_FOUND if none. */
enum bl_err
bl_store_session_find(struct bl_store *s, const unsigned char hash[BL_HASH_BYTES],
    struct bl_session *out)
{
	return bl_st_one(s, ST_SESSION_FIND, PARMS(P_BLOB(hash, BL_HASH_BYTES)), session_row,
	    out);
}

/* Records a request of session id at now. */
enum bl_err
bl_store_session_touch(struct bl_store *s, int64_t id, int64_t now)
{
	return bl_st_run(s, ST_SESSION_TOUCH, PARMS(P_INT(id), P_INT(now)), NULL, NULL, NULL);
}

/* Ends session id (sign-out); BL_OK also when it was already gone. */
enum bl_err
bl_store_session_delete(struct bl_store *s, int64_t id)
{
	return bl_st_run(s, ST_SESSION_DELETE, PARMS(P_INT(id)), NULL, NULL, NULL);
}

/* Signs session id of account_id out, with its audit event. */
enum bl_err
bl_store_session_end(struct bl_store *s, int64_t id, int64_t account_id)
{
	enum bl_err	 e;

	if ((e = bl_st_begin(s)) != BL_OK)
		return e;
	if ((e = bl_st_run(s, ST_SESSION_DELETE, PARMS(P_INT(id)), NULL, NULL, NULL)) == BL_OK)
		e = bl_audit(s, BL_EV_SIGNED_OUT, account_id, account_id, NULL, "ok", NULL);
	return bl_st_end(s, e);
}

/* Removes the sessions last seen at or before seen_before or created at or before created_before. */
enum bl_err
bl_store_session_prune(struct bl_store *s, int64_t seen_before, int64_t created_before)
{
	return bl_st_run(s, ST_SESSION_PRUNE, PARMS(P_INT(seen_before), P_INT(created_before)),
	    NULL, NULL, NULL);
}

/*
 * The second factor (docs/ACCOUNTS.md, "A second factor"): an account's TOTP
 * secret, sealed by the caller under the install secret, and its recovery
 * codes, kept as keyed hashes.
 */
static int
totp_row(void *arg, const struct bl_row *row)
{
	struct bl_totp	*t = arg;
	const void	*p;
	size_t		 n;

	if (bl_col_blob(row, 0, &p, &n) != 0 || p == NULL || n > sizeof(t->ct))
		return -1;
	memcpy(t->ct, p, n);
	t->ctlen = n;
	if (bl_col_blob(row, 1, &p, &n) != 0 || p == NULL || n != BL_IV_BYTES)
		return -1;
	memcpy(t->iv, p, n);
	t->confirmed_ms = bl_col_int(row, 2, -1);
	t->last_step = bl_col_int(row, 3, -1);
	return 0;
}

/* The account's TOTP secret (sealed); NOT_FOUND when it has none. */
enum bl_err
bl_store_totp_get(struct bl_store *s, int64_t account_id, struct bl_totp *t)
{
	memset(t, 0, sizeof(*t));
	return bl_st_one(s, ST_TOTP_GET, PARMS(P_INT(account_id)), totp_row, t);
}

/* Stores a new, unconfirmed TOTP secret (replacing an unconfirmed one). */
enum bl_err
bl_store_totp_put(struct bl_store *s, int64_t account_id, const struct bl_totp *t, int64_t now)
{
	return bl_st_run(s, ST_TOTP_PUT, PARMS(P_INT(account_id), P_BLOB(t->ct, t->ctlen),
	    P_BLOB(t->iv, BL_IV_BYTES), P_INT(now)), NULL, NULL, NULL);
}

/*
 * Confirms the pending TOTP secret at time step, and replaces the recovery
 * codes with these n hashes, in one transaction; NOT_FOUND when there is no
 * pending one (confirmed meanwhile).
 */
enum bl_err
bl_store_totp_confirm(struct bl_store *s, int64_t account_id, int64_t step, int64_t now,
    const unsigned char (*codes)[BL_HASH_BYTES], size_t n)
{
	int64_t		 got = 0;
	size_t		 i;
	enum bl_err	 e;

	if ((e = bl_st_begin(s)) != BL_OK)
		return e;
	e = bl_st_run(s, ST_TOTP_CONFIRM, PARMS(P_INT(account_id), P_INT(now), P_INT(step)),
	    bl_row_id, &got, NULL);
	if (e == BL_OK && got == 0)
		e = BL_ERR_NOT_FOUND;
	if (e == BL_OK)
		e = bl_st_run(s, ST_RECOVERY_DELETE, PARMS(P_INT(account_id)), NULL, NULL, NULL);
	for (i = 0; e == BL_OK && i < n; i++)
		e = bl_st_run(s, ST_RECOVERY_INSERT, PARMS(P_INT(account_id),
		    P_BLOB(codes[i], BL_HASH_BYTES)), NULL, NULL, NULL);
	if (e == BL_OK)
		e = bl_audit(s, BL_EV_TOTP_CHANGED, account_id, account_id, NULL, "ok", "on");
	return bl_st_end(s, e);
}

/* Records that a code of time step was used; NOT_FOUND if that step or a later one was (a replay). */
enum bl_err
bl_store_totp_step(struct bl_store *s, int64_t account_id, int64_t step)
{
	int64_t		 got = 0;
	enum bl_err	 e;

	e = bl_st_run(s, ST_TOTP_STEP, PARMS(P_INT(account_id), P_INT(step)), bl_row_id, &got,
	    NULL);
	return e == BL_OK && got == 0 ? BL_ERR_NOT_FOUND : e;
}

/* Uses a recovery code (by its hash) once; NOT_FOUND if unknown or used. */
enum bl_err
bl_store_recovery_use(struct bl_store *s, int64_t account_id,
    const unsigned char hash[BL_HASH_BYTES], int64_t now)
{
	int64_t		 got = 0;
	enum bl_err	 e;

	e = bl_st_run(s, ST_RECOVERY_USE, PARMS(P_INT(account_id), P_BLOB(hash, BL_HASH_BYTES),
	    P_INT(now)), bl_row_id, &got, NULL);
	return e == BL_OK && got == 0 ? BL_ERR_NOT_FOUND : e;
}

/* How many recovery codes the account has left. */
enum bl_err
bl_store_recovery_left(struct bl_store *s, int64_t account_id, int64_t *n)
{
	*n = 0;
	return bl_st_run(s, ST_RECOVERY_LEFT, PARMS(P_INT(account_id)), bl_row_id, n, NULL);
}

/* Removes the second factor and its recovery codes (the owner, or burnlink-admin account 2fa-reset). */
enum bl_err
bl_store_totp_delete(struct bl_store *s, int64_t account_id)
{
	enum bl_err	 e;

	if ((e = bl_st_begin(s)) != BL_OK)
		return e;
	if ((e = bl_st_run(s, ST_TOTP_DELETE, PARMS(P_INT(account_id)), NULL, NULL, NULL)) == BL_OK)
		e = bl_st_run(s, ST_RECOVERY_DELETE, PARMS(P_INT(account_id)), NULL, NULL, NULL);
	if (e == BL_OK)
		e = bl_audit(s, BL_EV_TOTP_CHANGED, account_id, account_id, NULL, "ok", "off");
	return bl_st_end(s, e);
}

/* The account of webhook id (not deleted); NOT_FOUND if there is none. */
enum bl_err
bl_store_webhook_owner(struct bl_store *s, int64_t id, int64_t *account_id)
{
	*account_id = 0;
	return bl_st_one(s, ST_WEBHOOK_OWNER, PARMS(P_INT(id)), bl_row_id, account_id);
}
