/* config.c (layer: base): configuration from the environment, and the per-install secret. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "version.h"	/* generated: BL_BUILD_VERSION (scripts/version.sh) */

/* The build's version: /api/health's "version" (docs/API.md). */
const char bl_build_version[] = BL_BUILD_VERSION;

static char *
dup_env(const char *(*get)(void *, const char *), void *arg, const char *name)
{
	const char	*v = get != NULL ? get(arg, name) : getenv(name);

	return (v != NULL && *v != '\0') ? strdup(v) : NULL;
}

/* Joins a and b into a new string, or NULL. */
static char *
concat(const char *a, const char *b)
{
	size_t	 la = strlen(a), lb = strlen(b);
	char	*s;

	if ((s = malloc(la + lb + 1)) == NULL)
		return NULL;
	memcpy(s, a, la);
	memcpy(s + la, b, lb + 1);
	return s;
}

/*
 * The default database: var/burnlink.db beside the directory of the program,
 * or BL_DATA_DIR/burnlink.db when the build names a data directory (the
 * Debian package: /var/lib/burnlink, docs/ADMIN.md).
 */
static char *
default_db(void)
{
#ifdef BL_DATA_DIR
	return strdup(BL_DATA_DIR "/burnlink.db");
#else
	char	 exe[PATH_MAX];
	ssize_t	 n;
	char	*slash;

	if ((n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) <= 0)
		return strdup("var/burnlink.db");
	exe[n] = '\0';
	if ((slash = strrchr(exe, '/')) == NULL)
		return strdup("var/burnlink.db");
	*slash = '\0';
	return concat(exe, "/../var/burnlink.db");
#endif
}

/* 1 if db names a PostgreSQL database (a URI), not an SQLite file. */
int
bl_config_is_pg(const char *db)
{
	return db != NULL && (strncmp(db, "postgresql://", 13) == 0 ||
	    strncmp(db, "postgres:", 9) == 0);
}

/* name in the directory of path (the current one when path has no '/'), or NULL. */
static char *
beside(const char *path, const char *name)
{
	const char	*slash = strrchr(path, '/');
	size_t		 dlen = slash != NULL ? (size_t)(slash - path) + 1 : 0, nlen = strlen(name);
	char		*s;

	if ((s = malloc(dlen + nlen + 1)) == NULL)
		return NULL;
	memcpy(s, path, dlen);
	memcpy(s + dlen, name, nlen + 1);
	return s;
}

/* The stamp "...cleanup" with name in place of "cleanup" ("...-notify"), or NULL. */
static char *
stamp_sibling(const char *stamp, const char *name)
{
	size_t	 n = strlen(stamp), k = strlen("cleanup"), m = strlen(name);
	char	*s;

	if (n < k || (s = malloc(n - k + m + 1)) == NULL)
		return NULL;
	memcpy(s, stamp, n - k);
	memcpy(s + n - k, name, m + 1);
	return s;
}

/*
 * A FastCGI responder's settings file and install secret, read once and kept
 * while they do not change (bl_config_keep()): reading them for every request
 * cost an open of the settings file (most often absent) and an open, a read
 * and a close of the install secret. What was read is kept with the file's
 * identity as a stat() saw it before the read: device, inode, size, mode,
 * owner, modification and change times, or that it did not exist. In the
 * batch it was read in it is used as it is; a later batch (bl_config_batch())
 * first compares a new stat() of the path (one system call) and reads the file
 * again at any difference, or when the stat fails, so that a changed, replaced,
 * removed, unreadable or newly made file takes effect at the next batch
 * exactly as it did at the next request, with the same answers and errors. A
 * file modified less than KEEP_RACY_S seconds before it was read is not kept
 * (it is read for every request until it is older): two writes within one tick
 * of the file system's clock, of the same size, would give one stat().
 * A CGI process, and any other program, reads both for each context as before.
 */
#define KEEP_RACY_S	2

struct file_id {
	int		 state;		/* 0 nothing kept, 1 a file, 2 no file (ENOENT) */
	dev_t		 dev;
	ino_t		 ino;
	off_t		 size;
	mode_t		 mode;
	uid_t		 uid;
	struct timespec	 mtim;
	struct timespec	 ctim;
};

static int		 keeping;	/* bl_config_keep() */
static unsigned long	 epoch = 1;	/* bl_config_batch() */

/* The settings as bl_settings_load() left them (policy.metrics_token included). */
static struct {
	struct file_id	 id;
	unsigned long	 seen;		/* the epoch of the last look */
	int		 explicit;
	char		 path[PATH_MAX];
	struct bl_policy policy;
	struct bl_limits limits;
} kept_settings;

/*
 * The install secret: in a page of its own, locked in memory (bl_config_keep())
 * and wiped when it is let go, as the per-request copy in struct bl_ctx is.
 */
static struct kept_key {
	unsigned char	 key[32];
	struct file_id	 id;
	unsigned long	 seen;
	char		 path[PATH_MAX];
} kept_key __attribute__((aligned(4096)));

/* The identity of path (follow: stat(), else lstat()) into id; -1 when it cannot be had. */
static int
file_id_of(const char *path, int follow, struct file_id *id)
{
	struct stat	 st;

	memset(id, 0, sizeof(*id));
	if ((follow ? stat(path, &st) : lstat(path, &st)) != 0) {
		if (errno != ENOENT)
			return -1;
		id->state = 2;
		return 0;
	}
	id->state = 1;
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	id->size = st.st_size;
	id->mode = st.st_mode;
	id->uid = st.st_uid;
	id->mtim = st.st_mtim;
	id->ctim = st.st_ctim;
	return 0;
}

static int
same_id(const struct file_id *a, const struct file_id *b)
{
	return a->state == b->state && a->dev == b->dev && a->ino == b->ino &&
	    a->size == b->size && a->mode == b->mode && a->uid == b->uid &&
	    a->mtim.tv_sec == b->mtim.tv_sec && a->mtim.tv_nsec == b->mtim.tv_nsec &&
	    a->ctim.tv_sec == b->ctim.tv_sec && a->ctim.tv_nsec == b->ctim.tv_nsec;
}

/* 1 if what was read of a file with identity id may be kept (see above). */
static int
keepable(const struct file_id *id)
{
	struct timespec	 now;

	if (id->state == 2)
		return 1;
	if (id->state != 1 || clock_gettime(CLOCK_REALTIME, &now) != 0)
		return 0;
	return id->mtim.tv_sec < now.tv_sec - KEEP_RACY_S;
}

/*
 * 1 if what was kept of path is still what the file holds: looked at once
 * per batch.
 */
static int
still(struct file_id *kept, unsigned long *seen, const char *kept_path, const char *path,
    int follow, struct file_id *now)
{
	now->state = 0;
	if (kept->state == 0 || strcmp(kept_path, path) != 0)
		return 0;
	if (*seen == epoch)
		return 1;
	if (file_id_of(path, follow, now) != 0 || !same_id(now, kept))
		return 0;
	*seen = epoch;
	return 1;
}

static void
forget_settings(void)
{
	bl_wipe(&kept_settings.policy, sizeof(kept_settings.policy));
	kept_settings.id.state = 0;
}

static void
forget_key(void)
{
	bl_wipe(kept_key.key, sizeof(kept_key.key));
	kept_key.id.state = 0;
}

/*
 * on 1: this process is a FastCGI responder, which keeps the settings and
 * the install secret from one request to the next (called before its
 * sandbox: the page that holds the secret is locked in memory, if the
 * process may). on 0: whatever was kept is wiped.
 */
void
bl_config_keep(int on)
{
	forget_settings();
	forget_key();
	if (on && !keeping)
		(void)mlock(&kept_key, sizeof(kept_key));	/* best effort, as before */
	keeping = on;
}

/* A FastCGI batch begins: what was kept is looked at again before its next use. */
void
bl_config_batch(void)
{
	epoch++;
}

/*
 * The current FastCGI batch, or 0 outside a FastCGI responder: what is
 * looked at once per batch (here, and the counters file's path in
 * lib/counters.c) is looked at for every use then.
 */
unsigned long
bl_config_epoch(void)
{
	return keeping ? epoch : 0;
}

/* bl_settings_load(), from what was kept when the file has not changed. */
static void
settings_read(struct bl_config *cfg, int explicit)
{
	struct file_id	 id;

	if (!keeping) {
		bl_settings_load(cfg, explicit);
		return;
	}
	id.state = 0;
	if (kept_settings.explicit == explicit &&
	    still(&kept_settings.id, &kept_settings.seen, kept_settings.path,
	    cfg->settings_path, 1, &id)) {
		cfg->policy = kept_settings.policy;
		cfg->limits = kept_settings.limits;
		return;
	}
	forget_settings();
	if (id.state == 0 && file_id_of(cfg->settings_path, 1, &id) != 0)
		id.state = 0;
	bl_settings_load(cfg, explicit);
	if (id.state != 0 && keepable(&id) &&
	    strlen(cfg->settings_path) < sizeof(kept_settings.path)) {
		memcpy(kept_settings.path, cfg->settings_path, strlen(cfg->settings_path) + 1);
		kept_settings.explicit = explicit;
		kept_settings.policy = cfg->policy;
		kept_settings.limits = cfg->limits;
		kept_settings.seen = epoch;
		kept_settings.id = id;
	}
}

/*
 * The settings file (BURNLINK_CONFIG, else burnlink.conf beside the SQLite
 * database or, with PostgreSQL, beside the install secret), and where
 * cron/cleanup records its last run (x.db -> x-cleanup; with PostgreSQL,
 * burnlink-cleanup beside the install secret). Then the settings are read:
 * an error is kept in cfg->policy.err, not returned. -1 when out of memory.
 */
static int
load_settings(struct bl_config *cfg, const char *(*get)(void *, const char *), void *arg)
{
	const char	*anchor = bl_config_is_pg(cfg->db_path) ? cfg->secret_file : cfg->db_path;
	const char	*v;
	size_t		 n;
	int		 explicit;

	explicit = (cfg->settings_path = dup_env(get, arg, "BURNLINK_CONFIG")) != NULL;
#ifdef BL_SETTINGS_FILE
	/* A build that names the settings file (the Debian package's conffile). */
	if (!explicit && (cfg->settings_path = strdup(BL_SETTINGS_FILE)) == NULL)
		return -1;
#else
	if (!explicit && (cfg->settings_path = beside(anchor, "burnlink.conf")) == NULL)
		return -1;
#endif
	n = strlen(cfg->limits_path);
	if (bl_config_is_pg(cfg->db_path))
		cfg->cleanup_stamp = beside(anchor, "burnlink-cleanup");
	else if (n > 9 && strcmp(cfg->limits_path + n - 9, "-counters") == 0 &&
	    (cfg->cleanup_stamp = malloc(n)) != NULL) {
		memcpy(cfg->cleanup_stamp, cfg->limits_path, n - 9);
		memcpy(cfg->cleanup_stamp + n - 9, "-cleanup", sizeof("-cleanup"));
	}
	if (cfg->cleanup_stamp == NULL ||
	    (cfg->notify_stamp = stamp_sibling(cfg->cleanup_stamp, "notify")) == NULL ||
	    (cfg->work_lock = stamp_sibling(cfg->cleanup_stamp, "work")) == NULL)
		return -1;
	v = get != NULL ? get(arg, "BURNLINK_SELF_WORK") : getenv("BURNLINK_SELF_WORK");
	cfg->self_work = v == NULL || strcmp(v, "off") != 0;
	settings_read(cfg, explicit);
	/* The environment overrides the file. */
	if (cfg->site_url == NULL && cfg->policy.site_url[0] != '\0' &&
	    (cfg->site_url = strdup(cfg->policy.site_url)) == NULL)
		return -1;
	v = get != NULL ? get(arg, "BURNLINK_SIGNUP") : getenv("BURNLINK_SIGNUP");
	if (v != NULL && *v != '\0')
		cfg->policy.signup = strcmp(v, "open") == 0;
	else if (cfg->policy.signup < 0)
		cfg->policy.signup = 0;		/* closed by default */
	if (!cfg->policy.signin_password)
		cfg->policy.signup = 0;		/* sign-up makes password accounts */
	return 0;
}

/*
 * The real path of path into out (PATH_MAX bytes): of the file itself, or,
 * when it does not exist yet (a -wal, an install secret before the first
 * request), of its directory followed by its name. -1 when neither resolves.
 *
 * The data files share a directory, and realpath() reads every component
 * of a path again (a readlink() each: 31 system calls a request for the six
 * files under /tmp/x/data/). So the directory's real path is kept in
 * *memo (its path and real path, two PATH_MAX buffers) for the next file in
 * it, and only the file's own name is looked at: readlink() says whether it
 * is a symbolic link (then the whole path is resolved as before) or not, or
 * missing (its directory's real path and its name, as before, and so for a
 * link to nothing).
 */
struct real_memo {
	char	 dir[PATH_MAX];		/* "": nothing kept */
	char	 real[PATH_MAX];
};

static int
real_path(const char *path, char *out, struct real_memo *memo)
{
	const char	*slash = strrchr(path, '/'), *name = slash != NULL ? slash + 1 : path;
	char		 dir[PATH_MAX], link[8];
	size_t		 dlen = slash == NULL ? 1 : slash == path ? 1 : (size_t)(slash - path);
	int		 n;

	if (dlen >= sizeof(dir) || *name == '\0' || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return realpath(path, out) != NULL ? 0 : -1;
	memcpy(dir, slash == NULL ? "." : path, dlen);
	dir[dlen] = '\0';
	if (memo->dir[0] == '\0' || strcmp(memo->dir, dir) != 0) {
		memo->dir[0] = '\0';
		if (realpath(dir, memo->real) == NULL)
			return -1;
		memcpy(memo->dir, dir, dlen + 1);
	}
	if (readlink(path, link, sizeof(link)) >= 0) {	/* a link: resolved whole */
		if (realpath(path, out) != NULL)
			return 0;
		if (errno != ENOENT)
			return -1;
	} else if (errno != EINVAL && errno != ENOENT)	/* not a link; missing */
		return -1;
	n = snprintf(dir, sizeof(dir), "%s/%s", strcmp(memo->real, "/") == 0 ? "" : memo->real, name);
	if (n < 0 || (size_t)n >= sizeof(dir))
		return -1;
	memcpy(out, dir, (size_t)n + 1);
	return 0;
}

/*
 * Whether a file the programs keep lies under the web server's document root
 * (docroot, DOCUMENT_ROOT of the request; both as real paths, so that a
 * symbolic link on either side changes nothing): the web server would hand
 * it to anyone who asks, whatever deny rule its configuration lacks. The
 * first one found is named in cfg->exposed, with both paths in
 * cfg->exposed_err for the log. -1 when out of memory.
 */
static int
check_exposed(struct bl_config *cfg, const char *docroot)
{
	const int	 sqlite = !bl_config_is_pg(cfg->db_path);
	const struct { const char *what, *path, *suffix; } files[] = {
		{ "the database", sqlite ? cfg->db_path : NULL, "" },
		{ "the database's WAL", sqlite ? cfg->db_path : NULL, "-wal" },
		{ "the secrets' keys", sqlite ? cfg->db_path : NULL, "-keys" },
		{ "the rate-limit counters", sqlite ? cfg->limits_path : NULL, "" },
		{ "the settings file", cfg->settings_path, "" },
		{ "the install secret", cfg->secret_file, "" },
	};
	struct real_memo	 memo;
	char		 root[PATH_MAX], real[PATH_MAX];
	char		*p;
	size_t		 i, rlen;
	int		 under;

	if (docroot == NULL || *docroot == '\0' || realpath(docroot, root) == NULL)
		return 0;
	memo.dir[0] = '\0';
	rlen = strcmp(root, "/") == 0 ? 0 : strlen(root);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		if (files[i].path == NULL)
			continue;
		if ((p = concat(files[i].path, files[i].suffix)) == NULL)
			return -1;
		under = real_path(p, real, &memo) == 0 && strncmp(real, root, rlen) == 0 &&
		    (real[rlen] == '/' || real[rlen] == '\0');
		free(p);
		if (under) {
			cfg->exposed = files[i].what;
			snprintf(cfg->exposed_err, sizeof(cfg->exposed_err),
			    "%s (%.450s) lies under the document root (%.450s), where the web "
			    "server hands it to anyone: move it out (INSTALL, \"Data files\")",
			    files[i].what, real, root);
			return 0;
		}
	}
	return 0;
}

/*
 * The routes' digest this program was built with ($(BUILD)/digest.c, from
 * scripts/routes-gen.c): a weak reference, NULL in what links the library
 * without it (routes-gen itself, the unit tests).
 */
extern const char bl_routes_digest[] __attribute__((weak));

const char *
bl_routes_own(void)
{
	return bl_routes_digest;
}

/*
 * 1 when the routes' digest digest (a web server configuration's
 * BURNLINK_ROUTES) is not the one these programs were built with, 0 when it
 * is, -1 when there is none to compare (digest NULL or empty: a configuration
 * made by hand or by an older release; or a program built without one).
 */
int
bl_routes_differ(const char *digest)
{
	const char	*own = bl_routes_own();

	if (digest == NULL || digest[0] == '\0' || own == NULL)
		return -1;
	/* not a secret, compared as every digest is (tests/security/responses.test.mjs) */
	return strlen(digest) != strlen(own) || !bl_ct_equal(digest, own, strlen(own));
}

/*
 * Keeps BURNLINK_ROUTES, or REDIRECT_BURNLINK_ROUTES (Apache renames what an
 * .htaccess rewrite set when it redirects internally), in cfg->routes; a
 * value too long to be a digest is kept as "?" (it differs from any).
 */
static void
routes_seen(struct bl_config *cfg, const char *(*get)(void *, const char *), void *arg)
{
	const char	*v = get != NULL ? get(arg, "BURNLINK_ROUTES") : getenv("BURNLINK_ROUTES");

	if (v == NULL || v[0] == '\0')
		v = get != NULL ? get(arg, "REDIRECT_BURNLINK_ROUTES") :
		    getenv("REDIRECT_BURNLINK_ROUTES");
	if (v == NULL)
		v = "";
	snprintf(cfg->routes, sizeof(cfg->routes), "%s", strlen(v) < sizeof(cfg->routes) ? v : "?");
}

/*
 * The last answer of check_exposed() in this process, and what it was asked
 * about: the document roots and the data files' paths, one after the other,
 * each with its NUL (in a static buffer: nothing is left allocated at the
 * exit, and longer paths are checked every time). A FastCGI responder serves
 * every request of a site with the same ones, so it resolves them (a
 * realpath() of each: 20 system calls a request with /tmp/x/data/) once, and
 * again when one of them changes. A CGI process answers one request.
 */
#define EXPOSED_KEY_MAX	4096
static struct {
	size_t		 len;		/* 0: nothing asked yet */
	char		 key[EXPOSED_KEY_MAX];
	const char	*exposed;
	char		 err[sizeof(((struct bl_config *)0)->exposed_err)];
} exposed_last;

/*
 * check_exposed() for DOCUMENT_ROOT and then BURNLINK_DOCUMENT_ROOT (for a
 * server that passes the program's own directory as DOCUMENT_ROOT: lighttpd
 * under alias.url), answered from exposed_last when nothing it depends on
 * changed; 0, or -1 when out of memory.
 */
static int
check_exposed_once(struct bl_config *cfg, const char *root, const char *root2)
{
	const char *const	 parts[] = { root, root2, cfg->db_path, cfg->limits_path,
				    cfg->settings_path, cfg->secret_file };
	char			 key[EXPOSED_KEY_MAX];
	size_t			 len = 0, n, i;

	for (i = 0; i < sizeof(parts) / sizeof(parts[0]) && len <= sizeof(key); i++) {
		n = parts[i] != NULL ? strlen(parts[i]) + 1 : 1;
		if (n <= sizeof(key) - len)
			memcpy(key + len, parts[i] != NULL ? parts[i] : "", n);
		len += n;
	}
	if (len <= sizeof(key) && len == exposed_last.len &&
	    memcmp(key, exposed_last.key, len) == 0) {
		cfg->exposed = exposed_last.exposed;
		memcpy(cfg->exposed_err, exposed_last.err, sizeof(cfg->exposed_err));
		return 0;
	}
	if (check_exposed(cfg, root) != 0 ||
	    (cfg->exposed == NULL && check_exposed(cfg, root2) != 0))
		return -1;
	exposed_last.len = 0;
	if (len <= sizeof(key)) {
		memcpy(exposed_last.key, key, len);
		exposed_last.len = len;
		exposed_last.exposed = cfg->exposed;
		memcpy(exposed_last.err, cfg->exposed_err, sizeof(exposed_last.err));
	}
	return 0;
}

/*
 * Fills cfg from the variables get returns (the process environment for
 * NULL) and the settings file; 0 on success (an invalid settings file too:
 * cfg->policy.err says why), -1 when out of memory.
 */
int
bl_config_load(struct bl_config *cfg, const char *(*get)(void *, const char *), void *arg)
{
	const char	*dot;
	char		*dir, *slash;

	memset(cfg, 0, sizeof(*cfg));
	bl_limits_init(&cfg->limits);
	if ((cfg->db_path = dup_env(get, arg, "BURNLINK_DB")) == NULL &&
	    (cfg->db_path = default_db()) == NULL)
		goto fail;
	/* Counters live beside the database: x.db or x -> x-counters; in PostgreSQL, in it. */
	dot = strrchr(cfg->db_path, '.');
	if (bl_config_is_pg(cfg->db_path)) {
		if ((cfg->limits_path = strdup(cfg->db_path)) == NULL)
			goto fail;
	} else if (dot != NULL && strcmp(dot, ".db") == 0 && strchr(dot, '/') == NULL) {
		size_t stem = (size_t)(dot - cfg->db_path);
		if ((cfg->limits_path = malloc(stem + sizeof("-counters"))) == NULL)
			goto fail;
		memcpy(cfg->limits_path, cfg->db_path, stem);
		memcpy(cfg->limits_path + stem, "-counters", sizeof("-counters"));
	} else if ((cfg->limits_path = concat(cfg->db_path, "-counters")) == NULL)
		goto fail;
	if ((cfg->secret_file = dup_env(get, arg, "BURNLINK_SECRET_FILE")) == NULL) {
		/* Beside the SQLite file; with PostgreSQL, in the install's var/. */
		if ((dir = bl_config_is_pg(cfg->db_path) ? default_db() :
		    strdup(cfg->db_path)) == NULL)
			goto fail;
		slash = strrchr(dir, '/');
		if (slash != NULL)
			slash[1] = '\0';
		cfg->secret_file = concat(slash != NULL ? dir : "", "secret.key");
		free(dir);
		if (cfg->secret_file == NULL)
			goto fail;
	}
	cfg->site_url = dup_env(get, arg, "BURNLINK_SITE_URL");
	cfg->trusted_proxies = dup_env(get, arg, "BURNLINK_TRUSTED_PROXIES");
	routes_seen(cfg, get, arg);
	if (load_settings(cfg, get, arg) != 0 ||
	    check_exposed_once(cfg, get != NULL ? get(arg, "DOCUMENT_ROOT") : getenv("DOCUMENT_ROOT"),
	    get != NULL ? get(arg, "BURNLINK_DOCUMENT_ROOT") : getenv("BURNLINK_DOCUMENT_ROOT")) != 0)
		goto fail;
	return 0;
fail:
	bl_config_free(cfg);
	return -1;
}

/*
 * The database as log lines may name it: the SQLite path, but never a
 * PostgreSQL URI or conninfo (they may carry a password).
 */
const char *
bl_config_db_name(const struct bl_config *cfg)
{
	if (cfg->db_path == NULL)
		return "(none)";
	if (strncmp(cfg->db_path, "postgres", 8) == 0)
		return "the PostgreSQL database";
	return cfg->db_path;
}

/*
 * "uid N (name)" for uid, the name from /etc/passwd when it has one (read by
 * hand: a static program has no NSS), into buf.
 */
static const char *
user_name(uid_t uid, char *buf, size_t len)
{
	char	 line[512], *name, *f;
	FILE	*fp;
	int	 found = 0;

	if ((fp = fopen("/etc/passwd", "re")) != NULL) {
		while (!found && fgets(line, sizeof(line), fp) != NULL) {
			name = line;
			if ((f = strchr(name, ':')) == NULL || (f = strchr(f + 1, ':')) == NULL)
				continue;
			*strchr(name, ':') = '\0';
			if (strtoul(f + 1, NULL, 10) == (unsigned long)uid && f[1] >= '0' &&
			    f[1] <= '9' && bl_text_valid(name, strlen(name)) &&
			    strlen(name) < 64) {
				snprintf(buf, len, "uid %lu (%s)", (unsigned long)uid, name);
				found = 1;
			}
		}
		fclose(fp);
	}
	if (!found)
		snprintf(buf, len, "uid %lu", (unsigned long)uid);
	return buf;
}

/*
 * The data directory's files the programs must read and write (SQLite: the
 * database, its WAL and the counters; the install secret, which they only
 * read once it exists).
 */
static int
file_unreachable(const char *path, const char *suffix, int mode, char *hint, size_t len)
{
	char		 p[PATH_MAX], me[96], owner[96];
	struct stat	 st;

	if (snprintf(p, sizeof(p), "%s%s", path, suffix) >= (int)sizeof(p) ||
	    lstat(p, &st) != 0 || S_ISLNK(st.st_mode) || access(p, mode) == 0)
		return 0;
	snprintf(hint, len, "The programs run as %s and cannot %s the file %s, which "
	    "belongs to %s (mode %04o): it was made by another user (a cron job, an "
	    "upload or a copy). Give it to %s (or remove it if it is a stray copy), then "
	    "try again; INSTALL section 6 has the modes for each kind of host.",
	    user_name(geteuid(), me, sizeof(me)), mode & W_OK ? "write" : "read", p,
	    user_name(st.st_uid, owner, sizeof(owner)), (unsigned)(st.st_mode & 07777),
	    me);
	return 1;
}

/* The data directory: the SQLite database's, or with PostgreSQL the install secret's. */
void
bl_config_data_dir(const struct bl_config *cfg, char *dir, size_t len)
{
	const char	*data = bl_config_is_pg(cfg->db_path) ? cfg->secret_file : cfg->db_path;
	const char	*slash;

	if (data == NULL || (slash = strrchr(data, '/')) == NULL)
		snprintf(dir, len, ".");
	else
		snprintf(dir, len, "%.*s", slash == data ? 1 : (int)(slash - data), data);
}

/*
 * Why the data directory (the SQLite database's, or with PostgreSQL the
 * install secret's) or a file in it is out of the programs' reach: it does
 * not exist, cannot be reached, cannot be written, or a file in it belongs to
 * another user. 1 with a hint for the operator (the directory, the user the
 * programs run as and its owner: docs/API.md, STORE_UNAVAILABLE), 2 when
 * only the counters file is the cause (RATE_LIMIT_UNAVAILABLE), 0 when none
 * of these is the case.
 */
int
bl_config_data_unreachable(const struct bl_config *cfg, char *hint, size_t len)
{
	char		 dir[PATH_MAX], me[96], owner[96];
	struct stat	 st;

	bl_config_data_dir(cfg, dir, sizeof(dir));
	user_name(geteuid(), me, sizeof(me));
	if (stat(dir, &st) != 0) {
		if (errno == ENOENT)
			snprintf(hint, len, "The data directory %s does not exist: create it "
			    "beside cgi-bin/ (INSTALL section 6 has its modes) or set BURNLINK_DB "
			    "to a file in an existing directory.", dir);
		else
			snprintf(hint, len, "The programs run as %s and cannot reach the data "
			    "directory %s (%s): a directory above it is closed to that user. "
			    "INSTALL section 6 has the modes for each kind of host.", me, dir,
			    strerror(errno));
		return 1;
	}
	if (access(dir, W_OK | X_OK) != 0) {
		snprintf(hint, len, "The programs run as %s and cannot write the data directory "
		    "%s, which belongs to %s (mode %04o). %s", me, dir,
		    user_name(st.st_uid, owner, sizeof(owner)), (unsigned)(st.st_mode & 07777),
		    st.st_uid == geteuid() ? "Give its owner write access: chmod 700." :
		    "On a host that runs CGI as the customer (suEXEC) the programs run as the "
		    "directory's owner; here they do not, so the host runs them as a web-server "
		    "user shared with its other customers: INSTALL section 6 says what that "
		    "exposes and which mode it needs.");
		return 1;
	}
	if (bl_config_is_pg(cfg->db_path))
		return file_unreachable(cfg->secret_file, "", R_OK, hint, len);
	if (file_unreachable(cfg->db_path, "", R_OK | W_OK, hint, len) ||
	    file_unreachable(cfg->db_path, "-wal", R_OK | W_OK, hint, len) ||
	    file_unreachable(cfg->db_path, "-shm", R_OK | W_OK, hint, len) ||
	    file_unreachable(cfg->secret_file, "", R_OK, hint, len))
		return 1;
	return file_unreachable(cfg->limits_path, "", R_OK | W_OK, hint, len) ? 2 : 0;
}

/*
 * Refuses a file of the data directory that is a symbolic link (an operator
 * program must not follow one as root); 0 if path is absent or no link.
 */
static int
refuse_link(const char *path, const char *suffix, char *err, size_t errlen)
{
	struct stat	 st;
	char		*p;
	int		 rc = 0;

	if ((p = concat(path, suffix)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (lstat(p, &st) == 0 && S_ISLNK(st.st_mode)) {
		snprintf(err, errlen, "%s is a symbolic link: name the file itself", p);
		rc = -1;
	}
	free(p);
	return rc;
}

/*
 * For the programs an operator runs, perhaps as root (cron/cleanup,
 * burnlink-admin): refuses a database, -wal, -shm, counters or install
 * secret path that is a symbolic link, and, run as root, becomes the owner of
 * the data directory (the database's, or the install secret's with
 * PostgreSQL), found by lstat, so that every file it creates belongs to the
 * web server's user as if a request had made it (docs/ADMIN.md). When that
 * directory is root's, the owner of an existing database is taken instead;
 * when both are root's, the program stays root. *exists is 1 if the database
 * exists (always for PostgreSQL): a program that only maintains it then
 * creates nothing. 0 on success, -1 with err set.
 */
int
bl_config_become_owner(const struct bl_config *cfg, int *exists, char *err, size_t errlen)
{
	static const char *const suffixes[] = {"", "-wal", "-shm", "-journal"};
	struct stat	 st, db;
	const char	*data = bl_config_is_pg(cfg->db_path) ? cfg->secret_file : cfg->db_path;
	char		*dir, *slash;
	const char	*dname;
	size_t		 i;
	int		 rc;

	*exists = 1;
	if (!bl_config_is_pg(cfg->db_path)) {
		for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++)
			if (refuse_link(cfg->db_path, suffixes[i], err, errlen) != 0)
				return -1;
		if (refuse_link(cfg->limits_path, "", err, errlen) != 0)
			return -1;
		if (lstat(cfg->db_path, &db) != 0) {
			if (errno != ENOENT) {
				snprintf(err, errlen, "%s: %s", cfg->db_path, strerror(errno));
				return -1;
			}
			*exists = 0;
		}
	}
	if (refuse_link(cfg->secret_file, "", err, errlen) != 0)
		return -1;
	if ((dir = strdup(data)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if ((slash = strrchr(dir, '/')) != NULL)
		slash[slash == dir ? 1 : 0] = '\0';
	dname = slash != NULL ? dir : ".";
	if ((rc = lstat(dname, &st)) != 0)
		snprintf(err, errlen, "the data directory %s: %s", dname, strerror(errno));
	else if (S_ISLNK(st.st_mode) && geteuid() == 0) {
		snprintf(err, errlen, "the data directory %s is a symbolic link: name the "
		    "directory itself in BURNLINK_DB", dname);
		rc = -1;
	}
	free(dir);
	if (rc != 0)
		return -1;
	if (geteuid() != 0)
		return 0;
	if (st.st_uid == 0 && !bl_config_is_pg(cfg->db_path) && *exists)
		st = db;
	if (st.st_uid == 0)
		return 0;
	if (setgroups(0, NULL) != 0 || setgid(st.st_gid) != 0 || setuid(st.st_uid) != 0 ||
	    setuid(0) == 0) {
		snprintf(err, errlen, "cannot become the data directory's owner (uid %lu): %s",
		    (unsigned long)st.st_uid, strerror(errno));
		return -1;
	}
	return 0;
}

void
bl_config_free(struct bl_config *cfg)
{
	free(cfg->db_path);
	free(cfg->limits_path);
	free(cfg->secret_file);
	free(cfg->settings_path);
	free(cfg->cleanup_stamp);
	free(cfg->notify_stamp);
	free(cfg->work_lock);
	free(cfg->site_url);
	free(cfg->trusted_proxies);
	bl_wipe(cfg->policy.metrics_token, sizeof(cfg->policy.metrics_token));
	memset(cfg, 0, sizeof(*cfg));
}

static int
read_key(const char *path, unsigned char key[32])
{
	int	 fd;
	ssize_t	 n;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return -1;
	n = read(fd, key, 32);
	close(fd);
	return n == 32 ? 0 : -2;
}

/*
 * Writes a deny-all .htaccess into the data directory when it has none:
 * should the directory lie under a document root (a host that put it there,
 * a copy left behind), Apache refuses every file in it, whatever it is called
 * (docs/SECURITY.md). Written when the install secret is made (the first
 * request) and by cron/cleanup; a file the operator put there is kept.
 */
void
bl_config_guard(const struct bl_config *cfg)
{
	static const char guard[] = "# Written by burnlink: nothing in this directory is "
	    "ever served (docs/SECURITY.md).\nRequire all denied\n";
	char	 path[PATH_MAX];
	size_t	 n;
	int	 fd;

	bl_config_data_dir(cfg, path, sizeof(path));
	n = strlen(path);
	if (n + sizeof("/.htaccess") > sizeof(path))
		return;
	memcpy(path + n, "/.htaccess", sizeof("/.htaccess"));
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644)) < 0)
		return;
	/* Readable by the web server, whoever it runs as (the umask is the programs' 077). */
	if (fchmod(fd, 0644) != 0 || write(fd, guard, sizeof(guard) - 1) !=
	    (ssize_t)(sizeof(guard) - 1))
		unlink(path);
	close(fd);
}

/*
 * Loads the per-install secret (32 random bytes) from cfg's secret file,
 * creating it with mode 0600 on first use. A new file is written under a
 * temporary name and linked into place, so concurrent first requests agree on
 * one secret. BL_OK, else STORE_UNAVAILABLE (or INTERNAL) with err set.
 */
enum bl_err
bl_config_install_key(const struct bl_config *cfg, unsigned char out[32], char *err,
    size_t errlen)
{
	const char	*path = cfg->secret_file;
	char		*tmp = NULL;
	unsigned char	 key[32];
	int		 fd = -1, rc;
	enum bl_err	 e = BL_ERR_STORE_UNAVAILABLE;
	struct file_id	 id;

	if (keeping && still(&kept_key.id, &kept_key.seen, kept_key.path, path, 0, &id)) {
		memcpy(out, kept_key.key, sizeof(kept_key.key));
		return BL_OK;
	}
	if (keeping) {
		forget_key();
		if (id.state == 0 && file_id_of(path, 0, &id) != 0)
			id.state = 0;
	}
	if ((rc = read_key(path, out)) == 0) {
		/* a regular file as lstat() saw it before the read (O_NOFOLLOW) */
		if (keeping && id.state == 1 && S_ISREG(id.mode) && keepable(&id) &&
		    strlen(path) < sizeof(kept_key.path)) {
			memcpy(kept_key.key, out, sizeof(kept_key.key));
			memcpy(kept_key.path, path, strlen(path) + 1);
			kept_key.seen = epoch;
			kept_key.id = id;
		}
		return BL_OK;
	}
	if (rc == -2 || errno != ENOENT) {
		snprintf(err, errlen, "cannot read the install secret %s: %s", path,
		    rc == -2 ? "short file" : strerror(errno));
		return e;
	}
	if ((tmp = concat(path, ".XXXXXX")) == NULL) {
		snprintf(err, errlen, "out of memory");
		return BL_ERR_INTERNAL;
	}
	if ((fd = mkostemp(tmp, O_CLOEXEC)) < 0) {
		snprintf(err, errlen, "cannot create the install secret %s: %s", path,
		    strerror(errno));
		goto out;
	}
	if (fchmod(fd, 0600) != 0 || bl_random(key, sizeof(key)) != 0 ||
	    write(fd, key, sizeof(key)) != (ssize_t)sizeof(key) || fsync(fd) != 0) {
		snprintf(err, errlen, "cannot write the install secret %s: %s", tmp,
		    strerror(errno));
		goto out;
	}
	if (link(tmp, path) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot create the install secret %s: %s", path,
		    strerror(errno));
		goto out;
	}
	if (read_key(path, out) != 0) {
		snprintf(err, errlen, "cannot read the install secret %s", path);
		goto out;
	}
	bl_config_guard(cfg);
	e = BL_OK;
out:
	bl_wipe(key, sizeof(key));
	if (fd >= 0) {
		close(fd);
		unlink(tmp);
	}
	free(tmp);
	return e;
}
