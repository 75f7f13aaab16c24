/* metrics.c (layer: domain): GET /api/metrics: the totals that only grow and the gauges read at scrape time, in the Prometheus text format (docs/ADMIN.md, "Metrics"). */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "store.h"

/*
 * The totals, slots of the counters store (BL_METRIC_SLOTS, struct
 * bl_counter_ops): answers by endpoint and status class from M_REQUESTS,
 * limits hit by limit from M_LIMITS, events by kind from M_EVENTS, cleanup
 * runs and what they removed from M_CLEANUP. A slot's meaning never changes
 * once released: new ones are added at the end of their range.
 */
#define M_REQUESTS	0	/* BL_EP__MAX x 4 classes */
#define M_LIMITS	80	/* BL_LIM__MAX */
#define M_EVENTS	128	/* BL_EV__MAX */
#define M_CLEANUP	192	/* runs, secrets removed, requests removed */
#define M_CLASSES	4	/* 2xx 3xx 4xx 5xx */

static const char *const endpoints[BL_EP__MAX] = {
	[BL_EP_UNKNOWN] = "unknown",
	[BL_EP_CREATE] = "create",
	[BL_EP_METADATA] = "metadata",
	[BL_EP_RETRIEVE] = "retrieve",
	[BL_EP_DELETE] = "delete",
	[BL_EP_SESSION] = "session",
	[BL_EP_SIGNUP] = "signup",
	[BL_EP_PASSWORD] = "password",
	[BL_EP_KEYS] = "keys",
	[BL_EP_WEBHOOKS] = "webhooks",
	[BL_EP_EMAIL] = "email",
	[BL_EP_TOKEN] = "token",
	[BL_EP_MYSECRETS] = "mysecrets",
	[BL_EP_CONFIG] = "config",
	[BL_EP_HEALTH] = "health",
	[BL_EP_REQUESTS] = "requests",
	[BL_EP_METRICS] = "metrics",
	[BL_EP_MYEVENTS] = "myevents",
	[BL_EP_ADMIN] = "admin",
};


/* The endpoint of a route's name (struct bl_route); BL_EP_UNKNOWN for none. */
enum bl_endpoint
bl_metric_endpoint(const char *name)
{
	int	 i;

	if (name != NULL && strncmp(name, "admin_", 6) == 0)
		return BL_EP_ADMIN;
	for (i = 1; name != NULL && i < BL_EP__MAX; i++)
		if (strcmp(endpoints[i], name) == 0)
			return (enum bl_endpoint)i;
	return BL_EP_UNKNOWN;
}

/*
 * The event an answer records when its handler named none: from the
 * endpoint, the method (BL_M_*), whether it named an item, and the status.
 */
static enum bl_event
event_of(enum bl_endpoint ep, int method, int item, int status)
{
	if (ep == BL_EP_SESSION && method == BL_M_POST && (status == 401 || status == 403))
		return BL_EV_SIGNIN_REFUSED;
	if (status != 200)
		return BL_EV_NONE;
	switch (ep) {
	case BL_EP_CREATE:
		return BL_EV_SECRET_CREATED;
	case BL_EP_RETRIEVE:
		return BL_EV_SECRET_VIEWED;
	case BL_EP_DELETE:
		return BL_EV_SECRET_BURNED;
	case BL_EP_MYSECRETS:
		return method == BL_M_DELETE ? BL_EV_SECRET_BURNED : BL_EV_NONE;
	case BL_EP_REQUESTS:
		return method == BL_M_POST && !item ? BL_EV_REQUEST_CREATED :
		    method == BL_M_DELETE ? BL_EV_REQUEST_BURNED : BL_EV_NONE;
	case BL_EP_SESSION:
		return method == BL_M_POST ? BL_EV_SIGNED_IN :
		    method == BL_M_DELETE ? BL_EV_SIGNED_OUT : BL_EV_NONE;
	case BL_EP_SIGNUP:
		return BL_EV_SIGNED_UP;
	case BL_EP_PASSWORD:
		return BL_EV_PASSWORD_CHANGED;
	case BL_EP_KEYS:
		return method == BL_M_POST ? BL_EV_KEY_CREATED :
		    method == BL_M_DELETE ? BL_EV_KEY_REVOKED : BL_EV_NONE;
	default:
		return BL_EV_NONE;
	}
}

/*
 * What is to be added to the totals, gathered so that one lock of the
 * counters adds it all (struct bl_counter_ops, bump(): one pread and one
 * pwrite of the counters file): an answer's status class and its events
 * together; in a FastCGI responder (bl_metrics_defer()), every answer of a
 * batch, added once its commit is done and before its answers leave
 * (lib/fcgi.c, bl_metrics_flush()), so that a client that has its answer
 * finds it counted. A responder that dies first loses them, as it would a
 * count it had not written yet: the totals are not synced either.
 */
struct tally {
	int64_t	 by[BL_METRIC_SLOTS];
	int	 any;
};

static int		 deferring;
static struct tally	 pending;

static void
tally_add(struct tally *t, unsigned slot, int64_t by)
{
	if (slot < BL_METRIC_SLOTS && by != 0) {
		t->by[slot] += by;
		t->any = 1;
	}
}

/*
 * Adds t to the totals of counters, one bump() for each distinct amount
 * (most often one), and empties it; quietly: a metric never fails what it
 * counts.
 */
static void
tally_write(struct bl_store *counters, struct tally *t, const char *log_id)
{
	unsigned	 slots[BL_METRIC_SLOTS], i;
	int64_t		 by;
	int		 n;

	while (t->any) {
		for (i = 0, by = 0, n = 0; i < BL_METRIC_SLOTS; i++) {
			if (t->by[i] == 0 || (by != 0 && t->by[i] != by))
				continue;
			by = t->by[i];
			slots[n++] = i;
			t->by[i] = 0;
		}
		if (n == 0) {
			t->any = 0;
			break;
		}
		if (bl_counter_bump(counters, slots, n, by) != BL_OK)
			bl_log_id(log_id, "metrics: %s", bl_store_error(counters));
	}
}

/* Adds t to the totals (or, deferring, to what the batch adds). */
static void
tally_done(struct bl_ctx *c, struct tally *t)
{
	unsigned	 i;

	if (!t->any || bl_ctx_counters(c) != BL_OK)
		return;
	if (!deferring) {
		tally_write(c->counters, t, c->log_id);
		return;
	}
	for (i = 0; i < BL_METRIC_SLOTS; i++)
		tally_add(&pending, i, t->by[i]);
}

/* Adds by to the n totals in slots. */
static void
bump(struct bl_ctx *c, const unsigned *slots, int n, int64_t by)
{
	struct tally	 t;
	int		 i;

	memset(&t, 0, sizeof(t));
	for (i = 0; i < n; i++)
		tally_add(&t, slots[i], by);
	tally_done(c, &t);
}

/*
 * on 1: this process is a FastCGI responder, whose answers' totals are
 * added once per batch (bl_metrics_flush()).
 */
void
bl_metrics_defer(int on)
{
	deferring = on;
}

/*
 * Adds what the batch's answers counted to the totals of counters, the
 * batch's (all its requests name one database). NULL when the batch kept
 * none (they could not be readied): what they counted is dropped rather
 * than added to another batch's, which may be another database's.
 */
void
bl_metrics_flush(struct bl_store *counters)
{
	if (counters != NULL)
		tally_write(counters, &pending, NULL);
	memset(&pending, 0, sizeof(pending));
}

static int64_t	 events_into(struct bl_ctx *, struct tally *);

/*
 * Counts one answer before its first byte leaves (a CGI program may be ended
 * once its answer is out): its endpoint and status class, and its event (ev,
 * or else the one event_of() finds). An answer of a program that opened no
 * counters (GET /api/config) is not counted: it would cost it a connection.
 */
void
bl_metrics_answer(struct bl_ctx *c, enum bl_endpoint ep, int method, int item, int status,
    enum bl_event ev)
{
	struct tally	 t;
	int		 cls = status / 100 - 2;

	if (c == NULL || c->counters == NULL || (unsigned)ep >= BL_EP__MAX)
		return;
	memset(&t, 0, sizeof(t));
	if (cls >= 0 && cls < M_CLASSES)
		tally_add(&t, M_REQUESTS + (unsigned)ep * M_CLASSES + (unsigned)cls, 1);
	/* the audit trail's events that committed; the answer's only where there are none */
	if (events_into(c, &t) == 0) {
		if (ev == BL_EV_NONE)
			ev = event_of(ep, method, item, status);
		if (ev != BL_EV_NONE && (status / 100 == 2 || ev == BL_EV_SIGNIN_REFUSED))
			tally_add(&t, M_EVENTS + (unsigned)ev, 1);
	}
	tally_done(c, &t);
}

/*
 * Counts the events whose audit rows committed through the context's store
 * since it last counted (bl_st_events_take()): every kind, the newer ones
 * (secret.passphrase_refused, apikey.used, webhook.failing, the cleanup's
 * secret.expired and secret.removed...) as the first. Returns how many of
 * them the current request's own transactions wrote.
 */
static int64_t
events_into(struct bl_ctx *c, struct tally *t)
{
	int64_t		 counts[64] = { 0 }, own;
	int		 i;

	if (c == NULL || c->store == NULL)
		return 0;
	own = bl_st_events_take(c->store, counts);
	for (i = 1; i < BL_EV__MAX; i++)
		if (counts[i] > 0)
			tally_add(t, M_EVENTS + (unsigned)i, counts[i]);
	return own;
}

int64_t
bl_metrics_events(struct bl_ctx *c)
{
	struct tally	 t;
	int64_t		 own;

	if (c == NULL || c->store == NULL)
		return 0;
	memset(&t, 0, sizeof(t));
	own = events_into(c, &t);
	tally_done(c, &t);
	return own;
}

/* Counts a limit hit (a 429). */
void
bl_metrics_limit(struct bl_ctx *c, enum bl_limit which)
{
	unsigned	 slot = M_LIMITS + (unsigned)which;

	if ((unsigned)which < BL_LIM__MAX)
		bump(c, &slot, 1, 1);
}

/* Counts a cleanup run and what it removed. */
void
bl_metrics_cleanup(struct bl_ctx *c, const struct bl_cleanup_stats *st)
{
	unsigned	 runs = M_CLEANUP, secrets = M_CLEANUP + 1, requests = M_CLEANUP + 2;

	bump(c, &runs, 1, 1);
	bl_metrics_events(c);	/* secret.expired, secret.removed, request.removed */
	if (st->removed > 0)
		bump(c, &secrets, 1, st->removed);
	if (st->requests > 0)
		bump(c, &requests, 1, st->requests);
}

/* A growing text buffer; err once anything failed. */
struct text {
	char	*buf;
	size_t	 len;
	size_t	 cap;
	int	 err;
};

static void	 put(struct text *, const char *, ...) __attribute__((format(printf, 2, 3)));

static void
put(struct text *t, const char *fmt, ...)
{
	va_list	 ap;
	char	*nb;
	int	 n;

	if (t->err)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			t->err = 1;
			return;
		}
		if ((size_t)n < t->cap - t->len) {
			t->len += (size_t)n;
			return;
		}
		if ((nb = realloc(t->buf, t->cap * 2 + (size_t)n)) == NULL) {
			t->err = 1;
			return;
		}
		t->buf = nb;
		t->cap = t->cap * 2 + (size_t)n;
	}
}

/* The HELP and TYPE lines of a metric family. */
static void
family(struct text *t, const char *name, const char *type, const char *help)
{
	put(t, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/*
 * When cleanup last finished and how long it took (ms), from its record
 * (lib/health.c, bl_cleanup_record()): -1 for what is not recorded.
 */
static void
cleanup_record(const struct bl_config *cfg, int64_t *last, int64_t *took)
{
	char	 buf[64], *p, *end;
	ssize_t	 n;
	int	 fd;

	*last = *took = -1;
	if ((fd = open(cfg->cleanup_stamp, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	*last = strtoll(buf, &end, 10);
	if (end == buf || *end != '\n') {
		*last = -1;
		return;
	}
	p = end + 1;
	*took = strtoll(p, &end, 10);
	if (end == p || *end != '\n')
		*took = -1;
}

/*
 * The gauges read at scrape time (a few aggregate statements, the counters'
 * occupancy, the cleanup record): what GET /api/metrics and the operator's
 * overview (GET /api/admin/overview) both show. BL_OK, or the error of the
 * store or the counters that could not be read.
 */
enum bl_err
bl_metrics_read(struct bl_ctx *c, struct bl_overview *ov)
{
	enum bl_err	 e;

	memset(ov, 0, sizeof(*ov));
	ov->limiter_cap = -1;
	if ((e = bl_ctx_store(c)) != BL_OK ||
	    (e = bl_store_gauges(c->store, c->now_ms, &ov->g)) != BL_OK)
		return e;
	if ((e = bl_ctx_counters(c)) != BL_OK ||
	    bl_counter_occupancy(c->counters, c->now_ms / 1000, &ov->limiter_used,
	    &ov->limiter_cap) != BL_OK) {
		bl_log_id(c->log_id, "metrics: %s", c->counters != NULL ?
		    bl_store_error(c->counters) : "cannot open the counters");
		return BL_ERR_RATE_LIMIT_UNAVAILABLE;
	}
	cleanup_record(&c->cfg, &ov->cleanup_last_ms, &ov->cleanup_took_ms);
	return BL_OK;
}

/*
 * The body of GET /api/metrics: the build, the totals (from the counters
 * store), the gauges (a few aggregate statements, the counters' occupancy,
 * the cleanup record). A NUL-terminated string to free, its length in *len;
 * NULL with *e set when the store or the counters cannot be read.
 */
char *
bl_metrics_text(struct bl_ctx *c, size_t *len, enum bl_err *e)
{
	static const char *const sstates[4] = { "active", "expired", "burned", "exhausted" };
	static const char *const rstates[5] = { "waiting", "answered", "read", "expired",
	    "burned" };
	static const char *const classes[M_CLASSES] = { "2xx", "3xx", "4xx", "5xx" };
	struct text		 t = { NULL, 0, 4096, 0 };
	struct bl_overview	 ov;
	const struct bl_gauges	*g = &ov.g;
	int64_t			 tot[BL_METRIC_SLOTS];
	unsigned		 i, k;

	if ((*e = bl_metrics_read(c, &ov)) != BL_OK)
		return NULL;
	if (bl_counter_totals(c->counters, tot) != BL_OK) {
		bl_log_id(c->log_id, "metrics: %s", c->counters != NULL ?
		    bl_store_error(c->counters) : "cannot open the counters");
		*e = BL_ERR_RATE_LIMIT_UNAVAILABLE;
		return NULL;
	}
	if ((t.buf = malloc(t.cap)) == NULL) {
		*e = BL_ERR_INTERNAL;
		return NULL;
	}
	t.buf[0] = '\0';
	family(&t, "burnlink_build_info", "gauge", "The build: API version and storage backend.");
	put(&t, "burnlink_build_info{version=\"%s\",api_version=\"%d\",backend=\"%s\"} 1\n",
	    BL_VERSION, BL_API_VERSION, bl_store_is_pg(c->cfg.db_path) ? "postgresql" : "sqlite");

	family(&t, "burnlink_http_requests_total", "counter",
	    "Answers of the API by endpoint and status class.");
	for (i = 0; i < BL_EP__MAX; i++)
		for (k = 0; k < M_CLASSES; k++)
			put(&t, "burnlink_http_requests_total{endpoint=\"%s\",code=\"%s\"} %lld\n",
			    endpoints[i], classes[k], (long long)tot[M_REQUESTS + i * M_CLASSES + k]);
	family(&t, "burnlink_rate_limited_total", "counter",
	    "Requests refused by a rate limit (429), by limit.");
	for (i = 0; i < BL_LIM__MAX; i++)
		put(&t, "burnlink_rate_limited_total{limit=\"%s\"} %lld\n",
		    bl_limit_info((enum bl_limit)i)->name, (long long)tot[M_LIMITS + i]);
	family(&t, "burnlink_events_total", "counter", "Events by kind.");
	for (i = 1; i < BL_EV__MAX; i++)
		put(&t, "burnlink_events_total{kind=\"%s\"} %lld\n", bl_event_kind(i)->name,
		    (long long)tot[M_EVENTS + i]);
	family(&t, "burnlink_cleanup_runs_total", "counter", "Finished runs of cron/cleanup.");
	put(&t, "burnlink_cleanup_runs_total %lld\n", (long long)tot[M_CLEANUP]);
	family(&t, "burnlink_cleanup_removed_total", "counter",
	    "Rows past their expiry removed by cron/cleanup.");
	put(&t, "burnlink_cleanup_removed_total{what=\"secrets\"} %lld\n",
	    (long long)tot[M_CLEANUP + 1]);
	put(&t, "burnlink_cleanup_removed_total{what=\"requests\"} %lld\n",
	    (long long)tot[M_CLEANUP + 2]);

	family(&t, "burnlink_secrets", "gauge",
	    "Secrets in the database by state (an active one past its expiry counts as expired).");
	for (i = 0; i < 4; i++)
		put(&t, "burnlink_secrets{state=\"%s\"} %lld\n", sstates[i], (long long)g->secrets[i]);
	family(&t, "burnlink_secret_requests", "gauge",
	    "Secret requests in the database by state.");
	for (i = 0; i < 5; i++)
		put(&t, "burnlink_secret_requests{state=\"%s\"} %lld\n", rstates[i],
		    (long long)g->requests[i]);
	family(&t, "burnlink_accounts", "gauge", "Accounts.");
	put(&t, "burnlink_accounts %lld\n", (long long)g->accounts);
	family(&t, "burnlink_api_keys", "gauge", "API keys by state.");
	put(&t, "burnlink_api_keys{state=\"valid\"} %lld\n", (long long)g->keys_valid);
	put(&t, "burnlink_api_keys{state=\"revoked\"} %lld\n", (long long)g->keys_revoked);
	family(&t, "burnlink_outbox_pending", "gauge",
	    "Notifications waiting in the outbox for cron/notify.");
	put(&t, "burnlink_outbox_pending %lld\n", (long long)g->outbox_pending);
	family(&t, "burnlink_outbox_oldest_age_seconds", "gauge",
	    "Age of the oldest waiting notification (0 when none waits).");
	put(&t, "burnlink_outbox_oldest_age_seconds %.3f\n", g->outbox_oldest_ms < 0 ? 0.0 :
	    (double)(c->now_ms - g->outbox_oldest_ms) / 1000.0);
	family(&t, "burnlink_database_size_bytes", "gauge", "Size of the database.");
	put(&t, "burnlink_database_size_bytes %lld\n", (long long)g->db_bytes);
	family(&t, "burnlink_ratelimit_entries", "gauge", "Live rate-limit windows.");
	put(&t, "burnlink_ratelimit_entries %lld\n", (long long)ov.limiter_used);
	if (ov.limiter_cap > 0) {
		family(&t, "burnlink_ratelimit_capacity", "gauge",
		    "Rate-limit windows the counters file holds.");
		put(&t, "burnlink_ratelimit_capacity %lld\n", (long long)ov.limiter_cap);
	}
	if (ov.cleanup_last_ms >= 0) {
		family(&t, "burnlink_cleanup_last_run_timestamp_seconds", "gauge",
		    "When cron/cleanup last finished (Unix time).");
		put(&t, "burnlink_cleanup_last_run_timestamp_seconds %.3f\n", (double)ov.cleanup_last_ms / 1000.0);
	}
	if (ov.cleanup_took_ms >= 0) {
		family(&t, "burnlink_cleanup_last_duration_seconds", "gauge",
		    "How long the last run of cron/cleanup took.");
		put(&t, "burnlink_cleanup_last_duration_seconds %.3f\n", (double)ov.cleanup_took_ms / 1000.0);
	}
	if (t.err) {
		free(t.buf);
		*e = BL_ERR_INTERNAL;
		return NULL;
	}
	*len = t.len;
	return t.buf;
}
