/* work.c (layer: serve): the cron jobs' work, run by the programs themselves when no cron job does (INSTALL section 9). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"

extern char	**environ;

/*
 * When a run is due: the last one (by cron or by the programs) finished
 * longer ago than this. cron runs cron/notify every minute and cron/cleanup
 * every hour, so their records are never older than that (and a bit): while
 * cron works, the programs leave the work to it.
 */
#define NOTIFY_DUE_S	75
#define CLEANUP_DUE_S	3900	/* 65 minutes */
#define RUN_MAX_S	50	/* a run that takes longer is ended (SIGALRM) */
#define ENV_MAX		64

/*
 * 1 when the run that stamp records is due: its last run, or the install
 * secret's making when it never ran (a new installation waits one period
 * too), finished longer than due_s seconds ago.
 */
static int
due(const struct bl_ctx *c, const char *stamp, int due_s)
{
	struct stat	 st;
	int64_t		 last = bl_run_last(stamp);

	if (last < 0 && stat(c->cfg.secret_file, &st) == 0)
		last = (int64_t)st.st_mtime * 1000;
	return last >= 0 && c->now_ms - last > (int64_t)due_s * 1000;
}

/* A host name as a site address may hold it: letters, digits, '.', '-', ':', '[', ']'. */
static int
host_valid(const char *h)
{
	size_t	 i, n = strlen(h);

	for (i = 0; i < n; i++)
		if (!((h[i] >= 'a' && h[i] <= 'z') || (h[i] >= 'A' && h[i] <= 'Z') ||
		    (h[i] >= '0' && h[i] <= '9') || strchr(".-:[]", h[i]) != NULL))
			return 0;
	return n > 0 && n <= 255;
}

/*
 * The environment of a run: PATH and the BURNLINK_* settings the web server
 * gave the programs, nothing of the request (no cookie, no Authorization);
 * BURNLINK_SITE_URL, when neither the server nor the settings file (site_url)
 * sets one, from the request's scheme and host (the mails' links; INSTALL says
 * to set it when the site lives under a sub-path). 0, or -1 when it does not fit.
 */
static int
run_env(const struct bl_ctx *c, char *env[ENV_MAX], char *site, size_t sitelen)
{
	const char	*host = getenv("HTTP_HOST"), *https = getenv("HTTPS");
	size_t		 n = 0;
	char		**e;

	env[n++] = (char *)"PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";
	for (e = environ; *e != NULL; e++)
		if (strncmp(*e, "BURNLINK_", 9) == 0) {
			if (n >= ENV_MAX - 2)
				return -1;
			env[n++] = *e;
		}
	if (c->cfg.site_url == NULL && host != NULL && host_valid(host)) {
		snprintf(site, sitelen, "BURNLINK_SITE_URL=%s://%s", https != NULL &&
		    (strcasecmp(https, "on") == 0 || strcmp(https, "1") == 0) ? "https" : "http",
		    host);
		env[n++] = site;
	}
	env[n] = NULL;
	return 0;
}

/* Runs the program name beside this one (../bin/, the build's ../cron/), waits for it. */
static void
run(const char *dir, const char *name, char *const env[], int log)
{
	char	 path[PATH_MAX];
	char	*argv[2];
	pid_t	 pid;
	int	 status;

	snprintf(path, sizeof(path), "%s/../bin/%s", dir, name);
	if (access(path, X_OK) != 0)
		snprintf(path, sizeof(path), "%s/../cron/%s", dir, name);
	if ((pid = fork()) == 0) {
		if (log >= 0)
			dup2(log, STDOUT_FILENO), dup2(log, STDERR_FILENO);
		argv[0] = path;
		argv[1] = NULL;
		alarm(RUN_MAX_S);
		execve(path, argv, env);
		dprintf(STDERR_FILENO, "%s: %s\n", path, strerror(errno));
		_exit(127);
	}
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
}

/*
 * The helper process: holds nothing of the client (its standard streams are
 * /dev/null, in a session of its own, so the web server neither waits for it
 * nor signals it), waits until the request's process has exited (the end of
 * the pipe), then runs what is due, one after the other, logging into
 * <stem>-work.log. The work lock it inherited is held until it exits.
 */
static void
helper(const struct bl_ctx *c, int wait_fd, int cleanup, int notify)
{
	char	 exe[PATH_MAX], site[320], logpath[PATH_MAX], b;
	char	*env[ENV_MAX], *slash;
	ssize_t	 n;
	int	 fd, log;

	if ((fd = open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0) {
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
	}
	setsid();
	signal(SIGHUP, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	while ((n = read(wait_fd, &b, 1)) < 0 && errno == EINTR)
		;
	if ((n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) <= 0)
		_exit(1);
	exe[n] = '\0';
	if ((slash = strrchr(exe, '/')) != NULL)
		*slash = '\0';
	if (run_env(c, env, site, sizeof(site)) != 0)
		_exit(1);
	snprintf(logpath, sizeof(logpath), "%s.log", c->cfg.work_lock);
	log = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (cleanup)
		run(exe, "cleanup", env, log);
	if (notify)
		run(exe, "notify", env, log);
	_exit(0);
}

/* The lock file, new, dated 1970: no attempt was made yet. The descriptor, or -1. */
static int
new_lock(const char *path)
{
	const struct timespec	 never[2] = { { 0, 0 }, { 0, 0 } };
	int			 fd;

	if ((fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) >= 0)
		futimens(fd, never);
	return fd;
}

/*
 * Before the sandbox of a CGI request (lib/program.c): when no cron job has
 * done the cleanup within 65 minutes or the deliveries within 75 seconds,
 * and no other process does them now (the work lock), starts the helper
 * that does them once this process has answered and exited. The request's
 * process itself is unchanged: its seccomp filter forbids fork and exec, as
 * always; the helper is forked before the filter is installed, holds nothing
 * of the request (forked before it is read), and execs the cron programs,
 * which run as they would from cron. Nothing happens with
 * BURNLINK_SELF_WORK=off, before the first request (no install secret yet)
 * or when the lock is taken.
 */
void
bl_work_start(const struct bl_ctx *c)
{
	struct stat	 st;
	int		 cleanup, notify, lock, p[2];
	pid_t		 pid;

	if (!c->cfg.self_work)
		return;
	cleanup = due(c, c->cfg.cleanup_stamp, CLEANUP_DUE_S);
	notify = due(c, c->cfg.notify_stamp, NOTIFY_DUE_S);
	if (!cleanup && !notify)
		return;
	if ((lock = open(c->cfg.work_lock, O_RDWR | O_NOFOLLOW | O_CLOEXEC)) < 0 &&
	    (errno != ENOENT || (lock = new_lock(c->cfg.work_lock)) < 0))
		return;
	/*
	 * One helper at a time, and one attempt per NOTIFY_DUE_S at most (the
	 * lock file's time): a run that keeps failing (a file it cannot open)
	 * records nothing, and must not cost every request a fork.
	 */
	if (flock(lock, LOCK_EX | LOCK_NB) != 0 || fstat(lock, &st) != 0 ||
	    c->now_ms - (int64_t)st.st_mtime * 1000 < (int64_t)NOTIFY_DUE_S * 1000 ||
	    futimens(lock, NULL) != 0 || pipe2(p, O_CLOEXEC) != 0) {
		close(lock);
		return;
	}
	if ((pid = fork()) == 0) {
		close(p[1]);
		helper(c, p[0], cleanup, notify);
	}
	/* The write end stays open until this process exits: the helper's signal. */
	close(p[0]);
	close(lock);
	if (pid < 0)
		close(p[1]);
}
