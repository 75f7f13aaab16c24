/* request_ops.c (layer: handlers): the secret request endpoints (docs/API.md, "Secret requests"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/*
 * Reads member name of the body, a public key: 87 url-safe base64
 * characters of an uncompressed point (0x04 || X || Y).
 */
static enum bl_err
parse_point(struct bl_req *r, const char *name, unsigned char out[BL_POINT_BYTES])
{
	json_object	*v;
	unsigned char	*b = NULL;
	size_t		 n = 0;
	int		 ok;

	if (r->json == NULL || !json_object_object_get_ex(r->json, name, &v) ||
	    !json_object_is_type(v, json_type_string))
		return bl_req_fail(r, BL_ERR_INVALID_PUBLIC_KEY,
		    "%s is required: the 65-byte point 0x04 || X || Y as url-safe base64 "
		    "without padding (87 characters).", name);
	ok = json_object_get_string_len(v) == 87 &&
	    (b = bl_b64url_decode(json_object_get_string(v), 87, &n)) != NULL &&
	    n == BL_POINT_BYTES && b[0] == 4;
	if (ok)
		memcpy(out, b, BL_POINT_BYTES);
	free(b);
	return ok ? BL_OK : BL_ERR_INVALID_PUBLIC_KEY;
}

/* Adds a 65-byte point as url-safe base64. */
static int
add_point(json_object *o, const char *k, const unsigned char p[BL_POINT_BYTES])
{
	char	*s;
	int	 rc;

	if ((s = bl_b64url_encode(p, BL_POINT_BYTES, NULL)) == NULL)
		return -1;
	rc = bl_json_add(o, k, json_object_new_string(s));
	free(s);
	return rc;
}

/*
 * The link of a key: {site_url}/<page>/<key>. The client appends its
 * fragment (#key=...): the server never sees it.
 */
static char *
link(struct bl_req *r, const char *page, const char *key)
{
	char	*site = NULL, *url = NULL;

	if (bl_site_url(r, &site) != 0)
		return NULL;
	if (asprintf(&url, "%s/%s/%s", site, page, key) < 0)
		url = NULL;
	free(site);
	return url;
}

/* POST /requests: a new request from the requester's public key and sealed note. */
enum bl_err
bl_op_request_create(struct bl_req *r)
{
	const struct bl_limits	*lim = &r->ctx->cfg.limits;
	struct bl_new_request	 n;
	struct bl_item		 note;
	char			 rkey[BL_KEY_LEN + 1], ikey[BL_KEY_LEN + 1];
	char			*rurl = NULL, *iurl = NULL, *js = NULL;
	json_object		*o = NULL, *v = NULL;
	size_t			 jlen = 0;
	int64_t			 ttl;
	enum bl_err		 e;

	memset(&n, 0, sizeof(n));
	memset(&note, 0, sizeof(note));
	if ((e = parse_point(r, "publicKey", n.public_key)) != BL_OK ||
	    (e = bl_field_int(lim, BL_F_TTL, r->json, &ttl)) != BL_OK ||
	    (e = bl_field_bool(lim, BL_F_ALLOW_FILES, r->json, &n.allow_files)) != BL_OK)
		goto out;
	/* always sealed, an empty note too: it vouches for the public key (docs/API.md) */
	if (!json_object_object_get_ex(r->json, "note", &v) ||
	    (e = bl_json_sealed(r, v, "note", BL_F_NOTE, &note)) != BL_OK) {
		if (v == NULL)
			e = bl_req_fail(r, BL_ERR_INVALID_NOTE, "note is required: {ciphertext, iv} "
			    "under the request link's key, with the public key as additional data "
			    "(an empty note sealed when there is none).");
		goto out;
	}
	n.note = &note;
	n.created_ms = r->now_ms;
	n.expires_ms = r->now_ms + ttl * 1000;
	e = BL_ERR_INTERNAL;
	if (bl_new_key(rkey, n.request_hash) != 0 || bl_new_key(ikey, n.inbox_hash) != 0 ||
	    (rurl = link(r, "request", rkey)) == NULL || (iurl = link(r, "inbox", ikey)) == NULL)
		goto out;
	/*
	 * Built and serialised before the request is stored: nothing can fail
	 * between the commit and the answer (writing it allocates nothing).
	 */
	if ((o = json_object_new_object()) == NULL ||
	    bl_json_add(o, "success", json_object_new_boolean(1)) ||
	    bl_json_add(o, "requestKey", json_object_new_string(rkey)) ||
	    bl_json_add(o, "inboxKey", json_object_new_string(ikey)) ||
	    bl_json_add(o, "requestUrl", json_object_new_string(rurl)) ||
	    bl_json_add(o, "inboxUrl", json_object_new_string(iurl)) ||
	    bl_json_add_time(o, "expiresAt", n.expires_ms) ||
	    bl_json_add(o, "allowFiles", json_object_new_boolean(n.allow_files)) ||
	    (js = bl_json_text(o, &jlen)) == NULL)
		goto out;
	if ((e = bl_req_store(r)) != BL_OK ||
	    (e = bl_req_logged(r, bl_request_insert(r->store, &n))) != BL_OK)
		goto out;
	bl_respond_text(r, 200, js, jlen);
	e = BL_OK;
out:
	if (js != NULL)
		bl_free_wipe(js, jlen + 1);	/* the request and inbox keys */
	if (o != NULL)
		bl_json_wipe(o);
	json_object_put(o);
	free(rurl);
	free(iurl);
	bl_item_free(&note);
	bl_wipe(&n, sizeof(n));
	return e;
}

/* Hashes the path key and finds its request (its note too, if note is not NULL). */
static enum bl_err
find(struct bl_req *r, struct bl_request *q, struct bl_item *note)
{
	unsigned char	 hash[BL_HASH_BYTES];
	enum bl_err	 e;

	if (bl_sha256(r->key, BL_KEY_LEN, hash) != 0)
		return BL_ERR_INTERNAL;
	if ((e = bl_req_store(r)) != BL_OK)
		return e;
	e = bl_req_logged(r, bl_request_lookup(r->store, hash, r->now_ms, q, note));
	return e == BL_ERR_NOT_FOUND ? BL_ERR_REQUEST_NOT_FOUND : e;
}

/* The status the inbox key reads: state and times, never content. */
static int
add_status(json_object *o, const struct bl_request *q)
{
	return bl_json_add(o, "type", json_object_new_string("inbox")) ||
	    bl_json_add(o, "state", json_object_new_string(bl_request_state_name(q->state))) ||
	    bl_json_add(o, "allowFiles", json_object_new_boolean(q->allow_files)) ||
	    bl_json_add_time(o, "createdAt", q->created_ms) ||
	    bl_json_add_time(o, "expiresAt", q->expires_ms) ||
	    bl_json_add_time(o, "answeredAt", q->answered_ms) ||
	    bl_json_add_time(o, "readAt", q->read_ms);
}

/*
 * GET /requests/<key>: by the request key, what the sender needs to answer
 * (while waiting); by the inbox key, the status. No view is used.
 */
enum bl_err
bl_op_request_get(struct bl_req *r)
{
	struct bl_request	 q;
	struct bl_item		 note;
	json_object		*o = NULL;
	enum bl_err		 e;

	memset(&note, 0, sizeof(note));
	if ((e = find(r, &q, &note)) != BL_OK)
		goto out;
	if (!q.by_inbox && (e = bl_request_state_err(q.state, 0)) != BL_OK)
		goto out;
	e = BL_ERR_INTERNAL;
	if ((o = json_object_new_object()) == NULL)
		goto out;
	if (q.by_inbox) {
		if (add_status(o, &q))
			goto out;
	} else if (bl_json_add(o, "type", json_object_new_string("request")) ||
	    bl_json_add(o, "state", json_object_new_string(bl_request_state_name(q.state))) ||
	    !q.has_public_key || add_point(o, "publicKey", q.public_key) ||
	    /* every waiting request has its note (docs/API.md): none is a fault */
	    note.buf == NULL || bl_json_add(o, "note", bl_json_item(&note)) ||
	    bl_json_add(o, "allowFiles", json_object_new_boolean(q.allow_files)) ||
	    bl_json_add_time(o, "expiresAt", q.expires_ms))
		goto out;
	e = bl_respond_json(r, 200, o, 0);
	o = NULL;	/* taken */
out:
	json_object_put(o);
	bl_item_free(&note);
	return e;
}

/* The answer's body: the ephemeral key and a client-side secret's content. */
#define ANSWERED	"{\"success\":true,\"state\":\"answered\"}"

static enum bl_err
answer(struct bl_req *r, const struct bl_request *q)
{
	struct bl_create	 c;
	unsigned char		 eph[BL_POINT_BYTES];
	enum bl_err		 e;

	memset(&c, 0, sizeof(c));
	if ((e = bl_request_state_err(q->state, 0)) != BL_OK ||
	    (e = parse_point(r, "ephemeralKey", eph)) != BL_OK ||
	    (e = bl_create_parse(r, &c)) != BL_OK)
		goto out;
	if (c.server_side) {
		e = bl_req_fail(r, BL_ERR_INVALID_ENCRYPTION_MODE, "An answer is sealed by "
		    "the client for the requester's public key: text and file data must be "
		    "{ciphertext, iv} (docs/API.md, \"Secret requests: wire format\").");
		goto out;
	}
	if (c.content.nfiles > 0 && !q->allow_files) {
		e = BL_ERR_FILES_NOT_ALLOWED;
		goto out;
	}
	if ((e = bl_req_logged(r, bl_request_answer(r->store, q->id, r->now_ms, eph,
	    &c.content))) != BL_OK)
		goto out;
	/* A fixed answer: writing it allocates nothing, so it cannot fail after the commit. */
	bl_respond_text(r, 200, ANSWERED, sizeof(ANSWERED) - 1);
out:
	bl_create_free(&c);
	return e;
}

/* The inbox reads the answer once: its content is deleted as it is sent. */
static enum bl_err
read_answer(struct bl_req *r, struct bl_request *q)
{
	struct bl_content	 c;
	json_object		*o = NULL;
	enum bl_err		 e;

	memset(&c, 0, sizeof(c));
	if ((e = bl_request_state_err(q->state, 1)) != BL_OK ||
	    (e = bl_req_logged(r, bl_request_read(r->store, q->id, r->now_ms, q, &c))) != BL_OK)
		return e;
	bl_req_fail(r, BL_ERR_INTERNAL, "The answer was read, but the server could not "
	    "send it (out of memory); it is lost.");
	e = BL_ERR_INTERNAL;
	if ((o = json_object_new_object()) == NULL ||
	    bl_json_add(o, "success", json_object_new_boolean(1)) ||
	    add_point(o, "ephemeralKey", q->answer_key) ||
	    bl_json_add_content(o, &c))
		goto out;
	bl_content_free(&c);
	e = bl_respond_json(r, 200, o, 0);
	o = NULL;	/* taken */
out:
	if (e != BL_OK)
		bl_log(r, "an answer was read but the response could not be built");
	json_object_put(o);
	bl_content_free(&c);
	return e;
}

/* POST /requests/<key>: the request key answers, the inbox key reads the answer. */
enum bl_err
bl_op_request_post(struct bl_req *r)
{
	struct bl_request	 q;
	enum bl_err		 e;

	if ((e = find(r, &q, NULL)) != BL_OK)
		return e;
	r->event = q.by_inbox ? BL_EV_REQUEST_READ : BL_EV_REQUEST_ANSWERED;
	return q.by_inbox ? read_answer(r, &q) : answer(r, &q);
}

/* DELETE /requests/<key>: either key burns a request that is waiting or answered. */
enum bl_err
bl_op_request_burn(struct bl_req *r)
{
	struct bl_request	 q;
	json_object		*o = NULL;
	enum bl_err		 e;

	if ((e = find(r, &q, NULL)) != BL_OK)
		return e;
	if ((e = bl_req_logged(r, bl_request_burn(r->store, q.id, r->now_ms))) != BL_OK)
		return e;
	bl_req_fail(r, BL_ERR_INTERNAL, "The request was burned, but the server could "
	    "not send the confirmation (out of memory).");
	o = json_object_new_object();
	return bl_respond_json(r, 200, o, o == NULL ||
	    bl_json_add(o, "success", json_object_new_boolean(1)) ||
	    bl_json_add(o, "state", json_object_new_string("burned")));
}
