/* outbox.c (layer: domain): an account's webhooks and e-mail address, and the outbox cron/notify delivers (docs/NOTIFY.md), written once above the backends (lib/store.h). */
#include <string.h>

#include "internal.h"
#include "store.h"

#define NULL_TEXT	{ BL_P_TEXT, 1, 0, NULL, 0 }

/* Row callback: a count. */
static int
count_row(void *arg, const struct bl_row *row)
{
	*(int64_t *)arg = bl_col_int(row, 0, 0);
	return 0;
}

/*
 * Stores a webhook for an account that has fewer than max; WEBHOOK_LIMIT
 * otherwise. The count and the insert are one transaction, which holds the
 * account (ST_WEBHOOK_LOCK) so that two at once cannot both pass the count.
 */
enum bl_err
bl_store_webhook_insert(struct bl_store *s, int64_t account_id, const char *url,
    unsigned events, const char *secret, int64_t now, int max, int64_t *id)
{
	int64_t		 n = 0;
	enum bl_err	 e;

	*id = 0;
	if ((e = bl_st_begin(s)) != BL_OK)
		return e;
	if ((e = bl_st_run(s, ST_WEBHOOK_LOCK, PARMS(P_INT(account_id)), NULL, NULL,
	    NULL)) == BL_OK && (e = bl_st_one(s, ST_WEBHOOK_COUNT, PARMS(P_INT(account_id)),
	    count_row, &n)) == BL_OK && n >= max)
		e = BL_ERR_WEBHOOK_LIMIT;
	if (e == BL_OK)
		e = bl_st_run(s, ST_WEBHOOK_INSERT, PARMS(P_INT(account_id), P_TEXT(url),
		    P_INT(events), P_TEXT(secret), P_INT(now)), bl_row_id, id, NULL);
	if (e == BL_OK)
		e = bl_audit(s, BL_EV_WEBHOOK_CREATED, account_id, *id, NULL, "ok", NULL);
	if (e == BL_OK)
		e = bl_st_run(s, ST_WEBHOOK_PRUNE, NO_PARMS, NULL, NULL, NULL);
	return bl_st_end(s, e);
}

struct hook_list {
	int	(*cb)(void *, const struct bl_webhook *);
	void	*arg;
};

static int
hook_row(void *arg, const struct bl_row *row)
{
	struct hook_list	*l = arg;
	struct bl_webhook	 w;

	memset(&w, 0, sizeof(w));
	w.id = bl_col_int(row, 0, 0);
	bl_col_text(row, 1, w.url, sizeof(w.url));
	w.events = (unsigned)bl_col_int(row, 2, 0);
	w.created_ms = bl_col_int(row, 3, 0);
	w.last_status = bl_col_int(row, 4, -1);
	return l->cb(l->arg, &w) != 0;
}

/* Calls cb for each webhook of an account, in id order. */
enum bl_err
bl_store_webhook_list(struct bl_store *s, int64_t account_id,
    int (*cb)(void *, const struct bl_webhook *), void *arg)
{
	struct hook_list	 l = { cb, arg };

	return bl_st_run(s, ST_WEBHOOK_LIST, PARMS(P_INT(account_id)), hook_row, &l, NULL);
}

/*
 * Deletes an account's webhook and what is still queued for it; WEBHOOK_NOT_FOUND
 * if none. Its id is never given to another webhook (ST_WEBHOOK_DELETE).
 */
enum bl_err
bl_store_webhook_delete(struct bl_store *s, int64_t account_id, int64_t id)
{
	int64_t		 n = 0;
	enum bl_err	 e;

	if ((e = bl_st_begin(s)) != BL_OK)
		return e;
	if ((e = bl_st_run(s, ST_WEBHOOK_DELETE, PARMS(P_INT(id), P_INT(account_id)), NULL,
	    NULL, &n)) == BL_OK && n != 1)
		e = BL_ERR_WEBHOOK_NOT_FOUND;
	if (e == BL_OK)
		e = bl_st_run(s, ST_WEBHOOK_UNQUEUE, PARMS(P_INT(id)), NULL, NULL, NULL);
	if (e == BL_OK)
		e = bl_audit(s, BL_EV_WEBHOOK_DELETED, account_id, id, NULL, "ok", NULL);
	if (e == BL_OK)
		e = bl_st_run(s, ST_WEBHOOK_PRUNE, NO_PARMS, NULL, NULL, NULL);
	return bl_st_end(s, e);
}

struct owned {
	int64_t	 id;
	int	 found;
};

static int
owned_row(void *arg, const struct bl_row *row)
{
	struct owned	*o = arg;

	if (bl_col_int(row, 0, 0) == o->id)
		o->found = 1;
	return 0;
}

/* Queues a test event ("webhook.test") for an account's webhook id. */
enum bl_err
bl_store_webhook_test(struct bl_store *s, int64_t account_id, int64_t id, int64_t now)
{
	struct owned	 o = { id, 0 };
	int64_t		 row = 0;
	enum bl_err	 e;

	if ((e = bl_st_begin(s)) != BL_OK)
		return e;
	if ((e = bl_st_run(s, ST_WEBHOOK_LIST, PARMS(P_INT(account_id)), owned_row, &o,
	    NULL)) == BL_OK && !o.found)
		e = BL_ERR_WEBHOOK_NOT_FOUND;
	if (e == BL_OK)
		e = bl_st_run(s, ST_OUTBOX_ADD, PARMS(P_INT(account_id), P_TEXT("webhook.test"),
		    P_INT(2), P_INT(id), NULL_TEXT, P_INT(now)), bl_row_id, &row,
		    NULL);
	return bl_st_end(s, e);
}

struct delivery_list {
	int	(*cb)(void *, const struct bl_delivery *);
	void	*arg;
};

static int
delivery_row(void *arg, const struct bl_row *row)
{
	struct delivery_list	*l = arg;
	struct bl_delivery	 d;

	memset(&d, 0, sizeof(d));
	d.id = bl_col_int(row, 0, 0);
	bl_col_text(row, 1, d.kind, sizeof(d.kind));
	bl_col_text(row, 2, d.receipt_id, sizeof(d.receipt_id));
	d.state = (int)bl_col_int(row, 3, 0);
	d.attempts = bl_col_int(row, 4, 0);
	d.status = bl_col_int(row, 5, -1);
	bl_col_text(row, 6, d.error, sizeof(d.error));
	d.occurred_ms = bl_col_int(row, 7, 0);
	d.done_ms = bl_col_int(row, 8, -1);
	d.next_ms = bl_col_int(row, 9, 0);
	return l->cb(l->arg, &d) != 0;
}

/* Calls cb for the newest max deliveries of an account's webhook, newest first. */
enum bl_err
bl_store_deliveries(struct bl_store *s, int64_t account_id, int64_t webhook_id, int64_t max,
    int (*cb)(void *, const struct bl_delivery *), void *arg)
{
	struct delivery_list	 l = { cb, arg };
	struct owned		 o = { webhook_id, 0 };
	enum bl_err		 e;

	if ((e = bl_st_run(s, ST_WEBHOOK_LIST, PARMS(P_INT(account_id)), owned_row, &o,
	    NULL)) != BL_OK)
		return e;
	if (!o.found)
		return BL_ERR_WEBHOOK_NOT_FOUND;
	return bl_st_run(s, ST_DELIVERIES, PARMS(P_INT(webhook_id), P_INT(account_id),
	    P_INT(max)), delivery_row, &l, NULL);
}

static int
email_row(void *arg, const struct bl_row *row)
{
	struct bl_email	*m = arg;

	memset(m, 0, sizeof(*m));
	bl_col_text(row, 0, m->email, sizeof(m->email));
	m->verified_ms = bl_col_int(row, 1, -1);
	m->token_kind = (int)bl_col_int(row, 2, 0);
	m->token_expires_ms = bl_col_int(row, 3, 0);
	return 0;
}

/* An account's e-mail address; NOT_FOUND if it has none recorded. */
enum bl_err
bl_store_email_get(struct bl_store *s, int64_t account_id, struct bl_email *m)
{
	return bl_st_one(s, ST_EMAIL_GET, PARMS(P_INT(account_id)), email_row, m);
}

/*
 * The account whose verified address is email (lower-cased); with
 * password_only, only an account that has a password. NOT_FOUND if none.
 */
enum bl_err
bl_store_email_find(struct bl_store *s, const char *email, int password_only,
    int64_t *account_id)
{
	*account_id = 0;
	return bl_st_one(s, ST_EMAIL_FIND, PARMS(P_TEXT(email), P_INT(password_only != 0)),
	    count_row, account_id);
}

#define TOKEN_BYTES	32	/* a token: 43 url-safe base64 characters */

/*
 * Makes a one-time token of kind for an account's address and queues its
 * mail (bl_store_email_token(): the outbox row holds the token until it is
 * sent; the database keeps only its SHA-256 beyond that). What sign-up and
 * POST /api/email both do (docs/NOTIFY.md).
 */
enum bl_err
bl_email_token_issue(struct bl_store *s, int64_t account_id, const char *email, int kind,
    int64_t now_ms)
{
	unsigned char	 raw[TOKEN_BYTES], hash[BL_HASH_BYTES];
	char		*token;
	size_t		 len = 0;
	enum bl_err	 e;

	if (bl_random(raw, sizeof(raw)) != 0 ||
	    (token = bl_b64url_encode(raw, sizeof(raw), &len)) == NULL) {
		bl_wipe(raw, sizeof(raw));
		return BL_ERR_INTERNAL;
	}
	bl_wipe(raw, sizeof(raw));
	e = bl_sha256(token, len, hash) != 0 ? BL_ERR_INTERNAL :
	    bl_store_email_token(s, account_id, email, kind, hash, token,
	    now_ms + BL_TOKEN_TTL * 1000LL, now_ms);
	bl_free_wipe(token, len);
	return e;
}

/*
 * Records a one-time token (its SHA-256) of kind for an account's address and
 * queues its mail, in one transaction. The mail (a row of the outbox) holds
 * the token until it is sent; a verification token records email as the
 * account's address, not verified until the token comes back, and queues
 * a mail to the verified address it replaces ("account.changed"). A reset
 * token keeps the address and whether it was verified.
 */
enum bl_err
bl_store_email_token(struct bl_store *s, int64_t account_id, const char *email, int kind,
    const unsigned char hash[BL_HASH_BYTES], const char *token, int64_t expires,
    int64_t now)
{
	struct bl_email	 m;
	int64_t		 row = 0;
	enum bl_err	 e;
	int		 keep;

	if ((e = bl_st_begin(s)) != BL_OK)
		return e;
	e = bl_st_one(s, ST_EMAIL_GET, PARMS(P_INT(account_id)), email_row, &m);
	if (e == BL_ERR_NOT_FOUND) {
		memset(&m, 0, sizeof(m));
		m.verified_ms = -1;
		e = BL_OK;
	}
	/* a reset, or a verification of the address already verified, keeps its state */
	keep = kind == BL_TOKEN_RESET || strcmp(m.email, email) == 0;
	if (e == BL_OK)
		e = bl_st_run(s, ST_EMAIL_SET, PARMS(P_INT(account_id), P_TEXT(email),
		    P_INT_OR_NULL(keep && m.verified_ms >= 0, m.verified_ms),
		    P_BLOB(hash, BL_HASH_BYTES), P_INT(kind), P_INT(expires)), NULL, NULL, NULL);
	/* a verified address replaced is told so (the row holds it until sent) */
	if (e == BL_OK && !keep && m.verified_ms >= 0)
		e = bl_st_run(s, ST_OUTBOX_ADD, PARMS(P_INT(account_id),
		    P_TEXT("account.changed"), P_INT(1), P_INT_OR_NULL(0, 0), P_TEXT(m.email),
		    P_INT(now)), bl_row_id, &row, NULL);
	if (e == BL_OK)
		e = bl_st_run(s, ST_OUTBOX_ADD, PARMS(P_INT(account_id),
		    P_TEXT(kind == BL_TOKEN_RESET ? "account.reset" : "account.verify"),
		    P_INT(1), P_INT_OR_NULL(0, 0), P_TEXT(token), P_INT(now)), bl_row_id, &row,
		    NULL);
	if (e == BL_OK && !keep)
		e = bl_audit(s, BL_EV_EMAIL_CHANGED, account_id, account_id, NULL, "ok",
		    "pending");
	return bl_st_end(s, e);
}

/*
 * Queues a request for a password-reset mail to email (lower-cased): one
 * outbox row (account 0, the address in detail), whatever the address, so
 * that the request costs the same work whether or not an account has it;
 * cron/notify looks the address up (docs/ACCOUNTS.md).
 */
enum bl_err
bl_store_reset_request(struct bl_store *s, const char *email, int64_t now)
{
	int64_t	 row = 0;

	return bl_st_alone(s, ST_OUTBOX_ADD, PARMS(P_INT(0), P_TEXT("account.reset"), P_INT(1),
	    P_INT_OR_NULL(0, 0), P_TEXT(email), P_INT(now)), bl_row_id, &row);
}

/*
 * Records a password-reset token (its SHA-256) for an account whose address
 * is verified, in one transaction: NOT_FOUND if it has none verified; EXISTS,
 * changing nothing, while a reset token mailed earlier is still valid (a
 * stranger's request never voids the owner's link).
 */
enum bl_err
bl_store_reset_issue(struct bl_store *s, int64_t account_id,
    const unsigned char hash[BL_HASH_BYTES], int64_t expires, int64_t now)
{
	struct bl_email	 m;
	int64_t		 n = 0;
	enum bl_err	 e;

	if ((e = bl_st_begin(s)) != BL_OK)
		return e;
	/* one statement: two runs at once cannot both find no valid link */
	e = bl_st_run(s, ST_RESET_ISSUE, PARMS(P_INT(account_id), P_BLOB(hash, BL_HASH_BYTES),
	    P_INT(expires), P_INT(now)), NULL, NULL, &n);
	if (e == BL_OK && n != 1 && (e = bl_st_one(s, ST_EMAIL_GET, PARMS(P_INT(account_id)),
	    email_row, &m)) == BL_OK)
		e = m.verified_ms < 0 ? BL_ERR_NOT_FOUND : BL_ERR_EXISTS;
	return bl_st_end(s, e);
}

/* Voids an account's pending reset token (its mail could not be sent). */
enum bl_err
bl_store_reset_void(struct bl_store *s, int64_t account_id)
{
	return bl_st_alone(s, ST_RESET_END, PARMS(P_INT(account_id)), NULL, NULL);
}

/*
 * Makes email (lower-cased) the account's address, verified now: someone
 * vouches for it (the operator; the identity provider). A pending token is
 * voided, a verified address replaced is told ("account.changed"), as by
 * POST /api/email, and the change is an event (detail: why). Inside the
 * caller's transaction; m is the account's address as it was (verified_ms
 * -1 when none).
 */
static enum bl_err
email_vouched(struct bl_store *s, int64_t account_id, const char *email, int64_t now,
    const struct bl_email *m, const char *why)
{
	int64_t		 row = 0;
	enum bl_err	 e;

	e = bl_st_run(s, ST_EMAIL_SET, PARMS(P_INT(account_id), P_TEXT(email), P_INT(now),
	    P_BLOB_OR_NULL(0, NULL, 0), P_INT_OR_NULL(0, 0), P_INT_OR_NULL(0, 0)), NULL,
	    NULL, NULL);
	if (e == BL_OK && m->verified_ms >= 0 && strcmp(m->email, email) != 0)
		e = bl_st_run(s, ST_OUTBOX_ADD, PARMS(P_INT(account_id),
		    P_TEXT("account.changed"), P_INT(1), P_INT_OR_NULL(0, 0), P_TEXT(m->email),
		    P_INT(now)), bl_row_id, &row, NULL);
	if (e == BL_OK)
		e = bl_audit(s, BL_EV_EMAIL_CHANGED, account_id, account_id, NULL, "ok", why);
	return e;
}

/* The account's address into m, or an empty one not verified when it has none. */
static enum bl_err
email_current(struct bl_store *s, int64_t account_id, struct bl_email *m)
{
	enum bl_err	 e;

	e = bl_st_one(s, ST_EMAIL_GET, PARMS(P_INT(account_id)), email_row, m);
	if (e == BL_ERR_NOT_FOUND) {
		memset(m, 0, sizeof(*m));
		m->verified_ms = -1;
		e = BL_OK;
	}
	return e;
}

/*
 * The identity provider's address of an account signed in by the web server
 * (docs/ACCOUNTS.md, "Sign-in through the web server"), in one transaction:
 * email (lower-cased) becomes the account's address, verified (detail
 * "provider"), unless it already is (nothing changes: BL_OK, *what 0) or
 * another account has it verified: then nothing is taken, the refusal is an
 * event (outcome "refused") and *what is -1. *what is 1 when recorded.
 */
enum bl_err
bl_store_email_provider(struct bl_store *s, int64_t account_id, const char *email,
    int64_t now, int *what)
{
	struct bl_email	 m;
	int64_t		 others = 0;
	enum bl_err	 e;

	*what = 0;
	if ((e = bl_st_begin(s)) != BL_OK)
		return e;
	if ((e = email_current(s, account_id, &m)) != BL_OK ||
	    (m.verified_ms >= 0 && strcmp(m.email, email) == 0))
		return bl_st_end(s, e);
	e = bl_st_one(s, ST_EMAIL_TAKEN, PARMS(P_TEXT(email), P_INT(account_id)), count_row,
	    &others);
	if (e == BL_OK && others > 0) {
		*what = -1;
		e = bl_audit(s, BL_EV_EMAIL_CHANGED, account_id, account_id, NULL, "refused",
		    "provider");
	} else if (e == BL_OK) {
		*what = 1;
		e = email_vouched(s, account_id, email, now, &m, "provider");
	}
	return bl_st_end(s, e);
}

/*
 * The operator's setting of an account's address (burnlink-admin account
 * email): email becomes the address, verified now (the operator vouches for
 * it), and a pending token is voided; a verified address replaced is told
 * ("account.changed"), as by POST /api/email. One transaction.
 */
enum bl_err
bl_store_email_assign(struct bl_store *s, int64_t account_id, const char *email, int64_t now)
{
	struct bl_email	 m;
	enum bl_err	 e;

	if ((e = bl_st_begin(s)) != BL_OK)
		return e;
	if ((e = email_current(s, account_id, &m)) == BL_OK)
		e = email_vouched(s, account_id, email, now, &m, "verified");
	return bl_st_end(s, e);
}

struct token {
	int64_t	 account_id;
	int	 kind;
};

static int
token_row(void *arg, const struct bl_row *row)
{
	struct token	*t = arg;

	t->account_id = bl_col_int(row, 0, 0);
	t->kind = (int)bl_col_int(row, 1, 0);
	return 0;
}

/*
 * Redeems a one-time token of kind (its SHA-256) before it expires, in one
 * transaction: a verification marks the address verified; a reset sets the
 * password (pass_hash) and ends every session of the account. The token is
 * gone either way. INVALID_TOKEN when there is no such live token.
 */
enum bl_err
bl_store_email_redeem(struct bl_store *s, const unsigned char hash[BL_HASH_BYTES], int kind,
    int64_t now, int64_t *account_id, const unsigned char *pass_hash)
{
	struct token	 t = { 0, 0 };
	int64_t		 n = 0;
	enum bl_err	 e;

	*account_id = 0;
	if ((e = bl_st_begin(s)) != BL_OK)
		return e;
	e = bl_st_one(s, ST_EMAIL_TOKEN, PARMS(P_BLOB(hash, BL_HASH_BYTES), P_INT(now)),
	    token_row, &t);
	if (e == BL_ERR_NOT_FOUND || (e == BL_OK && t.kind != kind))
		e = BL_ERR_INVALID_TOKEN;
	/*
	 * The token is taken by an update that still requires it: under
	 * PostgreSQL's READ COMMITTED a concurrent redemption that read the
	 * same row waits for this one and then finds no token (no change).
	 */
	if (e == BL_OK && (e = bl_st_run(s, ST_EMAIL_USED, PARMS(P_INT(t.account_id),
	    P_INT_OR_NULL(kind == BL_TOKEN_VERIFY, now), P_BLOB(hash, BL_HASH_BYTES)), NULL,
	    NULL, &n)) == BL_OK && n != 1)
		e = BL_ERR_INVALID_TOKEN;
	if (e == BL_OK && kind == BL_TOKEN_RESET && pass_hash != NULL &&
	    (e = bl_st_run(s, ST_PASSWORD_SET, PARMS(P_INT(t.account_id),
	    P_BLOB(pass_hash, BL_PASSHASH_BYTES), P_INT(now)), NULL, NULL, NULL)) == BL_OK)
		e = bl_st_run(s, ST_SESSION_END_ALL, PARMS(P_INT(t.account_id)), NULL, NULL,
		    NULL);
	if (e == BL_OK)
		e = bl_audit(s, kind == BL_TOKEN_RESET ? BL_EV_PASSWORD_CHANGED :
		    BL_EV_EMAIL_CHANGED, t.account_id, t.account_id, NULL, "ok",
		    kind == BL_TOKEN_RESET ? "reset" : "verified");
	if (e == BL_OK)
		*account_id = t.account_id;
	return bl_st_end(s, e);
}

/* Row callback: one leased outbox row (ST_OUTBOX_LEASED) appended to a claim. */
static int
leased_row(void *arg, const struct bl_row *row)
{
	struct bl_claim		*c = arg;
	struct bl_outbox_item	*it;

	if (c->n == c->max)
		return 1;
	it = &c->items[c->n++];
	memset(it, 0, sizeof(*it));
	it->id = bl_col_int(row, 0, 0);
	it->account_id = bl_col_int(row, 1, 0);
	bl_col_text(row, 2, it->receipt_id, sizeof(it->receipt_id));
	bl_col_text(row, 3, it->kind, sizeof(it->kind));
	it->channel = (int)bl_col_int(row, 4, 0);
	it->webhook_id = bl_col_int(row, 5, 0);
	it->views_left = bl_col_int(row, 6, -1);
	bl_col_text(row, 7, it->detail, sizeof(it->detail));
	it->occurred_ms = bl_col_int(row, 8, 0);
	it->attempts = bl_col_int(row, 9, 0);
	bl_col_text(row, 10, it->url, sizeof(it->url));
	bl_col_text(row, 11, it->secret, sizeof(it->secret));
	bl_col_text(row, 12, it->email, sizeof(it->email));
	it->verified = bl_col_int(row, 13, -1) >= 0;
	return 0;
}

/*
 * Claims up to c->max due rows for lease_ms: one statement sets the lease
 * (token, until) of rows that are due and not leased, so that two runs never
 * hold the same row (docs/NOTIFY.md); then reads the rows of this lease.
 * Account mail (verification, reset) comes first; with c->mail_only, only
 * it. A run that dies leaves its rows to the next one once the lease ends.
 */
enum bl_err
bl_store_outbox_claim(struct bl_store *s, int64_t now, int64_t lease_ms, struct bl_claim *c)
{
	enum bl_err	 e;

	c->n = 0;
	if (bl_random(c->token, sizeof(c->token)) != 0)
		return BL_ERR_INTERNAL;
	if ((e = bl_st_begin(s)) != BL_OK)
		return e;
	e = bl_st_run(s, ST_OUTBOX_CLAIM, PARMS(P_INT(now), P_INT(now + lease_ms),
	    P_BLOB(c->token, sizeof(c->token)), P_INT((int64_t)c->max),
	    P_INT(c->mail_only ? 1 : 0)), NULL, NULL, NULL);
	if ((e = bl_st_end(s, e)) != BL_OK)
		return e;
	return bl_st_run(s, ST_OUTBOX_LEASED, PARMS(P_BLOB(c->token, sizeof(c->token))),
	    leased_row, c, NULL);
}

/*
 * Settles a leased row: state 0 with next_ms (a retry), 1 sent, 2 dropped;
 * status is the HTTP status or the mailer's exit status (-1: none), error
 * NULL or why. Only the lease's holder can settle it.
 */
enum bl_err
bl_store_outbox_finish(struct bl_store *s, const struct bl_claim *c, int64_t id, int state,
    int64_t status, const char *error, int64_t now, int64_t next_ms)
{
	enum bl_err	 e;
	int64_t		 failing = 0, mark = -1;

	if ((e = bl_st_begin(s)) != BL_OK)
		return e;
	/* a webhook's delivery that failed: webhook.failing (the audit trail) */
	if (state != 1)
		mark = bl_audit_mark(s);
	if (state != 1 && (e = bl_st_run(s, ST_AUDIT_WEBHOOK_FAIL, PARMS(P_INT(id),
	    P_BLOB(c->token, sizeof(c->token)), P_INT(now), P_TEXT_OR_NULL(error)), NULL, NULL,
	    &failing)) != BL_OK)
		return bl_st_end(s, e);
	bl_st_event(s, BL_EV_WEBHOOK_FAILING, failing);
	if (failing > 0 && (e = bl_audit_mirror_since(s, mark, BL_EV_WEBHOOK_FAILING, BL_EV_NONE,
	    now, 0)) != BL_OK)
		return bl_st_end(s, e);
	return bl_st_end(s, bl_st_run(s, ST_OUTBOX_FINISH, PARMS(P_INT(id),
	    P_BLOB(c->token, sizeof(c->token)), P_INT(state), P_INT_OR_NULL(status >= 0, status),
	    P_TEXT_OR_NULL(error), P_INT_OR_NULL(state != 0, now), P_INT(next_ms)),
	    NULL, NULL, NULL));
}

/*
 * Gives a leased row back untried: due again at next_ms, with why as its
 * last error, and the claim's attempt taken back (it was not made).
 */
enum bl_err
bl_store_outbox_defer(struct bl_store *s, const struct bl_claim *c, int64_t id,
    const char *why, int64_t next_ms)
{
	return bl_st_run(s, ST_OUTBOX_DEFER, PARMS(P_INT(id),
	    P_BLOB(c->token, sizeof(c->token)), P_TEXT(why), P_INT(next_ms)), NULL, NULL, NULL);
}

/* How many notifications were sent to an account since since_ms. */
enum bl_err
bl_store_outbox_sent(struct bl_store *s, int64_t account_id, int64_t since_ms, int64_t *n)
{
	*n = 0;
	return bl_st_one(s, ST_OUTBOX_SENT, PARMS(P_INT(account_id), P_INT(since_ms)),
	    count_row, n);
}
