/* webhook.c (layer: handlers): /api/webhooks, the signed-in account's webhooks (docs/NOTIFY.md, docs/API.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define DELIVERIES_MAX	20		/* the deliveries GET /api/webhooks/<id> lists */

/* The event names of a webhook, in the order of their bits (BL_EV_*). */
static const char *const event_names[] = {
	"secret.viewed", "secret.exhausted", "secret.burned", "secret.expired"
};
static const char *const state_names[] = { "pending", "sent", "dropped" };

static int
add_int_or_null(json_object *o, const char *k, int64_t v)
{
	return v < 0 ? bl_json_add_null(o, k) : bl_json_add(o, k, json_object_new_int64(v));
}

/* {id, url, events, createdAt, lastStatus} of a webhook (never its secret). */
static json_object *
webhook_json(const struct bl_webhook *w)
{
	json_object	*o, *ev;
	size_t		 i;

	if ((o = json_object_new_object()) == NULL)
		return NULL;
	if (bl_json_add(o, "id", json_object_new_int64(w->id)) ||
	    bl_json_add(o, "url", json_object_new_string(w->url)) ||
	    bl_json_add(o, "events", ev = json_object_new_array()))
		goto fail;
	for (i = 0; i < sizeof(event_names) / sizeof(event_names[0]); i++)
		if ((w->events & (1u << i)) &&
		    json_object_array_add(ev, json_object_new_string(event_names[i])) != 0)
			goto fail;
	if (bl_json_add_time(o, "createdAt", w->created_ms) ||
	    add_int_or_null(o, "lastStatus", w->last_status))
		goto fail;
	return o;
fail:
	json_object_put(o);
	return NULL;
}

static int
list_one(void *arg, const struct bl_webhook *w)
{
	json_object	*o = webhook_json(w);

	if (o == NULL || json_object_array_add(arg, o) != 0) {
		json_object_put(o);
		return -1;
	}
	return 0;
}

/* GET /api/webhooks: the account's webhooks. */
enum bl_err
bl_op_webhooks_list(struct bl_req *r)
{
	json_object	*arr;
	enum bl_err	 e;

	if ((e = bl_req_store(r)) != BL_OK)
		return e;
	if ((arr = json_object_new_array()) == NULL)
		return BL_ERR_INTERNAL;
	if ((e = bl_req_logged(r, bl_store_webhook_list(r->store, r->session.account.id, list_one,
	    arr))) != BL_OK) {
		json_object_put(arr);
		return e;
	}
	return bl_respond_fields(r, 0, "webhooks", arr, NULL, NULL);
}

/*
 * 1 if url is an https URL (http too when the operator allows it for
 * cron/notify): printable ASCII without spaces, a host after the scheme.
 * Where it leads is checked at each delivery, after DNS (lib/notify.c).
 */
static int
url_valid(const struct bl_req *r, const char *url, size_t len)
{
	const char	*allow = bl_req_env(r, "BURNLINK_NOTIFY_ALLOW"), *host, *p;
	size_t		 i;
	int		 http = 0;

	for (i = 0; i < len; i++)
		if (url[i] <= ' ' || url[i] >= 0x7f)
			return 0;
	if (allow != NULL)
		for (p = allow; (p = strstr(p, "http")) != NULL; p += 4)
			if ((p == allow || strchr(" ,\t", p[-1]) != NULL) &&
			    (p[4] == '\0' || strchr(" ,\t", p[4]) != NULL))
				http = 1;
	if (strncmp(url, "https://", 8) == 0)
		host = url + 8;
	else if (http && strncmp(url, "http://", 7) == 0)
		host = url + 7;
	else
		return 0;
	return *host != '\0' && strchr("/?#:@", *host) == NULL;
}

/* POST /api/webhooks {url, events}: a new webhook; its signing secret is in this answer only. */
enum bl_err
bl_op_webhook_create(struct bl_req *r)
{
	const struct bl_limits	*lim = &r->ctx->cfg.limits;
	struct bl_webhook	 w;
	unsigned char		 raw[32];
	char			*b = NULL, secret[64];
	const char		*url;
	size_t			 ulen, blen = 0;
	enum bl_err		 e;

	memset(&w, 0, sizeof(w));
	if ((e = bl_field_string(lim, BL_F_WEBHOOK_URL, r->json, &url, &ulen)) != BL_OK)
		return e;
	if (url == NULL || !url_valid(r, url, ulen))
		return BL_ERR_INVALID_WEBHOOK;
	if ((e = bl_field_names(lim, BL_F_WEBHOOK_EVENTS, r->json, event_names,
	    sizeof(event_names) / sizeof(event_names[0]), &w.events)) != BL_OK)
		return e;
	if (w.events == 0)
		w.events = BL_EV_ALL;
	if (bl_random(raw, sizeof(raw)) != 0 || (b = bl_b64url_encode(raw, sizeof(raw),
	    &blen)) == NULL) {
		bl_wipe(raw, sizeof(raw));
		return BL_ERR_INTERNAL;
	}
	snprintf(secret, sizeof(secret), "whsec_%s", b);
	bl_free_wipe(b, blen);
	bl_wipe(raw, sizeof(raw));
	memcpy(w.url, url, ulen);
	w.created_ms = r->now_ms;
	w.last_status = -1;
	if ((e = bl_req_store(r)) != BL_OK ||
	    (e = bl_req_logged(r, bl_store_webhook_insert(r->store, r->session.account.id, w.url,
	    w.events, secret, r->now_ms, (int)lim->f[BL_F_WEBHOOKS].max, &w.id))) != BL_OK)
		goto out;
	/* A webhook whose signing secret nobody was shown must not stay. */
	if ((e = bl_respond_fields(r, 1, "secret", json_object_new_string(secret), "webhook",
	    webhook_json(&w))) != BL_OK)
		bl_req_logged(r, bl_store_webhook_delete(r->store, r->session.account.id, w.id));
out:
	bl_wipe(secret, sizeof(secret));
	return e;
}

/* Row callback of GET /api/webhooks/<id>: the webhook of the path. */
struct find {
	int64_t			 id;
	struct bl_webhook	 w;
	int			 found;
};

static int
find_one(void *arg, const struct bl_webhook *w)
{
	struct find	*f = arg;

	if (w->id != f->id)
		return 0;
	f->w = *w;
	f->found = 1;
	return 1;
}

static int
delivery_one(void *arg, const struct bl_delivery *d)
{
	json_object	*o;
	char		 id[32];

	snprintf(id, sizeof(id), "evt_%lld", (long long)d->id);
	if ((o = json_object_new_object()) == NULL ||
	    bl_json_add(o, "id", json_object_new_string(id)) ||
	    bl_json_add(o, "type", json_object_new_string(d->kind)) ||
	    (d->receipt_id[0] != '\0' ? bl_json_add(o, "receiptId",
	    json_object_new_string(d->receipt_id)) : bl_json_add_null(o, "receiptId")) ||
	    bl_json_add(o, "state", json_object_new_string(state_names[d->state % 3])) ||
	    bl_json_add(o, "attempts", json_object_new_int64(d->attempts)) ||
	    add_int_or_null(o, "status", d->status) ||
	    (d->error[0] != '\0' ? bl_json_add(o, "error", json_object_new_string(d->error)) :
	    bl_json_add_null(o, "error")) ||
	    bl_json_add_time(o, "occurredAt", d->occurred_ms) ||
	    bl_json_add_time(o, "doneAt", d->done_ms) ||
	    (d->state == 0 ? bl_json_add_time(o, "nextAt", d->next_ms) :
	    bl_json_add_null(o, "nextAt")) ||
	    json_object_array_add(arg, o) != 0) {
		json_object_put(o);
		return -1;
	}
	return 0;
}

/* GET /api/webhooks/<id>: the webhook and its last deliveries, newest first. */
enum bl_err
bl_op_webhook_get(struct bl_req *r)
{
	struct find	 f;
	json_object	*arr;
	enum bl_err	 e;

	memset(&f, 0, sizeof(f));
	f.id = r->item_id;
	if ((e = bl_req_store(r)) != BL_OK ||
	    (e = bl_req_logged(r, bl_store_webhook_list(r->store, r->session.account.id, find_one,
	    &f))) != BL_OK)
		return e;
	if (!f.found)
		return BL_ERR_WEBHOOK_NOT_FOUND;
	if ((arr = json_object_new_array()) == NULL)
		return BL_ERR_INTERNAL;
	if ((e = bl_req_logged(r, bl_store_deliveries(r->store, r->session.account.id, f.id,
	    DELIVERIES_MAX, delivery_one, arr))) != BL_OK) {
		json_object_put(arr);
		return e;
	}
	return bl_respond_fields(r, 0, "webhook", webhook_json(&f.w), "deliveries", arr);
}

/* POST /api/webhooks/<id>: queues a test delivery; DELETE: deletes the webhook. */
enum bl_err
bl_op_webhook_item(struct bl_req *r)
{
	int64_t		 account = r->session.account.id;
	enum bl_err	 e;

	if ((e = bl_req_store(r)) != BL_OK)
		return e;
	if (r->method == BL_M_DELETE)
		e = bl_store_webhook_delete(r->store, account, r->item_id);
	else
		e = bl_store_webhook_test(r->store, account, r->item_id, r->now_ms);
	if ((e = bl_req_logged(r, e)) != BL_OK)
		return e;
	return bl_respond_fields(r, 1, NULL, NULL, NULL, NULL);
}
