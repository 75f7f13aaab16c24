/* config.c (layer: base): configuration from the environment, and the per-install secret. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

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

/* The default database: var/burnlink.db beside the directory of the program. */
static char *
default_db(void)
{
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
	if (!explicit && (cfg->settings_path = beside(anchor, "burnlink.conf")) == NULL)
		return -1;
	n = strlen(cfg->limits_path);
	if (bl_config_is_pg(cfg->db_path))
		cfg->cleanup_stamp = beside(anchor, "burnlink-cleanup");
	else if (n > 9 && strcmp(cfg->limits_path + n - 9, "-counters") == 0 &&
	    (cfg->cleanup_stamp = malloc(n)) != NULL) {
		memcpy(cfg->cleanup_stamp, cfg->limits_path, n - 9);
		memcpy(cfg->cleanup_stamp + n - 9, "-cleanup", sizeof("-cleanup"));
	}
	if (cfg->cleanup_stamp == NULL)
		return -1;
	bl_settings_load(cfg, explicit);
	/* The environment overrides the file. */
	v = get != NULL ? get(arg, "BURNLINK_SIGNUP") : getenv("BURNLINK_SIGNUP");
	if (v != NULL && *v != '\0')
		cfg->policy.signup = strcmp(v, "open") == 0;
	else if (cfg->policy.signup < 0)
		cfg->policy.signup = 0;		/* closed by default */
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
	if (load_settings(cfg, get, arg) != 0)
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

	if ((rc = read_key(path, out)) == 0)
		return BL_OK;
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
