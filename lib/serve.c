/* serve.c (layer: serve): the lifetime of a request; the preamble every route runs. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "store.h"

/* The action of rt for the request's method (and item), or NULL: 405. */
static const struct bl_action *
action(const struct bl_route *rt, const struct bl_req *r, int item)
{
	const struct bl_action	*a;
	size_t			 i;

	if (r->method == BL_M_OTHER)
		return NULL;
	for (i = 0; i < BL_ACTIONS_MAX; i++) {
		a = &rt->actions[i];
		if (a->handler != NULL && a->item == item && (a->methods & BL_MASK(r->method)))
			return a;
	}
	return NULL;
}

/*
 * Runs the route for r: the preamble in the one order every endpoint shares
 * (lib/internal.h, struct bl_route), then the handler, which answers.
 */
static enum bl_err
run(const struct bl_route *rt, struct bl_req *r)
{
	const struct bl_action	*a;
	int			 item = (rt->path == BL_PATH_ITEM ||
				    rt->path == BL_PATH_KEY_ITEM) && bl_req_item(r);
	unsigned		 n;
	enum bl_err		 e;

	/* Not half a policy: nothing is served while the settings file is invalid. */
	if (r->ctx->cfg.policy.err[0] != '\0' && !(rt->flags & BL_ROUTE_PROBE)) {
		bl_log(r, "settings: %s", r->ctx->cfg.policy.err);
		/* A settings file the programs cannot read in their data directory: the directory's fault. */
		return bl_ctx_unreachable(r->ctx, BL_ERR_CONFIG_INVALID);
	}
	/*
	 * Nor while a data file lies under the document root (lib/config.c):
	 * a site that does not work gets the mistake fixed; a database that
	 * anyone can download would go unnoticed.
	 */
	if (r->ctx->cfg.exposed != NULL && !(rt->flags & BL_ROUTE_PROBE)) {
		bl_log(r, "files: %s", r->ctx->cfg.exposed_err);
		return BL_ERR_CONFIG_INVALID;
	}
	/*
	 * A path below a route that takes none: the web server's configuration
	 * sends every path under /api/ that is no endpoint to /api/config's
	 * program with the path "/-" (conf/), so that it too is the API's JSON
	 * 404, counted as a metadata request is (probing paths costs as much as
	 * probing keys). A route that is not visible to this request
	 * (GET /api/metrics without its token) answers the same.
	 */
	r->endpoint = BL_EP_UNKNOWN;
	if ((rt->path == BL_PATH_NONE && bl_req_item(r)) ||
	    (rt->visible != NULL && !rt->visible(r)))
		return (e = bl_limit_request(r, BL_LIM_IP_METADATA)) != BL_OK ? e :
		    BL_ERR_ENDPOINT_NOT_FOUND;
	r->endpoint = bl_metric_endpoint(rt->name);
	r->item = item;
	/*
	 * Counted first (by the action's own limit, if it has one), so that
	 * every answer (a 405 too) carries the rate-limit headers.
	 */
	a = action(rt, r, item);
	if (!(rt->flags & BL_ROUTE_NOT_PRECOUNTED) &&
	    (e = bl_limit_request(r, a != NULL && a->own_limit ? a->limit : rt->limit)) != BL_OK)
		return e;
	r->allow = item ? rt->allow_item : rt->allow;
	if (a == NULL)
		return BL_ERR_METHOD_NOT_ALLOWED;
	n = a->needs;
	if ((n & BL_NEED_CREATOR) && (e = bl_req_creator(r)) != BL_OK)
		return e;
	if ((n & (BL_NEED_SESSION | BL_NEED_SESSION_OPT)) &&
	    (e = bl_session_load(r, &r->session)) != BL_OK)
		return e;
	if ((n & BL_NEED_SESSION) && !r->session.found)
		return r->session.disabled ? BL_ERR_ACCOUNT_DISABLED : BL_ERR_NOT_SIGNED_IN;
	if (rt->path == BL_PATH_KEY && (e = bl_req_key(r)) != BL_OK)
		return e;
	if (item && rt->path == BL_PATH_KEY_ITEM && bl_req_key(r) != BL_OK)
		return rt->bad_item;
	if (item && rt->path == BL_PATH_ITEM && (r->item_id = bl_req_item_id(r)) == 0)
		return rt->bad_item;
	if ((n & BL_NEED_ORIGIN) && (e = bl_check_origin(r)) != BL_OK)
		return e;
	if ((n & BL_NEED_CSRF) && r->session.found &&
	    (e = bl_check_csrf(r, &r->session)) != BL_OK)
		return e;
	if (rt->open != NULL && !rt->open(r))
		return rt->closed;
	if ((n & (BL_NEED_BODY | BL_NEED_BODY_OPT)) &&
	    (e = bl_req_read_body(r, (n & BL_NEED_BODY) != 0)) != BL_OK)
		return e;
	/* the actor of the audit trail's events (lib/audit.c) */
	bl_audit_who_set(r->ctx, r->account_id > 0 ? r->account_id : r->session.found ?
	    r->session.s.account_id : 0, r->api_key_id, r->client_ip);
	return a->handler(r);
}

/* Hands the context the stores kept from the last request, if they are for its files. */
static void
keep_lend(struct bl_keep *k, struct bl_ctx *c)
{
	if (k->store != NULL && strcmp(k->db_path, c->cfg.db_path) == 0) {
		c->store = k->store;
		bl_st_set_who(c->store, &c->who);
		if (k->batch)
			bl_store_batch(c->store);
	} else {
		if (k->store != NULL && k->batch)
			k->batch_failed = 1;	/* fcgi.c ends a batch first */
		bl_store_close(k->store);
	}
	if (k->counters != NULL && strcmp(k->limits_path, c->cfg.limits_path) == 0)
		c->counters = k->counters;
	else
		bl_store_close(k->counters);
	free(k->db_path);
	free(k->limits_path);
	k->store = k->counters = NULL;
	k->db_path = k->limits_path = NULL;
	k->lent = c;
}

/* Takes the context's stores back for the next request, readied (bl_store_idle()). */
static void
keep_take(struct bl_keep *k, struct bl_ctx *c)
{
	static struct bl_audit_who	 kept_who;

	k->lent = NULL;
	if (c->store != NULL && bl_store_idle(c->store) == 0 &&
	    (k->db_path = strdup(c->cfg.db_path)) != NULL) {
		/* the context ends here; the batch's commit may still send its audit lines */
		kept_who = c->who;
		bl_st_set_who(c->store, &kept_who);
		k->store = c->store;
		c->store = NULL;
	} else if (c->store != NULL && k->batch)
		k->batch_failed = 1;	/* closed with the batch's writes */
	if (c->counters != NULL && bl_store_idle(c->counters) == 0 &&
	    (k->limits_path = strdup(c->cfg.limits_path)) != NULL) {
		k->counters = c->counters;
		c->counters = NULL;
	}
}

/* Closes the kept stores. */
void
bl_keep_free(struct bl_keep *k)
{
	bl_store_close(k->store);
	bl_store_close(k->counters);
	free(k->db_path);
	free(k->limits_path);
	memset(k, 0, sizeof(*k));
}

/*
 * The way out of an answer that nothing holds (CGI): before its first byte
 * the store's work is finished (the WAL checkpoint that secure deletion needs
 * after a burn or a last view), because lighttpd ends a CGI program with
 * SIGTERM as soon as the whole answer has arrived. A FastCGI responder holds
 * its answers until the batch commits (lib/fcgi.c) and readies its stores in
 * keep_take(). The output path (lib/http.c) knows nothing of either.
 */
struct answer {
	const struct bl_io	*io;
	struct bl_ctx		*ctx;
	int			 started;
};

static const char *
answer_getenv(void *arg, const char *name)
{
	const struct bl_io	*io = ((struct answer *)arg)->io;

	return io->getenv(io->ctx, name);
}

static size_t
answer_read(void *arg, void *buf, size_t len)
{
	const struct bl_io	*io = ((struct answer *)arg)->io;

	return io->read(io->ctx, buf, len);
}

static int
answer_write(void *arg, const void *buf, size_t len)
{
	struct answer	*a = arg;

	if (!a->started) {
		a->started = 1;
		if (a->ctx->store != NULL)
			bl_store_idle(a->ctx->store);
	}
	return a->io->write(a->io->ctx, buf, len);
}

/*
 * Serves one request over io: sets up its context and the request, runs the
 * route, turns a returned error into the JSON error body, reads what is left
 * of the body, wipes and frees everything. With keep (FastCGI), the stores
 * are lent to the context and taken back for the next request; without, the
 * answer leaves through answer_write() and the stores are left to the
 * process's exit (bl_ctx_exit()).
 */
void
bl_serve_one(const struct bl_route *rt, const struct bl_io *io, struct bl_keep *keep,
    int (*confine)(struct bl_ctx *))
{
	struct bl_ctx		 ctx;
	struct bl_req		 r;
	struct answer		 ans = { io, &ctx, 0 };
	const struct bl_io	 unheld = { answer_getenv, answer_read, answer_write, &ans };
	enum bl_err		 e = BL_OK;
	unsigned long		 syncfails = bl_store_sync_failures();
	int			 confined;

	if (keep == NULL)
		io = &unheld;
	if (bl_ctx_init(&ctx, io->getenv, io->ctx) != 0)
		e = BL_ERR_INTERNAL;
	confined = confine == NULL || (e == BL_OK && confine(&ctx) == 0);
	bl_req_init(&r, io, &ctx);
	if (e == BL_OK && !confined)
		e = bl_req_fail(&r, BL_ERR_INTERNAL,
		    "cannot install the seccomp sandbox (build with make SECCOMP=0 where seccomp is unavailable)");
	if (e == BL_OK && keep != NULL)
		keep_lend(keep, &ctx);
	if (e == BL_OK)
		e = run(rt, &r);
	/* Its commit is visible, and may not be durable (lib/store_sqlite.c, wal_sync()). */
	if (e == BL_ERR_STORE_UNAVAILABLE && bl_store_sync_failures() != syncfails)
		bl_ctx_hint(&ctx, e, BL_HINT_UNSURE);
	if (e != BL_OK && !r.responded)
		bl_respond_error(&r, e);
	if (e == BL_ERR_INTERNAL)
		bl_log(&r, "request failed: %s", r.hint[0] ? r.hint : "internal error");
	bl_req_drain(&r);
	if (keep != NULL)
		keep_take(keep, &ctx);
	bl_req_free(&r);
	if (keep != NULL)
		bl_ctx_free(&ctx);
	else
		bl_ctx_exit(&ctx);	/* CGI: the process ends next */
}
