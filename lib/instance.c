/* instance.c (layer: domain): what the instance allows (GET /api/config) and whether it is well (GET /api/health). */
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
 * The sign-in methods that are on: {password, webServer, logoutUrl} (the web
 * server's logout address, null when unset); NULL when out of memory.
 */
json_object *
bl_signin_json(const struct bl_policy *pol)
{
	json_object	*o = json_object_new_object();

	if (o == NULL || bl_json_add(o, "password", json_object_new_boolean(pol->signin_password)) ||
	    bl_json_add(o, "webServer", json_object_new_boolean(pol->signin_webserver)) ||
	    add_text(o, "logoutUrl", pol->logout)) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/*
 * The settings file's check, as burnlink-admin config check says it: {file,
 * loaded, ok, line, error}: line and error (the whole "file:line: what is
 * wrong") null when the file is valid or absent. Shown only to the operator
 * (POST /api/setup with the setup code): GET /api/health names the line alone.
 */
json_object *
bl_settings_check_json(const struct bl_config *cfg)
{
	const struct bl_policy	*pol = &cfg->policy;
	json_object		*o;
	int			 bad = pol->err[0] != '\0';

	if ((o = json_object_new_object()) == NULL)
		return NULL;
	if (bl_json_add(o, "file", json_object_new_string(cfg->settings_path != NULL ?
	    cfg->settings_path : "")) ||
	    bl_json_add(o, "loaded", json_object_new_boolean(pol->loaded)) ||
	    bl_json_add(o, "ok", json_object_new_boolean(!bad)) ||
	    (bad && pol->err_line > 0 ? bl_json_add(o, "line", json_object_new_int64(pol->err_line)) :
	    bl_json_add_null(o, "line")) ||
	    (bad ? bl_json_add(o, "error", json_object_new_string(pol->err)) :
	    bl_json_add_null(o, "error"))) {
		json_object_put(o);
		return NULL;
	}
	return o;
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
	    bl_json_add(o, "signIn", bl_signin_json(pol)) ||
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
 * Records that a run (cron/cleanup, cron/notify) finished now: its time in
 * ms (the context's clock) and how long it took, written to a new file
 * renamed over stamp. 0, or -1 with err set.
 */
int
bl_run_record(const struct bl_ctx *c, const char *path, char *err, size_t errlen)
{
	char	 tmp[4096], line[48];
	int	 fd, n, rc = -1;

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

/* Records that cleanup finished now (cfg.cleanup_stamp). */
int
bl_cleanup_record(const struct bl_ctx *c, char *err, size_t errlen)
{
	return bl_run_record(c, c->cfg.cleanup_stamp, err, errlen);
}

/* When the run stamp records last finished (ms), or -1 when it never did (or the record is unreadable). */
int64_t
bl_run_last(const char *stamp)
{
	char	 buf[32];
	ssize_t	 n;
	int64_t	 v = 0;
	int	 fd;

	if ((fd = open(stamp, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
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

/*
 * Which kind of host the programs run on (docs/API.md, GET /health): as the
 * owner of their files (suEXEC or similar, or a server of their own: the
 * programs are root's or the user's own, and the data directory is the
 * user's), or as a web-server user that owns neither, which a host shares
 * with its other customers' programs. dataPrivate: no other user's programs
 * can read the data (the programs run as the owner and the directory is
 * closed to others). NULL when out of memory.
 */
static json_object *
host_json(const struct bl_config *cfg)
{
	struct stat	 dir, exe;
	char		 path[4096];
	json_object	*o = json_object_new_object();
	uid_t		 me = geteuid();
	int		 owner;

	bl_config_data_dir(cfg, path, sizeof(path));
	owner = stat(path, &dir) == 0 && dir.st_uid == me &&
	    (stat("/proc/self/exe", &exe) != 0 || exe.st_uid == me || exe.st_uid == 0);
	if (o == NULL || bl_json_add(o, "runsAs", json_object_new_string(owner ? "owner" :
	    "shared")) ||
	    bl_json_add(o, "dataPrivate", json_object_new_boolean(owner &&
	    (dir.st_mode & 0007) == 0))) {
		json_object_put(o);
		return NULL;
	}
	return o;
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
 * Checks the instance: the settings parse, no data file lies under the
 * document root (lib/config.c), the database answers (a lookup of
 * a key no secret has), the counters store took a count (counters: the
 * caller's result of counting this check), cleanup finished within
 * BL_CLEANUP_STALE seconds, and the web server's configuration was made for
 * these programs' routes (when it says). Returns {status, version, checks, failed}, *healthy set;
 * NULL when out of memory. Nothing secret: no path, no address.
 */
json_object *
bl_health(struct bl_ctx *c, enum bl_err counters, int *healthy)
{
	const char		*settings_err = c->cfg.policy.err;
	unsigned char		 none[BL_HASH_BYTES];
	struct bl_secret	 s;
	json_object		*o = json_object_new_object(), *checks, *failed, *cl = NULL;
	json_object		*rc = NULL;
	char			 dberr[160], cnerr[160], clerr[160];
	const char		*db = NULL, *cn = NULL, *cu = NULL;
	char			 sterr[160], fierr[160];
	const char		*ro = NULL;
	int64_t			 last;
	int			 routes;
	enum bl_err		 e;

	*healthy = 0;
	memset(none, 0, sizeof(none));
	if ((e = bl_ctx_store(c)) == BL_OK) {
		e = bl_store_lookup(c->store, none, 0, c->now_ms, &s);
		if (e == BL_ERR_NOT_FOUND)
			e = BL_OK;
		else if (e != BL_OK)
			bl_log_id(c->log_id, "health: the database: %s", bl_store_error(c->store));
	}
	if (e != BL_OK)
		db = err_text(e, dberr, sizeof(dberr));
	if (counters != BL_OK)
		cn = err_text(counters, cnerr, sizeof(cnerr));
	last = bl_run_last(c->cfg.cleanup_stamp);
	if (last < 0) {
		if (!new_install(&c->cfg, c->now_ms))
			cu = "cleanup has not run (or its record is unreadable): run cron/cleanup hourly";
	} else if (c->now_ms - last > (int64_t)BL_CLEANUP_STALE * 1000) {
		snprintf(clerr, sizeof(clerr), "the last cleanup finished %lld minutes ago, "
		    "more than %d: is cron/cleanup still run hourly?",
		    (long long)((c->now_ms - last) / 60000), BL_CLEANUP_STALE / 60);
		cu = clerr;
	}
	/*
	 * The settings error, publicly, as its line number alone: the text may
	 * quote the line (a pasted conninfo with its password; with
	 * BURNLINK_CONFIG=/etc/passwd, that file's first line). The whole text is
	 * in the error log (bl_op_health), burnlink-admin config check, and POST
	 * /api/setup to the holder of the setup code (docs/ADMIN.md).
	 */
	if (settings_err[0] != '\0') {
		if (c->cfg.policy.err_line > 0)
			snprintf(sterr, sizeof(sterr), "line %u of the settings file is not "
			    "valid; the error log, burnlink-admin config check and /setup say why",
			    c->cfg.policy.err_line);
		else
			snprintf(sterr, sizeof(sterr), "the settings file cannot be used; "
			    "the error log, burnlink-admin config check and /setup say why");
		settings_err = sterr;
	}
	/* Which file, not where: the log line has the paths. */
	if (c->cfg.exposed != NULL)
		snprintf(fierr, sizeof(fierr), "%s lies under the web server's document root, "
		    "where anyone can download it: move it out", c->cfg.exposed);
	/*
	 * The web server's routing, generated with the route table of other
	 * programs (an upgrade whose configuration was kept): some of these
	 * programs' endpoints are not routed, or routed to a program gone.
	 */
	if ((routes = bl_routes_differ(c->cfg.routes)) == 1)
		ro = "the web server's configuration was made for other programs than these "
		    "(an upgrade without its new configuration): install the new one "
		    "(INSTALL section 12; on a shared host, upload the new htdocs/.htaccess)";
	*healthy = db == NULL && cn == NULL && cu == NULL && settings_err[0] == '\0' &&
	    c->cfg.exposed == NULL && ro == NULL;
	if (o == NULL || bl_json_add(o, "status", json_object_new_string(*healthy ? "ok" : "fail")) ||
	    bl_json_add(o, "version", json_object_new_string(bl_build_version)) ||
	    bl_json_add(o, "checks", checks = json_object_new_object()) ||
	    bl_json_add(o, "failed", failed = json_object_new_array()) ||
	    add_check(checks, failed, "database", db, NULL) ||
	    add_check(checks, failed, "counters", cn, NULL) ||
	    add_check(checks, failed, "settings", settings_err[0] != '\0' ? settings_err : NULL,
	    NULL) ||
	    add_check(checks, failed, "files", c->cfg.exposed != NULL ? fierr : NULL, NULL) ||
	    add_check(checks, failed, "cleanup", cu, &cl) ||
	    bl_json_add_time(cl, "lastRun", last) ||
	    add_check(checks, failed, "routes", ro, &rc) ||
	    bl_json_add(rc, "stamped", json_object_new_boolean(routes >= 0)) ||
	    bl_json_add(o, "host", host_json(&c->cfg))) {
		json_object_put(o);
		*healthy = 0;
		return NULL;
	}
	return o;
}
