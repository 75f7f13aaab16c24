/*
 * test_store.c: the secret lifecycle, accounts, keys, sessions and counters
 * through the storage interface (lib/store.h), one table run against
 * whichever backend BURNLINK_TEST_DB names: a SQLite file in a new temporary
 * directory when it is unset (the unit suite), a PostgreSQL database when it
 * is a conninfo (tests/pg/unit.test.mjs, with the library of make pg).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "store.h"
#include "unit.h"

#define BASE_MS		1700000000000LL	/* creation time of the first case */
#define CASE_MS		10000000LL	/* ... and of each next one, this much later */
#define ANY		-2		/* a step's field that is not checked */

enum op {
	OP_END,
	OP_LOOKUP,	/* by the secret key's hash */
	OP_RECEIPT,	/* by the receipt key's hash */
	OP_GET,		/* the row as stored, no state change */
	OP_CONSUME,
	OP_VIEW,	/* by the secret key, as a retrieve takes it (lib/ops.c) */
	OP_TAKE_RECEIPT,	/* the one-statement view by the receipt key: never */
	OP_BURN,
	OP_CLEANUP	/* left: at least this many rows removed */
};

/* One step at ms after the secret's creation, and what it must find. */
struct step {
	enum op		 op;
	int64_t		 at;
	enum bl_err	 want;
	int		 state;		/* the row's state after it, or ANY */
	int64_t		 left;		/* views left after it, or ANY */
	int		 stored;	/* its content still stored (1), gone (0), or ANY */
};

struct lifecycle {
	const char	*name;
	int64_t		 max_views;	/* -1: unlimited */
	int64_t		 ttl;		/* ms */
	size_t		 nfiles;
	struct step	 steps[8];
};

static const struct lifecycle cases[] = {
	{ "one view", 1, 3600000, 0, {
		{ OP_LOOKUP, 0, BL_OK, BL_ST_ACTIVE, 1, 1 },
		{ OP_CONSUME, 1, BL_OK, BL_ST_EXHAUSTED, 0, 0 },
		{ OP_LOOKUP, 2, BL_OK, BL_ST_EXHAUSTED, 0, 0 },
		{ OP_CONSUME, 3, BL_ERR_MAX_VIEWS_REACHED, BL_ST_EXHAUSTED, ANY, 0 },
		{ OP_BURN, 4, BL_ERR_MAX_VIEWS_REACHED, BL_ST_EXHAUSTED, ANY, 0 },
	} },
	{ "three views, two files", 3, 3600000, 2, {
		{ OP_CONSUME, 1, BL_OK, BL_ST_ACTIVE, 2, 1 },
		{ OP_CONSUME, 2, BL_OK, BL_ST_ACTIVE, 1, 1 },
		{ OP_RECEIPT, 3, BL_OK, BL_ST_ACTIVE, 1, 1 },
		{ OP_CONSUME, 4, BL_OK, BL_ST_EXHAUSTED, 0, 0 },
		{ OP_CONSUME, 5, BL_ERR_MAX_VIEWS_REACHED, BL_ST_EXHAUSTED, ANY, 0 },
	} },
	{ "unlimited views", -1, 3600000, 1, {
		{ OP_CONSUME, 1, BL_OK, BL_ST_ACTIVE, -1, 1 },
		{ OP_CONSUME, 2, BL_OK, BL_ST_ACTIVE, -1, 1 },
		{ OP_CONSUME, 3, BL_OK, BL_ST_ACTIVE, -1, 1 },
		{ OP_GET, 4, BL_OK, BL_ST_ACTIVE, -1, 1 },
	} },
	/*
	 * A retrieve tries the one statement first (PostgreSQL; SQLite has
	 * none), then goes the whole way: the same steps on both backends.
	 */
	{ "views by key, text alone", 3, 3600000, 0, {
		{ OP_VIEW, 1, BL_OK, BL_ST_ACTIVE, 2, 1 },
		{ OP_TAKE_RECEIPT, 2, BL_ERR_NOT_FOUND, ANY, ANY, 1 },
		{ OP_VIEW, 3, BL_OK, BL_ST_ACTIVE, 1, 1 },
		{ OP_VIEW, 4, BL_OK, BL_ST_EXHAUSTED, 0, 0 },
		{ OP_VIEW, 5, BL_ERR_MAX_VIEWS_REACHED, BL_ST_EXHAUSTED, ANY, 0 },
	} },
	{ "unlimited views by key, then expiry", -1, 1000, 0, {
		{ OP_VIEW, 1, BL_OK, BL_ST_ACTIVE, -1, 1 },
		{ OP_VIEW, 999, BL_OK, BL_ST_ACTIVE, -1, 1 },
		{ OP_VIEW, 1000, BL_ERR_SECRET_EXPIRED, BL_ST_EXPIRED, ANY, 0 },
		{ OP_GET, 1001, BL_OK, BL_ST_EXPIRED, -1, 0 },
	} },
	{ "views by key, with a file", 2, 3600000, 1, {
		{ OP_VIEW, 1, BL_OK, BL_ST_ACTIVE, 1, 1 },
		{ OP_VIEW, 2, BL_OK, BL_ST_EXHAUSTED, 0, 0 },
	} },
	{ "burn", 5, 3600000, 1, {
		{ OP_BURN, 1, BL_OK, BL_ST_BURNED, ANY, 0 },
		{ OP_LOOKUP, 2, BL_OK, BL_ST_BURNED, 0, 0 },
		{ OP_CONSUME, 3, BL_ERR_SECRET_BURNED, BL_ST_BURNED, ANY, 0 },
		{ OP_BURN, 4, BL_ERR_SECRET_BURNED, BL_ST_BURNED, ANY, 0 },
	} },
	{ "expiry seen by a lookup", 2, 1000, 1, {
		{ OP_LOOKUP, 999, BL_OK, BL_ST_ACTIVE, 2, 1 },
		{ OP_LOOKUP, 1000, BL_OK, BL_ST_EXPIRED, 0, 0 },
		{ OP_GET, 1001, BL_OK, BL_ST_EXPIRED, 0, 0 },
		{ OP_CONSUME, 1002, BL_ERR_SECRET_EXPIRED, BL_ST_EXPIRED, ANY, 0 },
		{ OP_BURN, 1003, BL_ERR_SECRET_EXPIRED, BL_ST_EXPIRED, ANY, 0 },
	} },
	{ "expiry seen by a view", -1, 1000, 1, {
		{ OP_CONSUME, 999, BL_OK, BL_ST_ACTIVE, -1, 1 },
		{ OP_CONSUME, 1000, BL_ERR_SECRET_EXPIRED, BL_ST_EXPIRED, ANY, 0 },
		{ OP_GET, 1001, BL_OK, BL_ST_EXPIRED, -1, 0 },
	} },
	{ "expiry seen by a burn", 1, 1000, 0, {
		{ OP_BURN, 5000, BL_ERR_SECRET_EXPIRED, BL_ST_EXPIRED, ANY, 0 },
		{ OP_GET, 5001, BL_OK, BL_ST_EXPIRED, 0, 0 },
	} },
	{ "cleanup", 1, 1000, 1, {
		{ OP_CLEANUP, 999, BL_OK, ANY, 0, ANY },
		{ OP_LOOKUP, 999, BL_OK, BL_ST_ACTIVE, 1, 1 },
		{ OP_CLEANUP, 1000, BL_OK, ANY, 1, ANY },
		{ OP_LOOKUP, 1001, BL_ERR_NOT_FOUND, ANY, ANY, 0 },
	} },
	{ "cleanup of a tombstone", 1, 1000, 1, {
		{ OP_CONSUME, 1, BL_OK, BL_ST_EXHAUSTED, 0, 0 },
		{ OP_CLEANUP, 1000, BL_OK, ANY, 1, ANY },
		{ OP_GET, 1001, BL_ERR_NOT_FOUND, ANY, ANY, 0 },
	} },
};

/* The hash of case i's secret key (receipt: its receipt key). */
static void
hash_of(size_t i, int receipt, unsigned char h[BL_HASH_BYTES])
{
	memset(h, (int)(i * 2 + (size_t)receipt + 1), BL_HASH_BYTES);
}

static void
item(struct bl_item *it, const char *s, int enc)
{
	it->buf = (unsigned char *)strdup(s);
	it->len = strlen(s);
	it->enc = enc;
	memset(it->iv, enc ? 0x5a : 0, sizeof(it->iv));
}

static void
content_of(size_t i, size_t nfiles, struct bl_content *c)
{
	char	 buf[64];
	size_t	 k;

	memset(c, 0, sizeof(*c));
	c->has_text = 1;
	snprintf(buf, sizeof(buf), "ciphertext of case %zu", i);
	item(&c->text, buf, 1);
	c->nfiles = nfiles;
	c->files = nfiles > 0 ? calloc(nfiles, sizeof(*c->files)) : NULL;
	for (k = 0; k < nfiles; k++) {
		snprintf(buf, sizeof(buf), "file %zu of case %zu", k, i);
		item(&c->files[k].name, buf, 0);
		item(&c->files[k].mime, "text/plain", 0);
		item(&c->files[k].data, buf, 1);
	}
}

/* 1 if got is what content_of() made. */
static int
same_content(const struct bl_content *got, const struct bl_content *want)
{
	size_t	 k;

	if (got->has_text != want->has_text || got->text.len != want->text.len ||
	    memcmp(got->text.buf, want->text.buf, want->text.len) != 0 ||
	    got->text.enc != 1 || got->nfiles != want->nfiles)
		return 0;
	for (k = 0; k < want->nfiles; k++)
		if (got->files[k].data.len != want->files[k].data.len ||
		    memcmp(got->files[k].data.buf, want->files[k].data.buf,
		    want->files[k].data.len) != 0 || got->files[k].name.enc != 0 ||
		    got->files[k].data.enc != 1)
			return 0;
	return 1;
}

static int
count_row(void *arg, const struct bl_row *row)
{
	(void)row;
	++*(int *)arg;
	return 0;
}

static int
text_row(void *arg, const struct bl_row *row)
{
	const void	*p;
	size_t		 n;

	if (bl_col_blob(row, BL_ROW_TEXT, &p, &n) != 0)
		return -1;
	*(int *)arg = p != NULL;
	return 0;
}

/* 1 if row id still holds its text or an attachment, as stored. */
static int
stored(struct bl_store *s, int64_t id)
{
	int	 text = 0, files = 0;

	if (bl_st_one(s, ST_LOCK_TEXT, PARMS(P_INT(id)), text_row, &text) == BL_ERR_NOT_FOUND)
		text = 0;
	CHECK(bl_st_run(s, ST_SELECT_FILES, PARMS(P_INT(id)), count_row, &files, NULL) == BL_OK);
	return text || files > 0;
}

/* What case i's keys carry: its expiry in seconds (lib/crypto.c, bl_new_key_at()). */
#define AT(i, lc)	((int64_t)BL_KEY_AT(BASE_MS + (int64_t)(i) * CASE_MS + (lc)->ttl))

/* Runs one step; the row as it found it in *r. */
static enum bl_err
step(struct bl_store *s, size_t i, const struct lifecycle *lc, const struct step *st,
    int64_t id, struct bl_secret *r)
{
	struct bl_cleanup_stats	 cs;
	struct bl_content	 got, want;
	unsigned char		 h[BL_HASH_BYTES];
	int64_t			 now = BASE_MS + (int64_t)i * CASE_MS + st->at;
	enum bl_err		 e;

	switch (st->op) {
	case OP_LOOKUP:
	case OP_RECEIPT:
		hash_of(i, st->op == OP_RECEIPT, h);
		e = bl_store_lookup(s, h, AT(i, lc), now, r);
		CHECK(e != BL_OK || r->by_receipt == (st->op == OP_RECEIPT));
		return e;
	case OP_GET:
		return bl_store_secret_get(s, id, r);
	case OP_CONSUME:
	case OP_VIEW:
		hash_of(i, 0, h);
		if (st->op == OP_CONSUME)
			e = bl_store_consume(s, id, now, r, &got);
		else if ((e = bl_store_take_counted(s, h, AT(i, lc), now, r, &got)) ==
		    BL_ERR_NOT_FOUND && (e = bl_store_lookup(s, h, AT(i, lc), now, r)) == BL_OK)
			e = r->state == BL_ST_ACTIVE ? bl_store_consume(s, id, now, r, &got) :
			    bl_state_err(r->state);
		if (e == BL_OK) {
			content_of(i, lc->nfiles, &want);
			CHECK(same_content(&got, &want));
			bl_content_free(&want);
			bl_content_free(&got);
		}
		return e;
	case OP_TAKE_RECEIPT:
		hash_of(i, 1, h);
		if ((e = bl_store_take_counted(s, h, AT(i, lc), now, r, &got)) == BL_OK)
			bl_content_free(&got);
		return e;
	case OP_BURN:
		e = bl_store_burn(s, id, now, "receipt");
		if (bl_store_secret_get(s, id, r) != BL_OK)
			memset(r, 0, sizeof(*r));
		return e;
	default:
		e = bl_store_cleanup(s, now, &cs);
		CHECK(e != BL_OK || cs.removed >= st->left);
		return e;
	}
}

/* Creates case i's secret and runs its steps. */
static void
run_case(struct bl_store *s, size_t i)
{
	const struct lifecycle	*lc = &cases[i];
	struct bl_new_secret	 n;
	struct bl_content	 c;
	struct bl_secret	 r;
	const struct step	*st;
	enum bl_err		 e;
	int64_t			 id;
	int			 ok;

	memset(&n, 0, sizeof(n));
	hash_of(i, 0, n.secret_hash);
	hash_of(i, 1, n.receipt_hash);
	n.created_ms = BASE_MS + (int64_t)i * CASE_MS;
	n.expires_ms = n.created_ms + lc->ttl;
	n.max_views = lc->max_views;
	n.deletable = 1;
	content_of(i, lc->nfiles, &c);
	n.content = &c;
	CHECK(bl_store_insert(s, &n) == BL_OK);
	bl_content_free(&c);
	CHECK(bl_store_lookup(s, n.secret_hash, BL_KEY_AT(n.expires_ms), n.created_ms, &r) ==
	    BL_OK);
	id = r.id;
	CHECK(id > 0 && r.state == BL_ST_ACTIVE && r.max_views == lc->max_views &&
	    r.view_count == 0 && r.expires_ms == n.expires_ms && stored(s, id));
	for (st = lc->steps; st->op != OP_END; st++) {
		memset(&r, 0, sizeof(r));
		e = step(s, i, lc, st, id, &r);
		ok = e == st->want &&
		    (st->state == ANY || (int)r.state == st->state) &&
		    (st->left == ANY || st->op == OP_CLEANUP || bl_views_left(&r) == st->left) &&
		    (st->stored == ANY || stored(s, id) == st->stored);
		if (!ok)
			fprintf(stderr, "%s, step %d: %s, state %d, %lld views left\n", lc->name,
			    (int)(st - lc->steps) + 1, bl_error_info(e)->code, (int)r.state,
			    (long long)bl_views_left(&r));
		CHECK(ok);
	}
}

static int
count_account(void *arg, const struct bl_account *a)
{
	(void)a;
	return ++*(int *)arg >= 100;
}

static int
count_key(void *arg, const struct bl_api_key *k)
{
	(void)k;
	++*(int *)arg;
	return 0;
}

static int
count_secret(void *arg, const struct bl_secret *r)
{
	(void)r;
	++*(int *)arg;
	return 0;
}

/* Accounts, API keys, passwords, sessions and an account's secrets. */
static void
accounts(struct bl_store *s)
{
	struct bl_account	 a;
	struct bl_api_key	 k;
	struct bl_session	 ss;
	struct bl_new_secret	 n;
	struct bl_content	 c;
	unsigned char		 h[BL_HASH_BYTES], ph[BL_PASSHASH_BYTES], got[BL_PASSHASH_BYTES];
	int64_t			 id, id2;
	int			 count;

	CHECK(bl_store_account_create(s, "ops@example.org", 1000, &id) == BL_OK && id > 0);
	CHECK(bl_store_account_create(s, "ops@example.org", 1001, &id2) == BL_ERR_EXISTS);
	CHECK(bl_store_account_get(s, id, NULL, &a) == BL_OK && a.id == id &&
	    strcmp(a.name, "ops@example.org") == 0 && a.created_ms == 1000);
	CHECK(bl_store_account_get(s, 0, "ops@example.org", &a) == BL_OK && a.id == id);
	CHECK(bl_store_account_get(s, 0, "nobody", &a) == BL_ERR_NOT_FOUND);
	CHECK(bl_store_account_get(s, id + 100, NULL, &a) == BL_ERR_NOT_FOUND);
	CHECK(bl_store_password_get(s, id, got) == BL_ERR_NOT_FOUND);

	memset(ph, 0x33, sizeof(ph));
	CHECK(bl_store_account_signup(s, "Web@Example.org", ph, 2000, &id2) == BL_OK && id2 > id);
	CHECK(bl_store_account_signup(s, "Web@Example.org", ph, 2001, &id) == BL_ERR_EXISTS);
	CHECK(bl_store_account_by_email(s, "web@example.org", &a) == BL_OK && a.id == id2);
	CHECK(bl_store_account_by_email(s, "none@example.org", &a) == BL_ERR_NOT_FOUND);
	CHECK(bl_store_password_get(s, id2, got) == BL_OK && memcmp(got, ph, sizeof(ph)) == 0);
	count = 0;
	CHECK(bl_store_account_list(s, count_account, &count) == BL_OK && count == 2);

	memset(h, 0x44, sizeof(h));
	CHECK(bl_store_session_insert(s, h, id2, 3000, BL_VIA_PASSWORD, &id) == BL_OK && id > 0);
	CHECK(bl_store_session_find(s, h, &ss) == BL_OK && ss.id == id && ss.account_id == id2 &&
	    ss.created_ms == 3000 && ss.seen_ms == 3000);
	CHECK(bl_store_session_touch(s, ss.id, 3500) == BL_OK);
	CHECK(bl_store_session_find(s, h, &ss) == BL_OK && ss.seen_ms == 3500);
	CHECK(bl_store_session_prune(s, 3499, 2999) == BL_OK);
	CHECK(bl_store_session_find(s, h, &ss) == BL_OK);
	memset(ph, 0x34, sizeof(ph));
	CHECK(bl_store_password_set(s, id2, ph, 4000) == BL_OK);	/* ends the sessions */
	CHECK(bl_store_password_get(s, id2, got) == BL_OK && memcmp(got, ph, sizeof(ph)) == 0);
	CHECK(bl_store_session_find(s, h, &ss) == BL_ERR_NOT_FOUND);
	CHECK(bl_store_session_insert(s, h, id2, 5000, BL_VIA_PASSWORD, &id) == BL_OK);
	CHECK(bl_store_session_find(s, h, &ss) == BL_OK && ss.id == id);
	CHECK(bl_store_session_delete(s, ss.id) == BL_OK);
	CHECK(bl_store_session_delete(s, ss.id) == BL_OK);
	CHECK(bl_store_session_find(s, h, &ss) == BL_ERR_NOT_FOUND);
	CHECK(bl_store_session_insert(s, h, id2, 6000, BL_VIA_PASSWORD, &id) == BL_OK);
	CHECK(bl_store_session_prune(s, 6000, 0) == BL_OK);
	CHECK(bl_store_session_find(s, h, &ss) == BL_ERR_NOT_FOUND);
	/* version 6: how a session was signed in */
	CHECK(bl_store_session_insert(s, h, id2, 6100, BL_VIA_WEBSERVER, &id) == BL_OK);
	CHECK(bl_store_session_find(s, h, &ss) == BL_OK && ss.via == BL_VIA_WEBSERVER);
	CHECK(bl_store_session_delete(s, ss.id) == BL_OK);

	/* the second factor: put, confirm with recovery codes, steps once, codes once, delete */
	{
		struct bl_totp	 t, got_t;
		unsigned char	 codes[3][BL_HASH_BYTES];
		int64_t		 left;

		memset(&t, 0, sizeof(t));
		memset(t.ct, 0x61, sizeof(t.ct));
		t.ctlen = sizeof(t.ct);
		memset(t.iv, 0x62, sizeof(t.iv));
		memset(codes, 0x70, sizeof(codes));
		codes[1][0] = 0x71;
		codes[2][0] = 0x72;
		CHECK(bl_store_totp_get(s, id2, &got_t) == BL_ERR_NOT_FOUND);
		CHECK(bl_store_totp_confirm(s, id2, 5, 6200, (const unsigned char (*)[BL_HASH_BYTES])codes,
		    3) == BL_ERR_NOT_FOUND);
		CHECK(bl_store_totp_put(s, id2, &t, 6200) == BL_OK);
		CHECK(bl_store_totp_get(s, id2, &got_t) == BL_OK && got_t.ctlen == sizeof(t.ct) &&
		    memcmp(got_t.ct, t.ct, sizeof(t.ct)) == 0 && memcmp(got_t.iv, t.iv, sizeof(t.iv)) == 0 &&
		    got_t.confirmed_ms == -1 && got_t.last_step == -1);
		CHECK(bl_store_totp_confirm(s, id2, 5, 6300, (const unsigned char (*)[BL_HASH_BYTES])codes,
		    3) == BL_OK);
		CHECK(bl_store_totp_confirm(s, id2, 6, 6300, (const unsigned char (*)[BL_HASH_BYTES])codes,
		    3) == BL_ERR_NOT_FOUND);
		CHECK(bl_store_totp_get(s, id2, &got_t) == BL_OK && got_t.confirmed_ms == 6300 &&
		    got_t.last_step == 5);
		CHECK(bl_store_totp_step(s, id2, 5) == BL_ERR_NOT_FOUND);	/* a replay */
		CHECK(bl_store_totp_step(s, id2, 4) == BL_ERR_NOT_FOUND);
		CHECK(bl_store_totp_step(s, id2, 6) == BL_OK);
		CHECK(bl_store_recovery_left(s, id2, &left) == BL_OK && left == 3);
		CHECK(bl_store_recovery_use(s, id2, codes[1], 6400) == BL_OK);
		CHECK(bl_store_recovery_use(s, id2, codes[1], 6401) == BL_ERR_NOT_FOUND);
		CHECK(bl_store_recovery_use(s, id2 + 100, codes[2], 6401) == BL_ERR_NOT_FOUND);
		CHECK(bl_store_recovery_left(s, id2, &left) == BL_OK && left == 2);
		CHECK(bl_store_totp_delete(s, id2) == BL_OK);
		CHECK(bl_store_totp_get(s, id2, &got_t) == BL_ERR_NOT_FOUND);
		CHECK(bl_store_recovery_left(s, id2, &left) == BL_OK && left == 0);
	}

	memset(&k, 0, sizeof(k));
	k.account_id = id2;
	snprintf(k.prefix, sizeof(k.prefix), "bl_abcdefgh");
	snprintf(k.label, sizeof(k.label), "deploy");
	k.created_ms = 7000;
	memset(h, 0x55, sizeof(h));
	CHECK(bl_store_key_insert(s, h, &k) == BL_OK && k.id > 0);
	id = k.id;
	memset(&k, 0, sizeof(k));
	CHECK(bl_store_key_find(s, h, &k) == BL_OK && k.id == id && k.account_id == id2 &&
	    strcmp(k.label, "deploy") == 0 && k.last_used_ms == -1 && k.revoked_ms == -1);
	CHECK(bl_store_key_get(s, id, &k) == BL_OK && strcmp(k.prefix, "bl_abcdefgh") == 0);
	count = 0;
	CHECK(bl_store_key_list(s, id2, count_key, &count) == BL_OK && count == 1);
	count = 0;
	CHECK(bl_store_key_list(s, id2 + 100, count_key, &count) == BL_OK && count == 0);

	/* a secret created with the key: its last use, and the account's secrets */
	memset(&n, 0, sizeof(n));
	memset(n.secret_hash, 0x66, BL_HASH_BYTES);
	memset(n.receipt_hash, 0x67, BL_HASH_BYTES);
	n.created_ms = 8000;
	n.expires_ms = 9000;
	n.max_views = 1;
	n.account_id = id2;
	n.api_key_id = id;
	content_of(99, 0, &c);
	n.content = &c;
	CHECK(bl_store_insert(s, &n) == BL_OK);
	bl_content_free(&c);
	CHECK(bl_store_key_get(s, id, &k) == BL_OK && k.last_used_ms == 8000);
	CHECK(bl_store_account_get(s, id2, NULL, &a) == BL_OK && a.keys_active == 1 &&
	    a.secrets == 1 && a.secrets_active == 1);
	count = 0;
	CHECK(bl_store_account_secrets(s, id2, 10, count_secret, &count) == BL_OK && count == 1);
	CHECK(bl_store_key_revoke(s, id, 8500) == BL_OK);
	CHECK(bl_store_key_revoke(s, id, 8600) == BL_ERR_NOT_FOUND);
	CHECK(bl_store_key_get(s, id, &k) == BL_OK && k.revoked_ms == 8500);
	CHECK(bl_store_account_get(s, id2, NULL, &a) == BL_OK && a.keys_active == 0);
}

/*
 * Notifications (docs/NOTIFY.md): a secret created with notify writes one
 * outbox row per destination with each change, in its transaction; a claim
 * leases due rows once (a second claim gets none); settling needs the lease.
 */
static void
outbox(struct bl_store *s)
{
	struct bl_new_secret	 n;
	struct bl_content	 c, got;
	struct bl_secret	 r;
	struct bl_outbox_item	 items[8];
	struct bl_claim		 a = { .items = items, .max = 8 }, b = { .items = items, .max = 8 };
	int64_t			 account, hook, sent = -1, now = 20000;
	size_t			 i, hooks = 0;

	CHECK(bl_store_account_create(s, "notify@example.org", now, &account) == BL_OK);
	CHECK(bl_store_webhook_insert(s, account, "https://example.org/a", BL_EV_ALL, "whsec_x",
	    now, 2, &hook) == BL_OK);
	CHECK(bl_store_webhook_insert(s, account, "https://example.org/b", BL_EV_BURNED,
	    "whsec_y", now, 2, &hook) == BL_OK);
	CHECK(bl_store_webhook_insert(s, account, "https://example.org/c", BL_EV_ALL, "whsec_z",
	    now, 2, &hook) == BL_ERR_WEBHOOK_LIMIT);
	memset(&n, 0, sizeof(n));
	memset(n.secret_hash, 0x71, BL_HASH_BYTES);
	memset(n.receipt_hash, 0x72, BL_HASH_BYTES);
	n.created_ms = now;
	n.expires_ms = now + 100000;
	n.max_views = 3;
	n.account_id = account;
	n.notify = BL_NOTIFY_EMAIL | BL_NOTIFY_WEBHOOK;
	snprintf(n.receipt_id, sizeof(n.receipt_id), "rcp_%s", "AAAAAAAAAAAAAAAAAAAAAA");
	content_of(98, 0, &c);
	n.content = &c;
	CHECK(bl_store_insert(s, &n) == BL_OK);
	bl_content_free(&c);
	CHECK(bl_store_lookup(s, n.secret_hash, BL_KEY_AT(n.expires_ms), now, &r) == BL_OK);
	CHECK(bl_store_consume(s, r.id, now + 1, &r, &got) == BL_OK);	/* mail + hook a */
	bl_content_free(&got);
	CHECK(bl_store_burn(s, r.id, now + 2, "dashboard") == BL_OK);	/* mail + a + b */

	CHECK(bl_store_outbox_claim(s, now + 10, 60000, &a) == BL_OK && a.n == 5);
	CHECK(bl_store_outbox_claim(s, now + 11, 60000, &b) == BL_OK && b.n == 0);
	for (i = 0; i < a.n; i++) {
		CHECK(strcmp(items[i].receipt_id, n.receipt_id) == 0 && items[i].attempts == 1);
		hooks += items[i].channel == 2;
		if (strcmp(items[i].kind, "secret.viewed") == 0)
			CHECK(items[i].views_left == 2 && items[i].detail[0] == '\0');
		else
			CHECK(strcmp(items[i].kind, "secret.burned") == 0 &&
			    strcmp(items[i].detail, "dashboard") == 0 && items[i].views_left == 2);
	}
	CHECK(hooks == 3);
	/* another lease cannot settle them; the holder can */
	CHECK(bl_store_outbox_finish(s, &b, items[0].id, 1, 200, NULL, now + 12, now + 12) == BL_OK);
	CHECK(bl_store_outbox_sent(s, account, now, &sent) == BL_OK && sent == 0);
	for (i = 0; i < a.n; i++)
		CHECK(bl_store_outbox_finish(s, &a, items[i].id, i == 0 ? 0 : 1, 200, NULL,
		    now + 12, i == 0 ? now + 1000 : now + 12) == BL_OK);
	CHECK(bl_store_outbox_sent(s, account, now, &sent) == BL_OK && sent == 4);
	/* the one to retry is due again only at its time, leased anew */
	CHECK(bl_store_outbox_claim(s, now + 999, 60000, &b) == BL_OK && b.n == 0);
	CHECK(bl_store_outbox_claim(s, now + 1000, 60000, &b) == BL_OK && b.n == 1 &&
	    items[0].attempts == 2);
}

/* The rate-limit counters of the same configuration, in the current hour's window. */
static void
counters(const struct bl_config *cfg)
{
	struct bl_store	*c = NULL;
	unsigned char	 b[BL_HASH_BYTES];
	int64_t		 now = (int64_t)time(NULL), start = now - now % 3600, n = 0;

	memset(b, 0x77, sizeof(b));
	CHECK(bl_store_open_counters(&c, cfg) == BL_OK);
	if (c == NULL)
		return;
	CHECK(bl_counter_add(c, b, start, start + 3600, &n) == BL_OK && n == 1);
	CHECK(bl_counter_add(c, b, start, start + 3600, &n) == BL_OK && n == 2);
	CHECK(bl_counter_get(c, b, start, &n) == BL_OK && n == 2);
	CHECK(bl_counter_set(c, b, start, start + 3600, 5) == BL_OK);
	CHECK(bl_counter_get(c, b, start, &n) == BL_OK && n == 5);
	CHECK(bl_counter_set(c, b, start, start + 3600, 0) == BL_OK);
	CHECK(bl_counter_get(c, b, start, &n) == BL_OK && n == 0);
	CHECK(bl_counter_add(c, b, start, start + 3600, &n) == BL_OK && n == 1);
	CHECK(bl_counter_clean(c, start + 3600, &n) == BL_OK && n >= 1);
	CHECK(bl_counter_get(c, b, start, &n) == BL_OK && n == 0);
	bl_store_close(c);
}

/*
 * store.h's parameters: P_TEXT_OR_NULL takes a conditional and evaluates it
 * once (it was a macro that did not compile so: -Wnonnull on strlen of
 * "c ? s : NULL"); a secret's row columns are numbered by BL_ROW_COLS.
 */
static void
parms(void)
{
	static const char	 s[] = "abc";
	int			 calls = 0, c = getenv("BURNLINK_UNIT_NEVER_SET") == NULL;
	struct bl_parm		 p = P_TEXT_OR_NULL(c ? s : NULL);
	struct bl_parm		 q = P_TEXT_OR_NULL(!c ? s : NULL);
	struct bl_parm		 r = P_TEXT_OR_NULL(calls++ == 0 ? s : NULL);

	CHECK(!p.null && p.len == 3 && p.p == s);
	CHECK(q.null && q.len == 0);
	CHECK(calls == 1 && !r.null);
	CHECK(BL_COL_ID == 0 && BL_COL_STATE == 1 && BL_COL_KEY_SLOT == BL_ROW_NCOLS - 1);
	CHECK(strncmp(BL_ROW_COLUMNS, "id, state, created_at", 21) == 0);
}

int
main(void)
{
	struct bl_config	 cfg;
	struct bl_store		*s = NULL;
	const char		*db = getenv("BURNLINK_TEST_DB");
	char			 dir[] = "/tmp/burnlink-unit-XXXXXX", path[64], limits[64];
	char			 err[256] = "";
	const char		*name;
	size_t			 i;

	memset(&cfg, 0, sizeof(cfg));
	if (db == NULL || *db == '\0') {
		if (mkdtemp(dir) == NULL)
			return 2;
		snprintf(path, sizeof(path), "%s/burnlink.db", dir);
		snprintf(limits, sizeof(limits), "%s/burnlink-counters", dir);
		cfg.db_path = path;
		cfg.limits_path = limits;
	} else
		cfg.db_path = cfg.limits_path = (char *)db;
	name = bl_store_is_pg(cfg.db_path) ? "store (postgresql)" : "store (sqlite)";
	CHECK(bl_store_open(&s, &cfg, err, sizeof(err)) == BL_OK);
	if (s == NULL) {
		fprintf(stderr, "test_store: %s\n", err);
		UNIT_END(name);
	}
	parms();
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(s, i);
	accounts(s);
	outbox(s);
	bl_store_close(s);
	counters(&cfg);
	if (cfg.db_path == path) {
		unlink(path);
		snprintf(path, sizeof(path), "%s/burnlink.db-wal", dir);
		unlink(path);
		snprintf(path, sizeof(path), "%s/burnlink.db-shm", dir);
		unlink(path);
		unlink(limits);
		rmdir(dir);
	}
	UNIT_END(name);
}
