/* health.c (layer: domain): what the instance allows (GET /api/config) and whether it is well (GET /api/health). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/* Adds k: s, or k: null when s is "". Nonzero when out of memory. */
static int
add_text(json_object *o, const char *k, const char *s)
{
	return s[0] == '\0' ? bl_json_add_null(o, k) : bl_json_add(o, k, json_object_new_string(s));
}

/* {min, max, default} of field f, with its default only when it has one. */
static json_object *
bounds(const struct bl_limits *lim, enum bl_field f, int with_default)
{
	json_object	*o = json_object_new_object();

	if (o == NULL || bl_json_add(o, "min", json_object_new_int64(lim->f[f].min)) ||
	    bl_json_add(o, "max", json_object_new_int64(lim->f[f].max)) ||
	    (with_default && bl_json_add(o, "default", json_object_new_int64(lim->f[f].dflt)))) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* The limits and choices of a creation (docs/API.md, GET /config). */
static json_object *
limits_json(const struct bl_config *cfg)
{
	const struct bl_policy	*pol = &cfg->policy;
	const struct bl_limits	*lim = &cfg->limits;
	json_object		*o = json_object_new_object(), *ttl, *views, *pass, *files, *a;
	size_t			 i;

	if (o == NULL || bl_json_add(o, "ttl", ttl = bounds(lim, BL_F_TTL, 1)) ||
	    bl_json_add(ttl, "choices", a = json_object_new_array()))
		goto fail;
	for (i = 0; i < pol->nexpiry; i++)
		if (json_object_array_add(a, json_object_new_int64(pol->expiry[i])) != 0)
			goto fail;
	if (bl_json_add(o, "maxViews", views = bounds(lim, BL_F_MAX_VIEWS, 1)) ||
	    bl_json_add(views, "unlimited", json_object_new_boolean(pol->views_unlimited)) ||
	    bl_json_add(views, "forced", json_object_new_boolean(pol->views_forced)) ||
	    bl_json_add(o, "passphrase", pass = bounds(lim, BL_F_PASSPHRASE, 0)) ||
	    bl_json_add(pass, "required", json_object_new_boolean(pol->passphrase_required)) ||
	    bl_json_add(o, "content", bounds(lim, BL_F_CONTENT, 0)) ||
	    bl_json_add(o, "files", files = bounds(lim, BL_F_FILES, 0)) ||
	    bl_json_add(files, "allowed", json_object_new_boolean(pol->files_allowed)) ||
	    bl_json_add(o, "body", bounds(lim, BL_F_BODY, 0)))
		goto fail;
	return o;
fail:
	json_object_put(o);
	return NULL;
}

/*
 * The body of GET /api/config: the limits and choices in force, the API
 * version, the features (read receipts by e-mail and webhook, and secret
 * requests, are always built and on: docs/API.md), the page's branding. Nothing
 * secret: no path, no address. NULL when out of memory.
 */
json_object *
bl_config_json(const struct bl_config *cfg)
{
	const struct bl_policy	*pol = &cfg->policy;
	json_object		*o = json_object_new_object(), *f, *b;

	if (o == NULL || bl_json_add(o, "apiVersion", json_object_new_int(BL_API_VERSION)) ||
	    bl_json_add(o, "create", json_object_new_string(pol->create_accounts ?
	    "accounts" : "anyone")) ||
	    bl_json_add(o, "limits", limits_json(cfg)) ||
	    bl_json_add(o, "features", f = json_object_new_object()) ||
	    bl_json_add(f, "accounts", json_object_new_boolean(1)) ||
	    bl_json_add(f, "signup", json_object_new_boolean(pol->signup == 1)) ||
	    bl_json_add(f, "notifications", json_object_new_boolean(1)) ||
	    bl_json_add(f, "requests", json_object_new_boolean(1)) ||
	    bl_json_add(o, "branding", b = json_object_new_object()) ||
	    add_text(b, "siteName", pol->site_name) ||
	    add_text(b, "accentColor", pol->accent) ||
	    add_text(b, "logoUrl", pol->logo) ||
	    add_text(b, "imprintUrl", pol->imprint) ||
	    add_text(b, "footerText", pol->footer))
		goto fail;
	return o;
fail:
	json_object_put(o);
	return NULL;
}

/*
 * Records that cleanup finished: its time in ms (the context's clock) and
 * how long it took, written to a new file renamed over cfg.cleanup_stamp. 0, or -1 with err set.
 */
int
bl_cleanup_record(const struct bl_ctx *c, char *err, size_t errlen)
{
	const char	*path = c->cfg.cleanup_stamp;
	char		 tmp[4096], line[48];
	int		 fd, n, rc = -1;

	/* A name of its own: cleanups of several hosts may record at once. */
	n = snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	if (n < 0 || (size_t)n >= sizeof(tmp)) {
		snprintf(err, errlen, "the path %s is too long", path);
		return -1;
	}
	if ((fd = mkostemp(tmp, O_CLOEXEC)) < 0) {
		snprintf(err, errlen, "cannot record the run in %s: %s", tmp, strerror(errno));
		return -1;
	}
	/* A second line, how long it took (ms): GET /api/metrics reads it. */
	n = snprintf(line, sizeof(line), "%lld\n%lld\n", (long long)c->now_ms,
	    (long long)(bl_now_ms() - c->now_ms));
	if (write(fd, line, (size_t)n) != n)
		snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
	else if (rename(tmp, path) != 0)
		snprintf(err, errlen, "cannot rename %s: %s", tmp, strerror(errno));
	else
		rc = 0;
	close(fd);
	if (rc != 0)
		unlink(tmp);
	return rc;
}

/* When cleanup last finished (ms), or -1 when it never did (or the record is unreadable). */
static int64_t
cleanup_last(const struct bl_config *cfg)
{
	char	 buf[32];
	ssize_t	 n;
	int64_t	 v = 0;
	int	 fd;

	if ((fd = open(cfg->cleanup_stamp, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	for (n = 0; buf[n] >= '0' && buf[n] <= '9' && v < INT64_MAX / 10 - 9; n++)
		v = v * 10 + (buf[n] - '0');
	return n > 0 && buf[n] == '\n' ? v : -1;
}

/*
 * 1 while the installation is new: its install secret, written by the first
 * request, is younger than the time after which cleanup counts as stopped,
 * so no run of cron/cleanup is due yet (before the first request it has
 * nothing to clean and records nothing).
 */
static int
new_install(const struct bl_config *cfg, int64_t now_ms)
{
	struct stat	 st;

	return cfg->secret_file != NULL && stat(cfg->secret_file, &st) == 0 &&
	    now_ms - (int64_t)st.st_mtime * 1000 < (int64_t)BL_CLEANUP_STALE * 1000;
}

/* Adds the check k: {ok} or {ok: false, error}. Nonzero when out of memory. */
static int
add_check(json_object *checks, json_object *failed, const char *k, const char *error,
    json_object **out)
{
	json_object	*o = json_object_new_object();

	if (o == NULL || bl_json_add(checks, k, o) ||
	    bl_json_add(o, "ok", json_object_new_boolean(error == NULL)) ||
	    (error != NULL && bl_json_add(o, "error", json_object_new_string(error))) ||
	    (error != NULL && json_object_array_add(failed, json_object_new_string(k)) != 0))
		return -1;
	if (out != NULL)
		*out = o;
	return 0;
}

/* The error text of e for a check: "CODE: message". */
static const char *
err_text(enum bl_err e, char *buf, size_t len)
{
	snprintf(buf, len, "%s: %s", bl_error_info(e)->code, bl_error_info(e)->message);
	return buf;
}

/*
 * Checks the instance: the settings parse, the database answers (a lookup of
 * a key no secret has), the counters store took a count (counters: the
 * caller's result of counting this check), and cleanup finished within
 * BL_CLEANUP_STALE seconds. Returns {status, checks, failed}, *healthy set;
 * NULL when out of memory. Nothing secret: no path, no address.
 */
json_object *
bl_health(struct bl_ctx *c, enum bl_err counters, int *healthy)
{
	const char		*settings_err = c->cfg.policy.err;
	unsigned char		 none[BL_HASH_BYTES];
	struct bl_secret	 s;
	json_object		*o = json_object_new_object(), *checks, *failed, *cl = NULL;
	char			 dberr[160], cnerr[160], clerr[160];
	const char		*db = NULL, *cn = NULL, *cu = NULL;
	char			 sterr[sizeof(c->cfg.policy.err) + 8];
	size_t			 plen;
	int64_t			 last;
	enum bl_err		 e;

	*healthy = 0;
	memset(none, 0, sizeof(none));
	if ((e = bl_ctx_store(c)) == BL_OK) {
		e = bl_store_lookup(c->store, none, c->now_ms, &s);
		if (e == BL_ERR_NOT_FOUND)
			e = BL_OK;
		else if (e != BL_OK)
			bl_log_id(c->log_id, "health: the database: %s", bl_store_error(c->store));
	}
	if (e != BL_OK)
		db = err_text(e, dberr, sizeof(dberr));
	if (counters != BL_OK)
		cn = err_text(counters, cnerr, sizeof(cnerr));
	last = cleanup_last(&c->cfg);
	if (last < 0) {
		if (!new_install(&c->cfg, c->now_ms))
			cu = "cleanup has not run (or its record is unreadable): run cron/cleanup hourly";
	} else if (c->now_ms - last > (int64_t)BL_CLEANUP_STALE * 1000) {
		snprintf(clerr, sizeof(clerr), "the last cleanup finished %lld minutes ago, "
		    "more than %d: is cron/cleanup still run hourly?",
		    (long long)((c->now_ms - last) / 60000), BL_CLEANUP_STALE / 60);
		cu = clerr;
	}
	/* The settings error without the file's path: "line N: ...". */
	plen = strlen(c->cfg.settings_path);
	if (strncmp(settings_err, c->cfg.settings_path, plen) == 0 && settings_err[plen] == ':') {
		snprintf(sterr, sizeof(sterr), "%s%s", settings_err[plen + 1] == ' ' ?
		    "the settings file:" : "line ", settings_err + plen + 1);
		settings_err = sterr;
	}
	*healthy = db == NULL && cn == NULL && cu == NULL && settings_err[0] == '\0';
	if (o == NULL || bl_json_add(o, "status", json_object_new_string(*healthy ? "ok" : "fail")) ||
	    bl_json_add(o, "checks", checks = json_object_new_object()) ||
	    bl_json_add(o, "failed", failed = json_object_new_array()) ||
	    add_check(checks, failed, "database", db, NULL) ||
	    add_check(checks, failed, "counters", cn, NULL) ||
	    add_check(checks, failed, "settings", settings_err[0] != '\0' ? settings_err : NULL,
	    NULL) ||
	    add_check(checks, failed, "cleanup", cu, &cl) ||
	    bl_json_add_time(cl, "lastRun", last)) {
		json_object_put(o);
		*healthy = 0;
		return NULL;
	}
	return o;
}
