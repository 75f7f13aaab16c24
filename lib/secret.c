/* secret.c (layer: domain): the lifecycle of a secret, written once above the backends (lib/store.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "store.h"

/*
 * A secret is active until its expiry, its last view (exhausted) or a burn;
 * then its content is deleted in the same transaction and the row stays as a
 * tombstone (state, counts, times) until the hourly cleanup removes it with
 * the rows past their expiry. Every change locks the row (ST_LOCK: SELECT ...
 * FOR UPDATE on PostgreSQL; SQLite's BEGIN IMMEDIATE already holds the
 * database's write lock), re-reads it, and only then reads, counts or deletes,
 * so racing requests for one secret each see what the previous one committed.
 */

/* Views left: -1 for unlimited, 0 once the secret is no longer active. */
int64_t
bl_views_left(const struct bl_secret *s)
{
	if (s->state != BL_ST_ACTIVE)
		return s->max_views < 0 ? -1 : 0;
	if (s->max_views < 0)
		return -1;
	return s->max_views > s->view_count ? s->max_views - s->view_count : 0;
}

/* Row callback: a secret row (BL_ROW_COLUMNS and the by-receipt flag) into a struct bl_secret. */
int
bl_secret_row(void *arg, const struct bl_row *row)
{
	struct bl_secret	*r = arg;
	const void		*p;
	size_t			 n;

	memset(r, 0, sizeof(*r));
	r->id = bl_col_int(row, BL_COL_ID, 0);
	r->state = (enum bl_state)bl_col_int(row, BL_COL_STATE, 0);
	r->created_ms = bl_col_int(row, BL_COL_CREATED, 0);
	r->expires_ms = bl_col_int(row, BL_COL_EXPIRES, 0);
	r->max_views = bl_col_int(row, BL_COL_MAX_VIEWS, -1);
	r->view_count = bl_col_int(row, BL_COL_VIEW_COUNT, 0);
	r->last_viewed_ms = bl_col_int(row, BL_COL_LAST_VIEWED, -1);
	r->deletable = (int)bl_col_int(row, BL_COL_DELETABLE, 1);
	if (bl_col_blob(row, BL_COL_PASS_HASH, &p, &n) != 0)
		return -1;
	if (p != NULL && n == BL_PASSHASH_BYTES) {
		r->has_pass = 1;
		memcpy(r->pass_hash, p, BL_PASSHASH_BYTES);
	}
	r->account_id = bl_col_int(row, BL_COL_ACCOUNT, 0);
	if (bl_col_blob(row, BL_COL_KEY_COMMIT, &p, &n) != 0)
		return -1;
	if (p != NULL && n == BL_COMMIT_BYTES) {	/* NULL: stored before commitments */
		r->has_commit = 1;
		memcpy(r->commit, p, BL_COMMIT_BYTES);
	}
	r->key_slot = bl_col_int(row, BL_COL_KEY_SLOT, 0);
	r->by_receipt = (int)bl_col_int(row, BL_ROW_NCOLS, 0);
	return 0;
}

/*
 * Crypto-shredding (docs/SECURITY.md, "Gone for good"). Where the store keeps
 * keys (SQLite: lib/keyslots.c), every item of a new secret's content (text,
 * each file's name, type and data) is stored sealed with AES-256-GCM under a
 * random key of the secret's own, which the store keeps outside the
 * database; deleting the content wipes the key in the same transaction, and
 * the sealed bytes that SQLite's WAL or free pages may still hold can no
 * longer be opened. The key is used for this one secret only, so each item's
 * nonce is its number: the text 0, file f's name, type and data 3f+1, 3f+2,
 * 3f+3. What is sealed is the item as it came (the client's ciphertext, or
 * the server's), so what a view returns is unchanged.
 */
struct sealed {
	struct bl_new_secret	 n;	/* the secret, its content the sealed one */
	struct bl_content	 c;
};

static void
seal_iv(unsigned i, unsigned char iv[BL_IV_BYTES])
{
	memset(iv, 0, BL_IV_BYTES);
	iv[BL_IV_BYTES - 4] = (unsigned char)(i >> 24);
	iv[BL_IV_BYTES - 3] = (unsigned char)(i >> 16);
	iv[BL_IV_BYTES - 2] = (unsigned char)(i >> 8);
	iv[BL_IV_BYTES - 1] = (unsigned char)i;
}

/* to: from sealed as item i (its IV and mode kept, its bytes sealed); -1 on failure. */
static int
seal_item(const unsigned char key[32], unsigned i, const struct bl_item *from,
    struct bl_item *to)
{
	unsigned char	 iv[BL_IV_BYTES];

	*to = *from;
	if ((to->buf = malloc(from->len + BL_TAG_BYTES + 1)) == NULL)
		return -1;
	seal_iv(i, iv);
	if (bl_aes_gcm_encrypt(key, iv, from->buf, from->len, to->buf) != 0)
		return -1;
	to->len = from->len + BL_TAG_BYTES;
	to->buf[to->len] = '\0';
	return 0;
}

/* Opens item i in place; -1 if it does not open under key (the key is another's). */
static int
open_item(const unsigned char key[32], unsigned i, struct bl_item *it)
{
	unsigned char	 iv[BL_IV_BYTES], *out;

	if (it->buf == NULL || it->len < BL_TAG_BYTES ||
	    (out = malloc(it->len - BL_TAG_BYTES + 1)) == NULL)
		return -1;
	seal_iv(i, iv);
	if (bl_aes_gcm_decrypt(key, iv, it->buf, it->len, out) != 0) {
		free(out);
		return -1;
	}
	bl_free_wipe(it->buf, it->len);
	it->buf = out;
	it->len -= BL_TAG_BYTES;
	it->buf[it->len] = '\0';
	return 0;
}

/*
 * *use: n itself where the store keeps no keys, else out->n, n with its
 * content sealed under a new key (its slot in out->n.key_slot). Free out
 * with bl_content_free(&out->c).
 */
static enum bl_err
seal(struct bl_store *s, const struct bl_new_secret *n, struct sealed *out,
    const struct bl_new_secret **use)
{
	const struct bl_content	*c = n->content;
	unsigned char		 key[32];
	enum bl_err		 e;
	int64_t			 slot;
	size_t			 i;
	int			 rc = 0;

	memset(out, 0, sizeof(*out));
	*use = n;
	if ((e = bl_st_key_new(s, n->expires_ms, n->created_ms, key, &slot)) != BL_OK ||
	    slot == 0)
		return e;
	out->c.has_text = c->has_text;
	if (c->has_text)
		rc = seal_item(key, 0, &c->text, &out->c.text);
	if (rc == 0 && c->nfiles > 0 &&
	    (out->c.files = calloc(c->nfiles, sizeof(*out->c.files))) == NULL)
		rc = -1;
	for (i = 0; rc == 0 && i < c->nfiles; i++) {
		out->c.nfiles = i + 1;
		if (seal_item(key, 3 * i + 1, &c->files[i].name, &out->c.files[i].name) != 0 ||
		    seal_item(key, 3 * i + 2, &c->files[i].mime, &out->c.files[i].mime) != 0 ||
		    seal_item(key, 3 * i + 3, &c->files[i].data, &out->c.files[i].data) != 0)
			rc = -1;
	}
	bl_wipe(key, sizeof(key));
	if (rc != 0) {
		bl_st_key_shred(s, slot, n->created_ms);
		bl_content_free(&out->c);
		return BL_ERR_INTERNAL;
	}
	out->n = *n;
	out->n.content = &out->c;
	out->n.key_slot = slot;
	*use = &out->n;
	return BL_OK;
}

/*
 * Opens the sealed content c of row r in place (nothing to do if r is
 * unsealed). BL_ERR_NOT_FOUND: its key is gone (wiped by a consumption that
 * did not commit, or torn by a power cut): the content is lost for good.
 * BL_ERR_INTERNAL: the key is there but the content did not open (out of
 * memory): the transaction rolls back and the secret stays as it was.
 */
static enum bl_err
unseal(struct bl_store *s, const struct bl_secret *r, struct bl_content *c)
{
	unsigned char	 key[32];
	enum bl_err	 e;
	size_t		 i;
	int		 rc = 0;

	if (r->key_slot <= 0)
		return BL_OK;
	if ((e = bl_st_key_get(s, r->key_slot, r->created_ms, key)) != BL_OK)
		return e;
	if (c->has_text)
		rc = open_item(key, 0, &c->text);
	for (i = 0; rc == 0 && i < c->nfiles; i++)
		if (open_item(key, 3 * i + 1, &c->files[i].name) != 0 ||
		    open_item(key, 3 * i + 2, &c->files[i].mime) != 0 ||
		    open_item(key, 3 * i + 3, &c->files[i].data) != 0)
			rc = -1;
	bl_wipe(key, sizeof(key));
	/* the key is there: a failure is memory or damage, never "gone" (nothing is burned for it) */
	return rc == 0 ? BL_OK : BL_ERR_INTERNAL;
}

/*
 * Stores a new secret and its attachments in one transaction. In a batch
 * (FastCGI group commit) a small one is copied and inserted when the batch
 * commits, its request answered only after that commit.
 *
 * What a new secret writes is two lists built from struct bl_new_secret:
 * its row's parameters (secret_parms(): ST_INSERT_SECRET) and the rest
 * (struct put_rest: the statements after it). The batch's copy is made of
 * those, never of struct bl_new_secret: every blob and text parameter's bytes
 * are copied, so a column added to secret_parms() is copied with the others
 * and nothing the copy holds points into the request, whatever it names.
 */
#define DEFER_MAX_BYTES	65536

/* The statements after the row: by value only. */
struct put_rest {
	int64_t			 created_ms;
	int64_t			 account_id;
	int64_t			 api_key_id;
	unsigned		 notify;
	char			 receipt_id[BL_RECEIPT_ID_LEN + 1];
	char			 client[BL_AUDIT_CLIENT_MAX + 1];	/* the audit trail's */
};

struct deferred {
	struct bl_parm		 parms[BL_MAX_PARMS];	/* ST_INSERT_SECRET's, in own */
	int			 nparms;
	unsigned char		*own;			/* the bytes of its blobs and texts */
	size_t			 ownlen;
	struct put_rest		 rest;
	struct bl_content	 c;
};

/*
 * ST_INSERT_SECRET's parameters for n into p: the values of the columns a
 * new secret writes, in the order of BL_NEW_COLS (lib/store.h; a new column
 * is a parameter here and a line there). Returns their number.
 */
static int
secret_parms(const struct bl_new_secret *n, struct bl_parm p[BL_MAX_PARMS])
{
	const struct bl_content	*c = n->content;
	const struct bl_parm	 list[] = {
		P_BLOB(n->secret_hash, BL_HASH_BYTES),
		P_BLOB(n->receipt_hash, BL_HASH_BYTES),
		P_INT(n->created_ms),
		P_INT(n->expires_ms),
		P_INT_OR_NULL(n->max_views >= 0, n->max_views),
		P_BOOL(n->deletable),
		P_BLOB_OR_NULL(n->has_pass, n->pass_hash, BL_PASSHASH_BYTES),
		P_BOOL(n->server_side),
		P_INT_OR_NULL(n->account_id > 0, n->account_id),
		P_BLOB_OR_NULL(c->has_text, c->text.buf, c->text.len),
		P_BLOB_OR_NULL(c->has_text && c->text.enc, c->text.iv, BL_IV_BYTES),
		P_BLOB_OR_NULL(n->has_commit, n->commit, BL_COMMIT_BYTES),
		P_INT_OR_NULL(n->key_slot > 0, n->key_slot),
		P_INT(BL_KEY_AT(n->expires_ms)),	/* what its keys carry (lib/crypto.c) */
	};

	_Static_assert(sizeof(list) / sizeof(list[0]) <= BL_MAX_PARMS,
	    "ST_INSERT_SECRET takes more parameters than BL_MAX_PARMS");
	_Static_assert(sizeof(list) / sizeof(list[0]) == BL_NEW_NCOLS,
	    "secret_parms() and BL_NEW_COLS (lib/store.h) name different numbers of columns");
	memcpy(p, list, sizeof(list));
	return (int)(sizeof(list) / sizeof(list[0]));
}

static void
rest_of(const struct bl_new_secret *n, struct put_rest *r)
{
	r->created_ms = n->created_ms;
	r->account_id = n->account_id;
	r->api_key_id = n->api_key_id;
	r->notify = n->notify;
	memcpy(r->receipt_id, n->receipt_id, sizeof(r->receipt_id));
}

/* The client of the audit trail's secret.created (the store's actor's, copied for a batch). */
static void
audit_client(const struct bl_store *s, struct put_rest *r)
{
	const struct bl_audit_who	*w = bl_st_who(s);

	snprintf(r->client, sizeof(r->client), "%s", w != NULL ? w->client : "");
}

static enum bl_err	 put(struct bl_store *, const struct bl_parm *, int,
			    const struct bl_content *, const struct put_rest *, int64_t *);
static enum bl_err	 insert(struct bl_store *, const struct bl_new_secret *);

static int
item_copy(struct bl_item *to, const struct bl_item *from)
{
	*to = *from;
	to->buf = NULL;
	if (from->len > 0) {
		if ((to->buf = malloc(from->len)) == NULL)
			return -1;
		memcpy(to->buf, from->buf, from->len);
	}
	return 0;
}

static void
deferred_free(void *arg)
{
	struct deferred	*d = arg;

	bl_content_free(&d->c);
	bl_free_wipe(d->own, d->ownlen);
	bl_wipe(d, sizeof(*d));
	free(d);
}

static enum bl_err
deferred_insert(struct bl_store *s, void *arg)
{
	struct deferred	*d = arg;
	enum bl_err	 e;
	int64_t		 id;

	if ((e = bl_st_begin(s)) != BL_OK)
		return e;
	return bl_st_end(s, put(s, d->parms, d->nparms, &d->c, &d->rest, &id));
}

/* Copies the bytes every blob and text parameter of d->parms points to into d->own. */
static int
parms_copy(struct deferred *d)
{
	size_t	 i, at = 0;

	for (i = 0; i < (size_t)d->nparms; i++)
		if (!d->parms[i].null && d->parms[i].p != NULL)
			d->ownlen += d->parms[i].len + 1;
	if (d->ownlen > 0 && (d->own = malloc(d->ownlen)) == NULL) {
		d->ownlen = 0;
		return -1;
	}
	for (i = 0; i < (size_t)d->nparms; i++) {
		if (d->parms[i].null || d->parms[i].p == NULL)
			continue;
		memcpy(d->own + at, d->parms[i].p, d->parms[i].len);
		d->own[at + d->parms[i].len] = '\0';	/* a text stays a C string */
		d->parms[i].p = d->own + at;
		at += d->parms[i].len + 1;
	}
	return 0;
}

/* A copy of what n writes, for the batch's commit; NULL to insert it now. */
static struct deferred *
defer_copy(struct bl_store *s, const struct bl_new_secret *n)
{
	const struct bl_content	*c = n->content;
	struct deferred		*d;
	size_t			 i;

	if ((d = calloc(1, sizeof(*d))) == NULL)
		return NULL;
	d->c.has_text = c->has_text;
	if ((c->has_text && item_copy(&d->c.text, &c->text) != 0) ||
	    (c->nfiles > 0 && (d->c.files = calloc(c->nfiles, sizeof(*d->c.files))) == NULL))
		goto fail;
	for (i = 0; i < c->nfiles; i++) {
		d->c.nfiles = i + 1;
		if (item_copy(&d->c.files[i].name, &c->files[i].name) != 0 ||
		    item_copy(&d->c.files[i].mime, &c->files[i].mime) != 0 ||
		    item_copy(&d->c.files[i].data, &c->files[i].data) != 0)
			goto fail;
	}
	d->nparms = secret_parms(n, d->parms);
	rest_of(n, &d->rest);
	audit_client(s, &d->rest);
	if (parms_copy(d) != 0)
		goto fail;
	return d;
fail:
	deferred_free(d);
	return NULL;
}

enum bl_err
bl_store_insert(struct bl_store *s, const struct bl_new_secret *plain)
{
	const struct bl_new_secret *n;
	const struct bl_content	*c = plain->content;
	struct sealed		 sd;
	struct deferred		*d;
	enum bl_err		 e;
	size_t			 i, bytes = c->has_text ? c->text.len : 0;

	for (i = 0; i < c->nfiles; i++)
		bytes += c->files[i].name.len + c->files[i].mime.len + c->files[i].data.len;
	if ((e = seal(s, plain, &sd, &n)) != BL_OK)
		return e;
	if (bytes <= DEFER_MAX_BYTES && bl_st_deferrable(s) && (d = defer_copy(s, n)) != NULL) {
		bl_st_defer(s, deferred_insert, deferred_free, d);
		e = BL_OK;
	} else if ((e = insert(s, n)) != BL_OK && n->key_slot > 0)
		bl_st_key_shred(s, n->key_slot, n->created_ms);
	bl_content_free(&sd.c);
	return e;
}

static enum bl_err
insert_file(struct bl_store *s, int64_t id, size_t i, const struct bl_file *f)
{
	return bl_st_run(s, ST_INSERT_FILE, PARMS(P_INT(id), P_INT((int64_t)i),
	    P_BLOB(f->name.buf, f->name.len), P_BLOB_OR_NULL(f->name.enc, f->name.iv, BL_IV_BYTES),
	    P_BLOB(f->mime.buf, f->mime.len), P_BLOB_OR_NULL(f->mime.enc, f->mime.iv, BL_IV_BYTES),
	    P_BLOB(f->data.buf, f->data.len), P_BLOB_OR_NULL(f->data.enc, f->data.iv, BL_IV_BYTES)),
	    NULL, NULL, NULL);
}

/* Inside a transaction: the row (parameters p), its attachments (c) and the rest; its id in *id. */
static enum bl_err
put(struct bl_store *s, const struct bl_parm *p, int np, const struct bl_content *c,
    const struct put_rest *rest, int64_t *id)
{
	enum bl_err	 e;
	size_t		 i;
	int64_t		 used = 0, mark = -1;

	*id = 0;
	e = bl_st_run(s, ST_INSERT_SECRET, p, np, bl_row_id, id, NULL);
	for (i = 0; e == BL_OK && i < c->nfiles; i++)
		e = insert_file(s, *id, i, &c->files[i]);
	if (e == BL_OK && rest->api_key_id > 0)
		mark = bl_audit_mark(s);
	if (e == BL_OK && rest->api_key_id > 0 &&
	    (e = bl_st_run(s, ST_AUDIT_KEY_USED, PARMS(P_INT(rest->api_key_id),
	    P_INT(rest->created_ms), P_TEXT_OR_NULL(rest->client[0] != '\0' ? rest->client :
	    NULL)), NULL, NULL, &used)) == BL_OK) {
		bl_st_event(s, BL_EV_KEY_USED, used);
		if (used > 0)
			e = bl_audit_mirror_since(s, mark, BL_EV_KEY_USED, BL_EV_NONE,
			    rest->created_ms, rest->api_key_id);
		if (e == BL_OK)
			e = bl_st_run(s, ST_KEY_USED, PARMS(P_INT(rest->api_key_id),
		    P_INT(rest->created_ms)), NULL, NULL, NULL);
	}
	if (e == BL_OK && rest->notify != 0 && rest->account_id > 0)
		e = bl_st_run(s, ST_NOTIFY_INSERT, PARMS(P_INT(*id), P_INT(rest->account_id),
		    P_TEXT(rest->receipt_id), P_INT(rest->notify)), NULL, NULL, NULL);
	if (e == BL_OK) {
		struct bl_audit_who	 w = { rest->account_id, rest->api_key_id, "", "", 0, -1 };

		if (bl_st_who(s) != NULL)
			w = *bl_st_who(s);
		w.account_id = rest->account_id;
		w.api_key_id = rest->api_key_id;
		memcpy(w.client, rest->client, sizeof(w.client));
		e = bl_audit_secret(s, &w, BL_EV_SECRET_CREATED, rest->account_id, *id, "ok", NULL);
	}
	return e;
}

/* Inside a transaction: writes the rows of n as they are (sealed already, or not to be); its id in *id. */
static enum bl_err
put_secret(struct bl_store *s, const struct bl_new_secret *n, int64_t *id)
{
	struct bl_parm		 p[BL_MAX_PARMS];
	struct put_rest		 rest;
	int			 np = secret_parms(n, p);

	rest_of(n, &rest);
	audit_client(s, &rest);
	return put(s, p, np, n->content, &rest, id);
}

/* Inside a transaction: writes the rows of a new secret, its content sealed; its id in *id. */
enum bl_err
bl_secret_put(struct bl_store *s, const struct bl_new_secret *plain, int64_t *id)
{
	const struct bl_new_secret *n;
	struct sealed		 sd;
	enum bl_err		 e;

	*id = 0;
	if ((e = seal(s, plain, &sd, &n)) != BL_OK)
		return e;
	e = put_secret(s, n, id);
	bl_content_free(&sd.c);
	return e;
}

/* n, sealed already, in a transaction of its own. */
static enum bl_err
insert(struct bl_store *s, const struct bl_new_secret *n)
{
	enum bl_err	 e;
	int64_t		 id;

	if ((e = bl_st_begin(s)) != BL_OK)
		return e;
	return bl_st_end(s, put_secret(s, n, &id));
}

/*
 * Inside the transaction of a change to row r (its state and counts as
 * changed): the event's outbox rows, one per destination its creator asked
 * for (docs/NOTIFY.md), so that there is no event without the change and no
 * change without its event. Only an account's secrets can have any.
 */
static enum bl_err
event(struct bl_store *s, const struct bl_secret *r, const char *kind, unsigned bit,
    const char *by, int64_t now)
{
	int64_t		 left = bl_views_left(r);
	char		 detail[32] = "";
	enum bl_err	 e;

	/* the audit trail's event (lib/audit.c), for every secret */
	if (bit == BL_EV_VIEWED && left >= 0)
		snprintf(detail, sizeof(detail), "views_left=%lld", (long long)left);
	else if (bit == BL_EV_BURNED && by != NULL)
		snprintf(detail, sizeof(detail), "by=%s", by);
	if (bit != BL_EV_EXPIRED && (e = bl_audit_secret(s, NULL, bit == BL_EV_VIEWED ?
	    BL_EV_SECRET_VIEWED : bit == BL_EV_EXHAUSTED ? BL_EV_SECRET_EXHAUSTED :
	    BL_EV_SECRET_BURNED, r->account_id, r->id, "ok", detail[0] ? detail : NULL)) != BL_OK)
		return e;
	if (r->account_id <= 0)
		return BL_OK;
	if ((e = bl_st_run(s, ST_EVENT, PARMS(P_INT(r->id), P_TEXT(kind),
	    P_INT_OR_NULL(left >= 0, left), P_TEXT_OR_NULL(by), P_INT(now), P_INT(bit)),
	    NULL, NULL, NULL)) != BL_OK)
		return e;
	return bl_st_run(s, ST_EVENT_LAST, PARMS(P_INT(r->id), P_TEXT(kind), P_INT(now)),
	    NULL, NULL, NULL);
}

/*
 * Moves a locked row to state, deleting its content in the same transaction
 * and wiping its key (durably before the transaction commits: lib/store.h).
 * files 0: the row is known to have no attachments (ST_LOCK_TEXT's EXISTS,
 * read under this transaction's lock; attachments are only ever written with
 * their row's creation), so there are none to delete: the last view of a
 * secret of text alone neither prepares nor runs ST_DELETE_FILES (in a CGI
 * process, 18 K instructions: docs/PERFORMANCE.md, "The one-time read under
 * CGI"). end_row() with view_at >= 0 also counts a last view at that time, in
 * the same UPDATE (ST_VIEW_LAST: one statement instead of ST_VIEW and
 * ST_SET_STATE).
 */
static enum bl_err
end_row(struct bl_store *s, struct bl_secret *r, enum bl_state state, int files,
    int64_t view_at)
{
	enum bl_err	 e;

	if ((files && (e = bl_st_run(s, ST_DELETE_FILES, PARMS(P_INT(r->id)), NULL, NULL,
	    NULL)) != BL_OK) ||
	    (e = view_at >= 0 ? bl_st_run(s, ST_VIEW_LAST, PARMS(P_INT(r->id), P_INT(view_at),
	    P_INT(state)), NULL, NULL, NULL) : bl_st_run(s, ST_SET_STATE,
	    PARMS(P_INT(r->id), P_INT(state)), NULL, NULL, NULL)) != BL_OK ||
	    (e = bl_st_key_shred(s, r->key_slot, r->created_ms)) != BL_OK)
		return e;
	if (view_at >= 0) {
		r->view_count++;
		r->last_viewed_ms = view_at;
	}
	r->state = state;
	return BL_OK;
}

static enum bl_err
set_state(struct bl_store *s, struct bl_secret *r, enum bl_state state, int files)
{
	return end_row(s, r, state, files, -1);
}

/* What check_active() reads: the row, and its text if c is not NULL and it is active. */
struct locked {
	struct bl_secret	*r;
	struct bl_content	*c;
	int64_t			 now;
	int			 has_files;	/* with c: the row has attachments */
};

static int
locked_row(void *arg, const struct bl_row *row)
{
	struct locked	*l = arg;
	const void	*p;
	size_t		 n;

	if (bl_secret_row(l->r, row) != 0)
		return -1;
	if (l->c == NULL || l->r->state != BL_ST_ACTIVE || l->r->expires_ms <= l->now)
		return 0;
	l->has_files = bl_col_int(row, BL_ROW_HAS_FILES, 1) != 0;
	if (bl_col_blob(row, BL_ROW_TEXT, &p, &n) != 0)
		return -1;
	if (p == NULL)
		return 0;
	l->c->has_text = 1;
	return bl_col_item(row, BL_ROW_TEXT, &l->c->text);
}

/*
 * Inside a transaction: locks row id, reads it (and its text into c, if not
 * NULL, with *has_files: whether it has attachments), and ends an active
 * row whose expiry has passed. Returns BL_OK if the row is active, else its
 * state's error (NOT_FOUND if gone); *changed says whether it ended the row.
 */
static enum bl_err
check_active(struct bl_store *s, int64_t id, int64_t now, struct bl_secret *r,
    struct bl_content *c, int *has_files, int *changed)
{
	struct locked	 l = { r, c, now, 1 };
	enum bl_err	 e;

	*changed = 0;
	if ((e = bl_st_one(s, c != NULL ? ST_LOCK_TEXT : ST_LOCK, PARMS(P_INT(id)),
	    locked_row, &l)) != BL_OK)
		return e;
	if (has_files != NULL)
		*has_files = l.has_files;
	if (r->state == BL_ST_ACTIVE && r->expires_ms <= now) {
		if ((e = set_state(s, r, BL_ST_EXPIRED, 1)) != BL_OK ||
		    (e = bl_audit_secret(s, NULL, BL_EV_SECRET_EXPIRED, r->account_id, r->id,
		    "ok", NULL)) != BL_OK ||
		    (r->view_count == 0 && (e = event(s, r, "secret.expired", BL_EV_EXPIRED,
		    NULL, now)) != BL_OK))
			return e;
		*changed = 1;
	}
	return r->state == BL_ST_ACTIVE ? BL_OK : bl_state_err(r->state);
}

/* 1 for the failures of the store itself (the others are the row's state). */
static int
store_failed(enum bl_err e)
{
	return e == BL_ERR_NOT_FOUND || e == BL_ERR_STORE_BUSY ||
	    e == BL_ERR_STORE_UNAVAILABLE || e == BL_ERR_INTERNAL;
}

/*
 * Finds a secret by the hash of its secret key or receipt key and what the
 * key carries (bl_key_at(): its row's lookup_at, or a row stored before
 * version 8). An active row past its expiry is moved to expired (content
 * deleted) on the way.
 */
enum bl_err
bl_store_lookup(struct bl_store *s, const unsigned char hash[BL_HASH_BYTES], int64_t at,
    int64_t now, struct bl_secret *r)
{
	enum bl_err	 e;
	int		 changed, by_receipt;

	if ((e = bl_st_one(s, ST_LOOKUP, PARMS(P_BLOB(hash, BL_HASH_BYTES), P_INT(at)),
	    bl_secret_row, r)) != BL_OK)
		return e;
	if (r->state != BL_ST_ACTIVE || r->expires_ms > now)
		return BL_OK;
	by_receipt = r->by_receipt;
	if ((e = bl_st_begin(s)) != BL_OK)
		return e;
	e = check_active(s, r->id, now, r, NULL, NULL, &changed);
	r->by_receipt = by_receipt;
	return bl_st_end(s, store_failed(e) ? e : BL_OK);
}

/* Row callback: one attachment appended to a content (at most BL_MAX_FILES). */
static int
file_row(void *arg, const struct bl_row *row)
{
	struct bl_content	*c = arg;
	struct bl_file		*nf;

	if ((nf = realloc(c->files, (c->nfiles + 1) * sizeof(*nf))) == NULL)
		return -1;
	c->files = nf;
	nf += c->nfiles++;
	memset(nf, 0, sizeof(*nf));
	if (bl_col_item(row, 0, &nf->name) != 0 || bl_col_item(row, 2, &nf->mime) != 0 ||
	    bl_col_item(row, 4, &nf->data) != 0)
		return -1;
	return c->nfiles < BL_MAX_FILES ? 0 : 1;
}

/*
 * Inside a transaction: takes one view of secret id: locks the row,
 * re-checks that it is active, reads its content, counts the view, and on the
 * last view deletes the content (the row stays as an exhausted tombstone).
 * Not active: its state's error, with an expiry recorded (c left empty).
 */
enum bl_err
bl_secret_take(struct bl_store *s, int64_t id, int64_t now, struct bl_secret *r,
    struct bl_content *c)
{
	enum bl_err	 e = BL_OK;
	int		 changed, has_files;

	memset(c, 0, sizeof(*c));
	if ((e = check_active(s, id, now, r, c, &has_files, &changed)) != BL_OK) {
		bl_content_free(c);
		return e;
	}
	/* Most secrets are text alone: their attachments are not asked for. */
	if (has_files)
		e = bl_st_run(s, ST_SELECT_FILES, PARMS(P_INT(id)), file_row, c, NULL);
	/* a key gone (a consumption that wiped it and did not commit): the secret is too */
	if (e == BL_OK && (e = unseal(s, r, c)) == BL_ERR_NOT_FOUND) {
		bl_content_free(c);
		if ((e = set_state(s, r, BL_ST_BURNED, has_files)) == BL_OK)
			e = bl_state_err(BL_ST_BURNED);
		return e;
	}
	if (e == BL_OK && r->max_views >= 0 && r->view_count + 1 >= r->max_views) {
		/* the last view: counted and ended in one statement */
		if ((e = end_row(s, r, BL_ST_EXHAUSTED, has_files, now)) == BL_OK)
			e = event(s, r, "secret.exhausted", BL_EV_EXHAUSTED, NULL, now);
	} else if (e == BL_OK &&
	    (e = bl_st_later(s, ST_VIEW, PARMS(P_INT(id), P_INT(now)))) == BL_OK) {
		r->view_count++;
		r->last_viewed_ms = now;
		e = event(s, r, "secret.viewed", BL_EV_VIEWED, NULL, now);
	}
	if (e != BL_OK)
		bl_content_free(c);
	return e;
}

/* Row callback of ST_VIEW_TAKE: the row and its text (struct locked), once. */
static int
taken_row(void *arg, const struct bl_row *row)
{
	struct locked	*l = arg;

	if (l->has_files >= 0)	/* a second row: hashes are unique, so never */
		return -1;
	l->has_files = 0;
	return locked_row(l, row);
}

/*
 * A view by secret key that changes nothing but the view count and time (of
 * an active secret without a passphrase, not its last view, an anonymous
 * secret, so no event to queue, whose content is text alone: most views) is
 * taken in one statement that finds the row by the key's hash, checks,
 * counts and reads at once, a transaction by itself, where the backend has
 * one (ST_VIEW_TAKE: PostgreSQL, one round trip instead of five, the row
 * locked only inside the server; SQLite has none, lib/store_pg.c says why).
 * NOT_FOUND when the key names no such view now (nothing, a receipt, one of
 * the cases above) or there is no such statement: the caller then looks the
 * key up and takes the view the whole way.
 */
enum bl_err
bl_store_take_counted(struct bl_store *s, const unsigned char hash[BL_HASH_BYTES],
    int64_t at, int64_t now, struct bl_secret *r, struct bl_content *c)
{
	struct locked	 l = { r, c, now, -1 };
	enum bl_err	 e;
	const struct bl_audit_who	*w = bl_st_who(s);

	memset(c, 0, sizeof(*c));
	/* $3: the client of its audit row, written in the same statement */
	if ((e = bl_st_alone(s, ST_VIEW_TAKE, PARMS(P_BLOB(hash, BL_HASH_BYTES), P_INT(now),
	    P_TEXT_OR_NULL(w != NULL && w->client[0] != '\0' ? w->client : NULL), P_INT(at)),
	    taken_row, &l)) == BL_OK && l.has_files < 0)
		e = BL_ERR_NOT_FOUND;
	if (e != BL_OK)
		bl_content_free(c);
	return e;
}

/*
 * Consumes one view of secret id in one transaction (bl_secret_take()); a
 * secret found not active keeps the expiry it recorded.
 */
enum bl_err
bl_store_consume(struct bl_store *s, int64_t id, int64_t now, struct bl_secret *r,
    struct bl_content *c)
{
	enum bl_err	 e;

	memset(c, 0, sizeof(*c));
	if ((e = bl_st_begin(s)) != BL_OK)
		return e;
	if ((e = bl_secret_take(s, id, now, r, c)) != BL_OK && !store_failed(e))
		return bl_st_refuse(s, e, r->state != BL_ST_ACTIVE);
	if ((e = bl_st_end(s, e)) != BL_OK)
		bl_content_free(c);
	return e;
}

/*
 * Inside a transaction: moves secret id, if it is still active, to state
 * (content deleted); BL_OK also when it had ended already.
 */
enum bl_err
bl_secret_end(struct bl_store *s, int64_t id, int64_t now, enum bl_state state)
{
	struct bl_secret	 r;
	enum bl_err		 e;
	int			 changed;

	memset(&r, 0, sizeof(r));
	if ((e = check_active(s, id, now, &r, NULL, NULL, &changed)) != BL_OK)
		return store_failed(e) ? e : BL_OK;
	return set_state(s, &r, state, 1);
}

/* Burns secret id: content deleted, state burned, in one transaction; by says who. */
enum bl_err
bl_store_burn(struct bl_store *s, int64_t id, int64_t now, const char *by)
{
	struct bl_secret	 r;
	enum bl_err		 e;
	int			 changed;

	if ((e = bl_st_begin(s)) != BL_OK)
		return e;
	memset(&r, 0, sizeof(r));
	if ((e = check_active(s, id, now, &r, NULL, NULL, &changed)) != BL_OK)
		return bl_st_refuse(s, e, changed);
	/* the event first: its viewsLeft is what was left when it was burned */
	if ((e = event(s, &r, "secret.burned", BL_EV_BURNED, by, now)) == BL_OK)
		e = set_state(s, &r, BL_ST_BURNED, 1);
	return bl_st_end(s, e);
}

/*
 * Hourly cleanup: removes every secret request and every secret row whose
 * expiry has passed, with its attachments (rows another host's cleanup or a
 * request holds are left for the next run on PostgreSQL), then makes the
 * removed content leave the database's files (lib/store_sqlite.c: a WAL
 * checkpoint). The counters are the rate limiter's (bl_counter_clean()).
 *
 * It works in steps, each a short transaction of its own, with a pause of
 * CLEAN_PAUSE_US between them: SQLite has one write lock, and a request that
 * waits for it polls every 0.5 ms (lib/store_sqlite.c, busy_wait()), so the
 * pause lets the waiting writes in before the next step takes the lock
 * again. A step takes CLEAN_FIRST rows at first; the next takes twice as
 * many while a step (its commit included) takes less than half of
 * CLEAN_TARGET_MS, half as many once one takes twice as long: the fewer
 * steps, the fewer times a page of the key hashes' indexes is written again,
 * and a request waits for at most about one step. One transaction for
 * everything held the lock for 19 s at 900,000 expired secrets; the steps
 * write several times more pages in all (docs/PERFORMANCE.md, "Scale").
 */
#define OUTBOX_KEEP_MS	(7 * 86400 * 1000LL)	/* sent and dropped rows are kept a week */
#ifndef BL_BENCH_CLEAN_ONE
#define CLEAN_FIRST	500
#define CLEAN_MIN	250
#define CLEAN_MAX	20000
#else
/*
 * Only for bench/cleanup.mjs (`make one` builds cron/cleanup so, in build/one/):
 * every expired row in one step, the one transaction the steps are compared
 * with. Never in a product build.
 */
#define CLEAN_FIRST	(INT64_C(1) << 40)
#define CLEAN_MIN	CLEAN_FIRST
#define CLEAN_MAX	CLEAN_FIRST
#endif
#define CLEAN_TARGET_MS	50
#define CLEAN_PAUSE_US	2000

/* The (expires_at, id) cut of a step (ST_CLEAN_CUT's row). */
struct cut {
	int64_t	 expires;
	int64_t	 id;
};

static int
cut_row(void *arg, const struct bl_row *row)
{
	struct cut	*c = arg;

	c->expires = bl_col_int(row, 0, 0);
	c->id = bl_col_int(row, 1, 0);
	return 0;
}

/* Row callback of ST_CLEAN_SLOTS: wipes the key of one row the step removes. */
static int
slot_row(void *arg, const struct bl_row *row)
{
	return bl_st_key_shred(arg, bl_col_int(row, 0, 0), bl_col_int(row, 1, 0)) == BL_OK ?
	    0 : -1;
}

/*
 * One step: the expired rows up to the rows-th in (expires_at, id) order,
 * with their expiry events, attachments and notify rows. *last is 1 when it
 * took every expired row left.
 */
static enum bl_err
clean_step(struct bl_store *s, int64_t now, int64_t rows, int64_t *removed, int *last)
{
	struct cut	 c = { now, INT64_MAX };
	int64_t		 n = 0, ne = 0, nr = 0, mark = -1;
	enum bl_err	 e;

	if ((e = bl_st_begin(s)) != BL_OK)
		return e;
	e = bl_st_one(s, ST_CLEAN_CUT, PARMS(P_INT(now), P_INT(rows - 1)), cut_row, &c);
	*last = e == BL_ERR_NOT_FOUND;
	if (*last) {
		c.expires = now;
		c.id = INT64_MAX;
		e = BL_OK;
	}
#define STEP	PARMS(P_INT(now), P_INT(c.expires), P_INT(c.id))
	/* the expiry events of rows that end unread here, with their removal */
	if (e == BL_OK)
		mark = bl_audit_mark(s);
	if (e == BL_OK &&
	    (e = bl_st_run(s, ST_EVENT_EXPIRED, STEP, NULL, NULL, NULL)) == BL_OK &&
	    (e = bl_st_run(s, ST_AUDIT_EXPIRED, STEP, NULL, NULL, &ne)) == BL_OK &&
	    (e = bl_st_run(s, ST_AUDIT_CLEAN, STEP, NULL, NULL, &nr)) == BL_OK &&
	    (ne + nr == 0 || (e = bl_audit_mirror_since(s, mark, BL_EV_SECRET_EXPIRED,
	    BL_EV_SECRET_REMOVED, now, 0)) == BL_OK) &&
	    (e = bl_st_run(s, ST_CLEAN_SLOTS, STEP, slot_row, s, NULL)) == BL_OK &&
	    (e = bl_st_run(s, ST_CLEAN_FILES, STEP, NULL, NULL, NULL)) == BL_OK &&
	    (e = bl_st_run(s, ST_CLEAN_NOTIFY, STEP, NULL, NULL, NULL)) == BL_OK)
		e = bl_st_run(s, ST_CLEAN_ROWS, STEP, NULL, NULL, &n);
#undef STEP
	bl_st_event(s, BL_EV_SECRET_EXPIRED, ne);
	bl_st_event(s, BL_EV_SECRET_REMOVED, nr);
	if ((e = bl_st_end(s, e)) == BL_OK)
		*removed += n;
	return e;
}

/*
 * Between two steps: what the store does there (a checkpoint that holds no
 * lock, on SQLite), then a pause of CLEAN_PAUSE_US.
 */
static enum bl_err
clean_pause(struct bl_store *s)
{
	struct timespec	 ts = { 0, CLEAN_PAUSE_US * 1000L };
	enum bl_err	 e;

	if ((e = bl_st_bulk(s, 0)) != BL_OK)
		return e;
	nanosleep(&ts, NULL);
	return BL_OK;
}

/* ST_CLEAN_LOCK's row: whether the lock was taken. */
static int
lock_row(void *arg, const struct bl_row *row)
{
	*(int *)arg = bl_col_int(row, 0, 0) != 0;
	return 0;
}

/* One step of secret requests: at most CLEAN_FIRST of them; their number in *n. */
static enum bl_err
clean_requests(struct bl_store *s, int64_t now, int64_t *n)
{
	enum bl_err	 e;
	int64_t		 removed = 0, mark;

	if ((e = bl_st_begin(s)) != BL_OK)
		return e;
	mark = bl_audit_mark(s);
	if ((e = bl_st_run(s, ST_AUDIT_RQ_CLEAN, PARMS(P_INT(now), P_INT(CLEAN_FIRST)), NULL,
	    NULL, &removed)) != BL_OK || (removed > 0 && (e = bl_audit_mirror_since(s, mark,
	    BL_EV_REQUEST_REMOVED, BL_EV_NONE, now, 0)) != BL_OK))
		return bl_st_end(s, e);
	bl_st_event(s, BL_EV_REQUEST_REMOVED, removed);
	return bl_st_end(s, bl_st_run(s, ST_RQ_CLEAN, PARMS(P_INT(now), P_INT(CLEAN_FIRST)),
	    NULL, NULL, n));
}

enum bl_err
bl_store_cleanup(struct bl_store *s, int64_t now, struct bl_cleanup_stats *stats)
{
	int64_t		 n = CLEAN_FIRST, rows = CLEAN_FIRST, t;
	enum bl_err	 e;
	int		 last = 0, held = 1;

	memset(stats, 0, sizeof(*stats));
	if ((e = bl_st_run(s, ST_CLEAN_LOCK, NO_PARMS, lock_row, &held, NULL)) != BL_OK)
		return e;
	if (!held) {
		stats->busy = 1;
		return BL_OK;
	}
	if ((e = bl_st_bulk(s, 1)) != BL_OK)
		return e;
	while (n == CLEAN_FIRST) {
		if (stats->steps++ > 0 && (e = clean_pause(s)) != BL_OK)
			return e;
		if ((e = clean_requests(s, now, &n)) != BL_OK)
			return e;
		stats->requests += n;
	}
	while (!last) {
		if ((e = clean_pause(s)) != BL_OK)
			return e;
		stats->steps++;
		t = bl_now_ms();
		if ((e = clean_step(s, now, rows, &stats->removed, &last)) != BL_OK)
			return e;
		t = bl_now_ms() - t;
		if (t < CLEAN_TARGET_MS / 2 && rows < CLEAN_MAX)
			rows *= 2;
		else if (t > 2 * CLEAN_TARGET_MS && rows > CLEAN_MIN)
			rows /= 2;
	}
	if ((e = bl_st_alone(s, ST_OUTBOX_PRUNE, PARMS(P_INT(now - OUTBOX_KEEP_MS)), NULL,
	    NULL)) != BL_OK)
		return e;
	/* the keys of the rows removed above, and of any secret that never committed */
	if ((e = bl_st_key_expire(s, now)) != BL_OK)
		return e;
	return bl_st_purge(s);
}

/* One secret row by its id (no content, no state change); NOT_FOUND if none. */
enum bl_err
bl_store_secret_get(struct bl_store *s, int64_t id, struct bl_secret *r)
{
	memset(r, 0, sizeof(*r));
	return bl_st_one(s, ST_SECRET_GET, PARMS(P_INT(id)), bl_secret_row, r);
}
