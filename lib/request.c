/* request.c (layer: domain): the lifecycle of a secret request (docs/API.md, "Secret requests"), written once above the backends. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "store.h"

/*
 * A request is waiting until one answer arrives (answered), which is read
 * once (read); it expires at expires_at (the answer with it) or either key
 * burns it. Every change locks the request row (ST_RQ_LOCK: SELECT ... FOR
 * UPDATE on PostgreSQL, the write lock of BEGIN IMMEDIATE on SQLite) and
 * re-reads its state inside the transaction, so that of concurrent answers
 * exactly one finds it waiting. The answer is a one-view secret row (lib/secret.c)
 * whose keys nobody holds: only the request's answer_id reaches it.
 */

/* The error of a request in state st for a request by the request key or the inbox key. */
enum bl_err
bl_request_state_err(enum bl_rstate st, int by_inbox)
{
	switch (st) {
	case BL_RQ_WAITING:
		return by_inbox ? BL_ERR_REQUEST_WAITING : BL_OK;
	case BL_RQ_ANSWERED:
		return by_inbox ? BL_OK : BL_ERR_REQUEST_ANSWERED;
	case BL_RQ_READ:
		return by_inbox ? BL_ERR_ANSWER_READ : BL_ERR_REQUEST_ANSWERED;
	case BL_RQ_EXPIRED:
		return BL_ERR_REQUEST_EXPIRED;
	case BL_RQ_BURNED:
		return BL_ERR_REQUEST_BURNED;
	}
	return BL_ERR_INTERNAL;
}

/* The name of a request state as the API shows it. */
const char *
bl_request_state_name(enum bl_rstate st)
{
	static const char *const names[] = {"waiting", "answered", "read", "expired", "burned"};

	return (unsigned)st < sizeof(names) / sizeof(names[0]) ? names[st] : "unknown";
}

/* Copies a 65-byte point column into p; 1 if it held one. */
static int
col_point(const struct bl_row *row, int col, unsigned char p[BL_POINT_BYTES], int *has)
{
	const void	*v;
	size_t		 n;

	*has = 0;
	if (bl_col_blob(row, col, &v, &n) != 0)
		return -1;
	if (v != NULL && n == BL_POINT_BYTES) {
		memcpy(p, v, BL_POINT_BYTES);
		*has = 1;
	}
	return 0;
}

/* Row callback: BL_RQ_COLUMNS and the by-inbox flag into a struct bl_request. */
static int
request_row(void *arg, const struct bl_row *row)
{
	struct bl_request	*r = arg;

	memset(r, 0, sizeof(*r));
	r->id = bl_col_int(row, 0, 0);
	r->state = (enum bl_rstate)bl_col_int(row, 1, 0);
	r->created_ms = bl_col_int(row, 2, 0);
	r->expires_ms = bl_col_int(row, 3, 0);
	r->answered_ms = bl_col_int(row, 4, -1);
	r->read_ms = bl_col_int(row, 5, -1);
	r->allow_files = (int)bl_col_int(row, 6, 1);
	r->answer_id = bl_col_int(row, 8, 0);
	r->by_inbox = (int)bl_col_int(row, 10, 0);
	if (col_point(row, 7, r->public_key, &r->has_public_key) != 0 ||
	    col_point(row, 9, r->answer_key, &r->has_answer_key) != 0)
		return -1;
	return 0;
}

/* What ST_RQ_LOOKUP reads: the row, and its note if note is not NULL. */
struct found {
	struct bl_request	*r;
	struct bl_item		*note;
};

static int
found_row(void *arg, const struct bl_row *row)
{
	struct found	*f = arg;
	const void	*p;
	size_t		 n;

	if (request_row(f->r, row) != 0)
		return -1;
	if (f->note == NULL)
		return 0;
	if (bl_col_blob(row, 11, &p, &n) != 0)
		return -1;
	return p == NULL ? 0 : bl_col_item(row, 11, f->note);
}

/* Stores a new request in one transaction. */
enum bl_err
bl_request_insert(struct bl_store *s, const struct bl_new_request *n)
{
	const struct bl_item	*note = n->note;
	enum bl_err		 e;
	int64_t			 id = 0;

	if ((e = bl_st_begin(s)) != BL_OK)
		return e;
	e = bl_st_run(s, ST_RQ_INSERT, PARMS(
	    P_BLOB(n->request_hash, BL_HASH_BYTES),
	    P_BLOB(n->inbox_hash, BL_HASH_BYTES),
	    P_INT(n->created_ms),
	    P_INT(n->expires_ms),
	    P_BOOL(n->allow_files),
	    P_BLOB(n->public_key, BL_POINT_BYTES),
	    P_BLOB_OR_NULL(note != NULL, note != NULL ? note->buf : NULL,
	    note != NULL ? note->len : 0),
	    P_BLOB_OR_NULL(note != NULL, note != NULL ? note->iv : NULL, BL_IV_BYTES)),
	    bl_row_id, &id, NULL);
	if (e == BL_OK)
		e = bl_audit(s, BL_EV_REQUEST_CREATED, 0, id, NULL, "ok", NULL);
	return bl_st_end(s, e);
}

/* Ends a locked request: the answer (if any) and the request move to state, content deleted. */
static enum bl_err
end_request(struct bl_store *s, struct bl_request *r, int64_t now, enum bl_rstate st)
{
	enum bl_err	 e;

	if (r->answer_id > 0 && (e = bl_secret_end(s, r->answer_id, now,
	    st == BL_RQ_BURNED ? BL_ST_BURNED : BL_ST_EXPIRED)) != BL_OK)
		return e;
	if ((e = bl_st_run(s, ST_RQ_END, PARMS(P_INT(r->id), P_INT(st)), NULL, NULL,
	    NULL)) != BL_OK)
		return e;
	r->state = st;
	r->has_public_key = r->has_answer_key = 0;
	return BL_OK;
}

/* 1 while a request can still change: waiting or answered. */
static int
open_state(enum bl_rstate st)
{
	return st == BL_RQ_WAITING || st == BL_RQ_ANSWERED;
}

/*
 * Inside a transaction: locks request id and reads it; one still open past
 * its expiry is expired on the way (*changed set).
 */
static enum bl_err
lock(struct bl_store *s, int64_t id, int64_t now, struct bl_request *r, int *changed)
{
	enum bl_err	 e;
	int		 by_inbox = r->by_inbox;

	*changed = 0;
	if ((e = bl_st_one(s, ST_RQ_LOCK, PARMS(P_INT(id)), request_row, r)) != BL_OK)
		return e;
	r->by_inbox = by_inbox;
	if (open_state(r->state) && r->expires_ms <= now) {
		if ((e = end_request(s, r, now, BL_RQ_EXPIRED)) != BL_OK)
			return e;
		*changed = 1;
	}
	return BL_OK;
}

/*
 * Finds a request by the hash of its request key or inbox key (r->by_inbox
 * says which), with its sealed note in note (if not NULL and it has one). One
 * still open past its expiry is expired on the way (note deleted).
 */
enum bl_err
bl_request_lookup(struct bl_store *s, const unsigned char hash[BL_HASH_BYTES], int64_t now,
    struct bl_request *r, struct bl_item *note)
{
	struct found	 f = { r, note };
	enum bl_err	 e;
	int		 changed;

	if (note != NULL)
		memset(note, 0, sizeof(*note));
	if ((e = bl_st_one(s, ST_RQ_LOOKUP, PARMS(P_BLOB(hash, BL_HASH_BYTES)), found_row,
	    &f)) != BL_OK)
		return e;
	if (!open_state(r->state) || r->expires_ms > now)
		return BL_OK;
	if (note != NULL)
		bl_item_free(note);
	if ((e = bl_st_begin(s)) != BL_OK)
		return e;
	return bl_st_end(s, lock(s, r->id, now, r, &changed));
}

/*
 * Answers request id once, in one transaction: locks it, checks that it is
 * waiting, stores the answer as a one-view secret that expires with the
 * request, and marks the request answered (the note is deleted). A request
 * answered before: REQUEST_ANSWERED.
 */
enum bl_err
bl_request_answer(struct bl_store *s, int64_t id, int64_t now,
    const unsigned char ephemeral[BL_POINT_BYTES], const struct bl_content *c)
{
	struct bl_request	 r;
	struct bl_new_secret	 n;
	enum bl_err		 e;
	int64_t			 answer_id;
	int			 changed;

	memset(&r, 0, sizeof(r));
	memset(&n, 0, sizeof(n));
	if ((e = bl_st_begin(s)) != BL_OK)
		return e;
	if ((e = lock(s, id, now, &r, &changed)) != BL_OK)
		return bl_st_end(s, e);
	if (r.state != BL_RQ_WAITING)
		return bl_st_refuse(s, bl_request_state_err(r.state, 0), changed);
	/* keys nobody holds: the answer is reached through the request only */
	if (bl_random(n.secret_hash, BL_HASH_BYTES) != 0 ||
	    bl_random(n.receipt_hash, BL_HASH_BYTES) != 0)
		return bl_st_end(s, BL_ERR_INTERNAL);
	n.created_ms = now;
	n.expires_ms = r.expires_ms;
	n.max_views = 1;
	n.deletable = 1;
	n.content = c;
	if ((e = bl_secret_put(s, &n, &answer_id)) == BL_OK)
		e = bl_st_run(s, ST_RQ_ANSWER, PARMS(P_INT(id), P_INT(now), P_INT(answer_id),
		    P_BLOB(ephemeral, BL_POINT_BYTES)), NULL, NULL, NULL);
	if (e == BL_OK)
		e = bl_audit(s, BL_EV_REQUEST_ANSWERED, 0, id, NULL, "ok", NULL);
	return bl_st_end(s, e);
}

/*
 * Reads the answer of request id once, in one transaction: locks it, checks
 * that it is answered, takes the answer's one view (its content deleted) and
 * marks the request read. r gets the row as it was (the ephemeral key in
 * answer_key), c the sealed answer.
 */
enum bl_err
bl_request_read(struct bl_store *s, int64_t id, int64_t now, struct bl_request *r,
    struct bl_content *c)
{
	struct bl_secret	 sec;
	enum bl_err		 e;
	int			 changed;

	memset(c, 0, sizeof(*c));
	r->by_inbox = 1;
	if ((e = bl_st_begin(s)) != BL_OK)
		return e;
	if ((e = lock(s, id, now, r, &changed)) != BL_OK)
		return bl_st_end(s, e);
	if (r->state != BL_RQ_ANSWERED)
		return bl_st_refuse(s, bl_request_state_err(r->state, 1), changed);
	if (!r->has_answer_key || r->answer_id <= 0)
		return bl_st_end(s, BL_ERR_INTERNAL);
	if ((e = bl_secret_take(s, r->answer_id, now, &sec, c)) == BL_OK &&
	    (e = bl_st_run(s, ST_RQ_READ, PARMS(P_INT(id), P_INT(now)), NULL, NULL,
	    NULL)) == BL_OK &&
	    (e = bl_audit(s, BL_EV_REQUEST_READ, 0, id, NULL, "ok", NULL)) == BL_OK) {
		r->state = BL_RQ_READ;
		r->read_ms = now;
	}
	if ((e = bl_st_end(s, e)) != BL_OK)
		bl_content_free(c);
	return e;
}

/* Burns request id (waiting or answered) and its answer, in one transaction. */
enum bl_err
bl_request_burn(struct bl_store *s, int64_t id, int64_t now)
{
	struct bl_request	 r;
	enum bl_err		 e;
	int			 changed;

	memset(&r, 0, sizeof(r));
	if ((e = bl_st_begin(s)) != BL_OK)
		return e;
	if ((e = lock(s, id, now, &r, &changed)) != BL_OK)
		return bl_st_end(s, e);
	if (!open_state(r.state))
		return bl_st_refuse(s, bl_request_state_err(r.state, 1), changed);
	if ((e = end_request(s, &r, now, BL_RQ_BURNED)) == BL_OK)
		e = bl_audit(s, BL_EV_REQUEST_BURNED, 0, id, NULL, "ok", NULL);
	return bl_st_end(s, e);
}
