/* ops.c (layer: handlers): the four secret operations (create, metadata, retrieve, burn). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Adds a view count, or null for -1 (unlimited). */
static int
add_views(json_object *o, const char *k, int64_t v)
{
	return v < 0 ? bl_json_add_null(o, k) : bl_json_add(o, k, json_object_new_int64(v));
}

/*
 * Adds keyCommitment: the secret's key commitment as 43 url-safe base64
 * characters, or null for a secret stored before commitments (docs/API.md).
 */
static int
add_commitment(json_object *o, const struct bl_secret *s)
{
	char	*b64;
	int	 rc;

	if (!s->has_commit)
		return bl_json_add_null(o, "keyCommitment");
	if ((b64 = bl_b64url_encode(s->commit, BL_COMMIT_BYTES, NULL)) == NULL)
		return -1;
	rc = bl_json_add(o, "keyCommitment", json_object_new_string(b64));
	free(b64);
	return rc;
}

static int
host_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '.' || c == '-' || c == ':' ||
	    c == '[' || c == ']';
}

static int
path_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '/' || c == '.' || c == '-' ||
	    c == '_' || c == '~';
}

/*
 * {site_url}: BURNLINK_SITE_URL, else the scheme, HTTP_HOST and the path the
 * install lives under (what REQUEST_URI has before "/api/secrets" or
 * "/api/requests"). Only characters valid in a host or path are taken from
 * the request.
 */
int
bl_site_url(struct bl_req *r, char **out)
{
	const char	*host = bl_req_env(r, "HTTP_HOST");
	const char	*https = bl_req_env(r, "HTTPS");
	const char	*uri = bl_req_env(r, "REQUEST_URI"), *api;
	const char	*site = r->ctx->cfg.site_url;
	size_t		 hlen = 0, plen = 0, i;
	int		 secure;

	if (site != NULL) {
		size_t n = strlen(site);
		while (n > 0 && site[n - 1] == '/')
			n--;
		return (*out = strndup(site, n)) == NULL ? -1 : 0;
	}
	secure = https != NULL && (strcasecmp(https, "on") == 0 || strcmp(https, "1") == 0);
	if (host != NULL) {
		hlen = strlen(host);
		for (i = 0; i < hlen; i++)
			if (!host_char((unsigned char)host[i]))
				break;
		if (i != hlen || hlen == 0 || hlen > 255)
			host = NULL;
	}
	if (host == NULL) {
		host = "localhost";
		hlen = strlen(host);
	}
	if (uri != NULL && ((api = strstr(uri, "/api/secrets")) != NULL ||
	    (api = strstr(uri, "/api/requests")) != NULL)) {
		plen = (size_t)(api - uri);
		for (i = 0; i < plen; i++)
			if (!path_char((unsigned char)uri[i]))
				break;
		if (i != plen || plen > 512)
			plen = 0;
	}
	if (asprintf(out, "%s://%.*s%.*s", secure ? "https" : "http", (int)hlen, host,
	    (int)plen, uri != NULL ? uri : "") < 0) {
		*out = NULL;
		return -1;
	}
	return 0;
}

/* A receipt id for notifications: "rcp_" and 22 url-safe base64 of 16 random bytes. */
static int
new_receipt_id(char out[BL_RECEIPT_ID_LEN + 1])
{
	unsigned char	 raw[16];
	char		*s;
	size_t		 n = 0;

	if (bl_random(raw, sizeof(raw)) != 0 ||
	    (s = bl_b64url_encode(raw, sizeof(raw), &n)) == NULL)
		return -1;
	snprintf(out, BL_RECEIPT_ID_LEN + 1, "rcp_%s", s);
	free(s);
	return n == BL_KEY_LEN ? 0 : -1;
}

/*
 * POST /secrets, once the preamble counted the creator and read the body:
 * validates, encrypts in server-side mode, stores, answers.
 */
enum bl_err
bl_op_create(struct bl_req *r)
{
	struct bl_create	 c;
	struct bl_new_secret	 n;
	char			 skey[BL_KEY_LEN + 1], rkey[BL_KEY_LEN + 1];
	char			*site = NULL, *dkey = NULL, *url = NULL, *murl = NULL;
	json_object		*o = NULL, *m;
	char			*js = NULL;
	enum bl_err		 e;
	size_t			 dlen = 0, jlen = 0, ulen;

	memset(&c, 0, sizeof(c));
	memset(&n, 0, sizeof(n));
	if (r->ctx->cfg.policy.create_accounts && r->account_id == 0) {
		e = bl_req_fail(r, BL_ERR_NOT_SIGNED_IN, "This server lets only signed-in "
		    "users and API keys create secrets: sign in, or send Authorization: "
		    "Bearer bl_... with an API key.");
		goto out;
	}
	if ((e = bl_create_parse(r, &c)) != BL_OK)
		goto out;

	n.created_ms = r->now_ms;
	n.expires_ms = r->now_ms + c.ttl * 1000;
	n.max_views = c.max_views;
	n.deletable = c.deletable;
	n.server_side = c.server_side;
	n.has_commit = c.has_commit;
	memcpy(n.commit, c.commit, sizeof(n.commit));
	n.content = &c.content;
	n.account_id = r->account_id;
	n.api_key_id = r->api_key_id;
	if ((n.notify = c.notify) != 0) {
		/* only an account is told (docs/NOTIFY.md); anonymous senders have the receipt */
		if (r->account_id <= 0) {
			e = bl_req_fail(r, BL_ERR_INVALID_NOTIFY, "notify needs an account: "
			    "send it with an API key or while signed in, or leave it out.");
			goto out;
		}
		if (new_receipt_id(n.receipt_id) != 0) {
			e = BL_ERR_INTERNAL;
			goto out;
		}
	}
	if (c.pass != NULL) {
		n.has_pass = 1;
		if (bl_pass_hash(c.pass, c.pass_len, n.pass_hash) != 0) {
			e = BL_ERR_INTERNAL;
			goto out;
		}
	}
	/* both keys carry the expiry (docs/API.md, "Keys"), as the row's lookup_at */
	if (bl_new_key_at(skey, n.secret_hash, BL_KEY_AT(n.expires_ms)) != 0 ||
	    bl_new_key_at(rkey, n.receipt_hash, BL_KEY_AT(n.expires_ms)) != 0 ||
	    bl_site_url(r, &site) != 0 ||
	    (c.server_side && (dkey = bl_b64url_encode(c.dkey, 32, &dlen)) == NULL)) {
		e = BL_ERR_INTERNAL;
		goto out;
	}
	/*
	 * The answer is built and serialised before the secret is stored, so
	 * that nothing can fail between the commit and the response (writing it
	 * allocates nothing): a 500 never leaves a stored secret behind.
	 */
	e = BL_ERR_INTERNAL;
	/* In one block of its size: asprintf() grows by realloc, leaving copies of the key. */
	ulen = strlen(site) + strlen("/secret/") + BL_KEY_LEN + (dkey ? 5 + dlen : 0) + 1;
	if ((url = malloc(ulen)) == NULL)
		goto out;
	snprintf(url, ulen, "%s/secret/%s%s%s", site, skey, dkey ? "#key=" : "",
	    dkey ? dkey : "");
	if (asprintf(&murl, "%s/receipt/%s", site, rkey) < 0) {
		murl = NULL;
		goto out;
	}
	if ((o = json_object_new_object()) == NULL ||
	    bl_json_add(o, "success", json_object_new_boolean(1)) ||
	    bl_json_add(o, "secretUrl", json_object_new_string(url)) ||
	    bl_json_add(o, "metadataUrl", json_object_new_string(murl)) ||
	    bl_json_add(o, "metadata", m = json_object_new_object()) ||
	    bl_json_add(m, "key", json_object_new_string(rkey)) ||
	    bl_json_add(m, "secretKey", json_object_new_string(skey)) ||
	    bl_json_add_time(m, "expiresAt", n.expires_ms) ||
	    add_views(m, "maxViews", n.max_views) ||
	    bl_json_add(m, "hasPassphrase", json_object_new_boolean(n.has_pass)) ||
	    bl_json_add(m, "deletable", json_object_new_boolean(n.deletable)) ||
	    (n.notify != 0 && bl_json_add(m, "receiptId",
	    json_object_new_string(n.receipt_id))) ||
	    (js = bl_json_text(o, &jlen)) == NULL)
		goto out;
	if ((e = bl_req_store(r)) != BL_OK ||
	    (e = bl_req_logged(r, bl_store_insert(r->store, &n))) != BL_OK)
		goto out;
	bl_respond_text(r, 200, js, jlen);
	e = BL_OK;
out:
	if (o != NULL) {
		bl_json_wipe(o);	/* the secretUrl holds the key ... */
		json_object_put(o);
	}
	if (js != NULL)			/* ... and so does its serialisation */
		bl_free_wipe(js, jlen + 1);
	if (url != NULL)
		bl_free_wipe(url, strlen(url));
	if (dkey != NULL)
		bl_free_wipe(dkey, dlen);
	free(murl);
	free(site);
	bl_wipe(&n, sizeof(n));
	bl_create_free(&c);
	return e;
}

/* Hashes the path key and opens the store. */
static enum bl_err
key_store(struct bl_req *r, unsigned char hash[BL_HASH_BYTES])
{
	if (bl_sha256(r->key, BL_KEY_LEN, hash) != 0)
		return BL_ERR_INTERNAL;
	return bl_req_store(r);
}

/* Hashes the path key and finds its row. */
static enum bl_err
find(struct bl_req *r, unsigned char hash[BL_HASH_BYTES], struct bl_secret *s)
{
	enum bl_err	 e;

	if ((e = key_store(r, hash)) != BL_OK)
		return e;
	return bl_req_logged(r, bl_store_lookup(r->store, hash, bl_key_at(r->key), r->now_ms,
	    s));
}

/* GET /secrets/<key>: what a secret key or a receipt key may know; no view used. */
enum bl_err
bl_op_metadata(struct bl_req *r)
{
	unsigned char		 hash[BL_HASH_BYTES];
	struct bl_secret	 s;
	json_object		*o = NULL;
	enum bl_err		 e;
	int			 active;

	if ((e = find(r, hash, &s)) != BL_OK)
		return e;
	active = s.state == BL_ST_ACTIVE;
	if (!s.by_receipt && !active)
		return bl_state_err(s.state);
	if ((o = json_object_new_object()) == NULL)
		return BL_ERR_INTERNAL;
	e = BL_ERR_INTERNAL;
	if (bl_json_add(o, "exists", json_object_new_boolean(active)) ||
	    bl_json_add(o, "type", json_object_new_string(s.by_receipt ? "receipt" : "secret")))
		goto out;
	if (s.by_receipt && (bl_json_add(o, "state", json_object_new_string(bl_state_name(s.state))) ||
	    bl_json_add_time(o, "createdAt", s.created_ms)))
		goto out;
	if (bl_json_add(o, "hasPassphrase", json_object_new_boolean(s.has_pass)) ||
	    bl_json_add_time(o, "expiresAt", s.expires_ms) ||
	    add_views(o, "maxViews", s.max_views) ||
	    add_views(o, "viewsRemaining", bl_views_left(&s)) ||
	    bl_json_add(o, "deletable", json_object_new_boolean(s.deletable)))
		goto out;
	if (!s.by_receipt && add_commitment(o, &s))
		goto out;
	if (s.by_receipt && (bl_json_add(o, "viewCount", json_object_new_int64(s.view_count)) ||
	    bl_json_add_time(o, "lastViewedAt", s.last_viewed_ms)))
		goto out;
	e = bl_respond_json(r, 200, o, 0);
	o = NULL;	/* taken */
out:
	json_object_put(o);
	return e;
}

/*
 * A retrieve's or burn's passphrase is a string or null, whether the secret
 * has one or not (checked before the secret is looked up).
 */
static enum bl_err
passphrase_format(struct bl_req *r)
{
	json_object	*v;

	if (r->json != NULL && json_object_object_get_ex(r->json, "passphrase", &v) &&
	    !json_object_is_type(v, json_type_null) &&
	    !json_object_is_type(v, json_type_string))
		return bl_req_fail(r, BL_ERR_INVALID_PASSPHRASE_FORMAT,
		    "passphrase must be a string (or null, or left out).");
	return BL_OK;
}

/*
 * Counts a passphrase attempt, per secret and client (IPv6 per /48) per
 * minute, then per secret from all clients per hour (docs/API.md,
 * "Passphrases"; an attempt refused by the first is not counted by the
 * second), and checks the passphrase in the request body in constant time.
 */
static enum bl_err
check_passphrase(struct bl_req *r, const struct bl_secret *s,
    const unsigned char hash[BL_HASH_BYTES])
{
	unsigned char	 msg[BL_HASH_BYTES + BL_IP_TEXT];
	char		 net[BL_IP_TEXT];
	json_object	*v = NULL;
	int64_t		 left, left_secret;
	const char	*when = "this minute";
	size_t		 iplen;
	enum bl_err	 e;
	int		 ok;

	if (r->json != NULL)
		json_object_object_get_ex(r->json, "passphrase", &v);	/* passphrase_format() */
	bl_client_net48(r->client_ip, net);
	iplen = strlen(net);
	memcpy(msg, hash, BL_HASH_BYTES);
	memcpy(msg + BL_HASH_BYTES, net, iplen);
	if ((e = bl_limit_take(r, BL_LIM_PASSPHRASE, msg, BL_HASH_BYTES + iplen, &left)) != BL_OK ||
	    (e = bl_limit_take(r, BL_LIM_PASSPHRASE_SECRET, hash, BL_HASH_BYTES,
	    &left_secret)) != BL_OK)
		return e;
	/* Every 403's hint counts down the tighter of the two windows. */
	if (left_secret < left) {
		left = left_secret;
		when = "this hour for this secret from all addresses";
	}
	if (v == NULL || json_object_is_type(v, json_type_null))
		return bl_req_fail(r, BL_ERR_INVALID_PASSPHRASE,
		    "This secret is protected by a passphrase: send {\"passphrase\": \"...\"}; "
		    "%lld attempt%s left %s. No view was used.",
		    (long long)left, left == 1 ? "" : "s", when);
	/* scrypt takes ~50 ms: not with a FastCGI batch's write lock held. */
	if (r->store != NULL)
		bl_store_batch_flush(r->store);
	ok = bl_pass_verify(json_object_get_string(v), (size_t)json_object_get_string_len(v),
	    s->pass_hash);
	if (ok < 0)
		return BL_ERR_INTERNAL;
	if (!ok)
		return bl_req_fail(r, BL_ERR_INVALID_PASSPHRASE,
		    "The passphrase is wrong; %lld attempt%s left %s. No view was used.",
		    (long long)left, left == 1 ? "" : "s", when);
	return BL_OK;
}

/*
 * check_passphrase(), and a refusal's audit event (secret.passphrase_refused,
 * or secret.limited for the attempts' limit) in a transaction of its own.
 */
enum bl_err
bl_check_passphrase(struct bl_req *r, const struct bl_secret *s,
    const unsigned char hash[BL_HASH_BYTES])
{
	enum bl_err	 e, ae;

	if ((e = check_passphrase(r, s, hash)) != BL_ERR_INVALID_PASSPHRASE &&
	    e != BL_ERR_TOO_MANY_ATTEMPTS)
		return e;
	if ((ae = bl_req_store(r)) != BL_OK ||
	    (ae = bl_req_logged(r, bl_audit_alone(r->store, e == BL_ERR_INVALID_PASSPHRASE ?
	    BL_EV_SECRET_PASS_REFUSED : BL_EV_SECRET_LIMITED, s->account_id, s->id, NULL,
	    e == BL_ERR_INVALID_PASSPHRASE ? "refused" : "limited", NULL))) != BL_OK)
		return ae;
	return e;
}

/* POST /secrets/<secretKey>: checks the passphrase, consumes one view, returns the content. */
enum bl_err
bl_op_retrieve(struct bl_req *r)
{
	unsigned char		 hash[BL_HASH_BYTES];
	struct bl_secret	 s;
	struct bl_content	 c;
	json_object		*o = NULL;
	enum bl_err		 e;

	memset(&c, 0, sizeof(c));
	if ((e = passphrase_format(r)) != BL_OK || (e = key_store(r, hash)) != BL_OK)
		return e;
	if ((e = bl_req_logged(r, bl_store_take_counted(r->store, hash, bl_key_at(r->key),
	    r->now_ms, &s, &c))) == BL_ERR_NOT_FOUND) {
		/* not a view that one statement takes: the whole way */
		if ((e = bl_req_logged(r, bl_store_lookup(r->store, hash, bl_key_at(r->key),
		    r->now_ms, &s))) != BL_OK)
			return e;
		if (s.by_receipt)
			return BL_ERR_NOT_FOUND;	/* the receipt never reads the content */
		if (s.state != BL_ST_ACTIVE)
			return bl_state_err(s.state);
		if (s.has_pass && (e = bl_check_passphrase(r, &s, hash)) != BL_OK)
			return e;
		e = bl_req_logged(r, bl_store_consume(r->store, s.id, r->now_ms, &s, &c));
	}
	if (e != BL_OK)
		return e;
	/* From here on a failure must say that the view is gone. */
	bl_req_fail(r, BL_ERR_INTERNAL, "One view of this secret was used, but the server "
	    "could not send its content (out of memory); that view is lost.");

	e = BL_ERR_INTERNAL;
	if ((o = json_object_new_object()) == NULL ||
	    bl_json_add(o, "success", json_object_new_boolean(1)) ||
	    bl_json_add_content(o, &c) ||
	    add_views(o, "viewsRemaining", bl_views_left(&s)))
		goto out;
	bl_content_free(&c);	/* the JSON tree holds it now: not three copies at once */
	e = bl_respond_json(r, 200, o, 0);
	o = NULL;	/* taken */
out:
	if (e != BL_OK)
		bl_log(r, "a view was consumed but the response could not be built");
	json_object_put(o);
	bl_content_free(&c);
	return e;
}

/* DELETE /secrets/<key>: burns by receipt key, or by secret key when allowed. */
enum bl_err
bl_op_burn(struct bl_req *r)
{
	unsigned char		 hash[BL_HASH_BYTES];
	struct bl_secret	 s;
	json_object		*o = NULL;
	enum bl_err		 e;

	if ((e = passphrase_format(r)) != BL_OK || (e = find(r, hash, &s)) != BL_OK)
		return e;
	if (s.state != BL_ST_ACTIVE)
		return bl_state_err(s.state);
	if (!s.by_receipt) {
		if (!s.deletable)
			return BL_ERR_DELETION_NOT_ALLOWED;
		if (s.has_pass && (e = bl_check_passphrase(r, &s, hash)) != BL_OK)
			return e;
	}
	if ((e = bl_req_logged(r, bl_store_burn(r->store, s.id, r->now_ms,
	    s.by_receipt ? "receipt" : "recipient"))) != BL_OK)
		return e;
	bl_req_fail(r, BL_ERR_INTERNAL, "The secret was burned, but the server could "
	    "not send the confirmation (out of memory).");
	o = json_object_new_object();
	return bl_respond_json(r, 200, o, o == NULL ||
	    bl_json_add(o, "success", json_object_new_boolean(1)) ||
	    bl_json_add(o, "state", json_object_new_string("burned")));
}
