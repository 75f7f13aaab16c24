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
#include <time.h>
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

/*
 * What a FastCGI responder tells its worker after answering (lib/fcgi.c):
 * the request's BURNLINK_* parameters, HTTP_HOST and HTTPS, as "NAME=value"
 * strings, NUL-separated, at most MSG_MAX bytes (one atomic pipe write).
 * Under CGI there is none (NULL): the variables are the process's own.
 */
#define MSG_MAX		PIPE_BUF
#define MSG_VARS	(ENV_MAX - 8)

struct msg {
	char		 buf[MSG_MAX];
	size_t		 len;
	char		*v[MSG_VARS];
	size_t		 n;
};

/* The value of name in msg (or, without msg, of the process), or NULL. */
static const char *
msg_get(const struct msg *msg, const char *name)
{
	size_t	 i, len = strlen(name);

	if (msg == NULL)
		return getenv(name);
	for (i = 0; i < msg->n; i++)
		if (strncmp(msg->v[i], name, len) == 0 && msg->v[i][len] == '=')
			return msg->v[i] + len + 1;
	return NULL;
}

/* 1 if msg sets the variable of the "NAME=value" string var. */
static int
msg_has(const struct msg *msg, const char *var)
{
	size_t	 i, len = strcspn(var, "=");

	for (i = 0; msg != NULL && i < msg->n; i++)
		if (strncmp(msg->v[i], var, len) == 0 && msg->v[i][len] == '=')
			return 1;
	return 0;
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
 * gave the programs (the process's own, then those of msg, a FastCGI
 * request's parameters, which override them), nothing of the request (no
 * cookie, no Authorization); BURNLINK_SITE_URL, when neither the server nor
 * the settings file (site_url) sets one, from the request's scheme and host
 * (the mails' links; INSTALL says to set it when the site lives under a
 * sub-path). 0, or -1 when it does not fit.
 */
static int
run_env(const struct bl_ctx *c, const struct msg *msg, char *env[ENV_MAX], char *site,
    size_t sitelen)
{
	const char	*host = msg_get(msg, "HTTP_HOST"), *https = msg_get(msg, "HTTPS");
	size_t		 n = 0, i;
	char		**e;

	env[n++] = (char *)"PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";
	for (e = environ; *e != NULL; e++)
		if (strncmp(*e, "BURNLINK_", 9) == 0 && !msg_has(msg, *e)) {
			if (n >= ENV_MAX - 2)
				return -1;
			env[n++] = *e;
		}
	for (i = 0; msg != NULL && i < msg->n; i++)
		if (strncmp(msg->v[i], "BURNLINK_", 9) == 0) {
			if (n >= ENV_MAX - 2)
				return -1;
			env[n++] = msg->v[i];
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
	if (run_env(c, NULL, env, site, sizeof(site)) != 0)
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
 * The work lock, taken: one process at a time does the work (a CGI
 * request's helper, a FastCGI responder's worker), and one attempt per
 * NOTIFY_DUE_S at most (the lock file's time): a run that keeps failing (a
 * file it cannot open) records nothing, and must not cost every request a
 * fork. The descriptor (closing it releases the lock), or -1.
 */
static int
take_lock(const struct bl_ctx *c)
{
	struct stat	 st;
	int		 lock;

	if ((lock = open(c->cfg.work_lock, O_RDWR | O_NOFOLLOW | O_CLOEXEC)) < 0 &&
	    (errno != ENOENT || (lock = new_lock(c->cfg.work_lock)) < 0))
		return -1;
	if (flock(lock, LOCK_EX | LOCK_NB) != 0 || fstat(lock, &st) != 0 ||
	    c->now_ms - (int64_t)st.st_mtime * 1000 < (int64_t)NOTIFY_DUE_S * 1000 ||
	    futimens(lock, NULL) != 0) {
		close(lock);
		return -1;
	}
	return lock;
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
	int		 cleanup, notify, lock, p[2];
	pid_t		 pid;

	if (!c->cfg.self_work)
		return;
	cleanup = due(c, c->cfg.cleanup_stamp, CLEANUP_DUE_S);
	notify = due(c, c->cfg.notify_stamp, NOTIFY_DUE_S);
	if (!cleanup && !notify)
		return;
	if ((lock = take_lock(c)) < 0)
		return;
	if (pipe2(p, O_CLOEXEC) != 0) {
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

/*
 * FastCGI. A responder lives on and its seccomp filter forbids fork and
 * exec, so before the filter is installed it forks one worker, which holds
 * nothing but its end of a pipe (no listening socket, no request: forked
 * before the first is accepted). The worker learns its settings once: the
 * first request's BURNLINK_* parameters, HTTP_HOST and HTTPS (struct msg),
 * which the responder writes as soon as that request is accepted, before
 * any of it is served (so before anything a client sent was parsed by the
 * programs). Later the responder only pokes: after a batch of requests has
 * been answered, at most once per POKE_EVERY_MS, an empty message, written
 * without waiting (a full pipe drops it: the worker is busy). The worker then
 * does what is due with the settings it learnt, exactly as a CGI request's
 * helper does, under the same work lock, one run after the other, and
 * ignores any other settings (a responder taken over by a request must not
 * choose the command the notifier runs as its mailer, BURNLINK_SENDMAIL:
 * that would be the exec its sandbox forbids). It exits when the responder
 * does (the end of the pipe). A responder that serves several databases
 * does the work of the first one only.
 */
#define POKE_EVERY_MS	10000

static int		 worker_fd = -1;	/* the responder's end of the pipe */
static struct msg	 pending;		/* the settings (the worker's: learnt) */
static int		 noted;			/* the settings were sent */
static int64_t		 poked_ms;
static int		 poked;

/* Writes one message to the worker without waiting; a gone worker is forgotten. */
static void
send_msg(const void *buf, size_t len)
{
	if (write(worker_fd, buf, len) < 0 && errno == EPIPE) {
		close(worker_fd);
		worker_fd = -1;
	}
}

/* The getenv of a worker's context: msg's variables, then its own BURNLINK_* ones. */
static const char *
msg_getenv(void *arg, const char *name)
{
	const char	*v = msg_get(arg, name);

	if (v == NULL && strncmp(name, "BURNLINK_", 9) == 0)
		v = getenv(name);
	return v;
}

/* Reads len bytes; 0, or -1 at the end of the pipe. */
static int
read_full(int fd, void *buf, size_t len)
{
	size_t	 got = 0;
	ssize_t	 n;

	while (got < len) {
		if ((n = read(fd, (char *)buf + got, len - got)) < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

/* Splits msg's buffer into its variables. */
static void
msg_parse(struct msg *m)
{
	size_t	 i;

	m->n = 0;
	for (i = 0; i < m->len && m->n < MSG_VARS; i += strlen(m->buf + i) + 1)
		m->v[m->n++] = m->buf + i;
}

/* The worker's part for one message: the due runs, under the work lock. */
static void
work_once(struct msg *m, const char *exe)
{
	struct bl_ctx	 c;
	char		 site[320], logpath[PATH_MAX];
	char		*env[ENV_MAX];
	int		 cleanup, notify, lock, log;

	if (bl_ctx_init(&c, msg_getenv, m) != 0 || !c.cfg.self_work)
		goto out;
	cleanup = due(&c, c.cfg.cleanup_stamp, CLEANUP_DUE_S);
	notify = due(&c, c.cfg.notify_stamp, NOTIFY_DUE_S);
	if ((!cleanup && !notify) || run_env(&c, m, env, site, sizeof(site)) != 0 ||
	    (lock = take_lock(&c)) < 0)
		goto out;
	snprintf(logpath, sizeof(logpath), "%s.log", c.cfg.work_lock);
	log = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (cleanup)
		run(exe, "cleanup", env, log);
	if (notify)
		run(exe, "notify", env, log);
	if (log >= 0)
		close(log);
	close(lock);
out:
	bl_ctx_free(&c);
}

/* The worker: waits for messages until the responder's end closes. */
static void
worker(int fd)
{
	char		 exe[PATH_MAX], *slash;
	static char	 scratch[MSG_MAX];
	unsigned char	 hdr[2];
	sigset_t	 none;
	ssize_t		 n;
	size_t		 len;
	int		 nul, pinned = 0;

	if ((nul = open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0) {
		dup2(nul, STDIN_FILENO);	/* the listening socket's place */
		dup2(nul, STDOUT_FILENO);
		dup2(nul, STDERR_FILENO);
	}
	/*
	 * The responder's signal state is not the cron programs': its stop
	 * signals are caught and blocked (lib/fcgi.c) and libfcgi ignores
	 * SIGPIPE; a blocked or ignored signal would stay so across exec.
	 */
	signal(SIGTERM, SIG_DFL);
	signal(SIGUSR1, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if ((n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) <= 0)
		_exit(1);
	exe[n] = '\0';
	if ((slash = strrchr(exe, '/')) != NULL)
		*slash = '\0';
	for (;;) {
		if (read_full(fd, hdr, 2) != 0)
			_exit(0);
		len = (size_t)hdr[0] << 8 | hdr[1];
		if (len > sizeof(pending.buf) - 2)
			_exit(0);
		if (len > 0) {
			/* The settings: kept the first time, read past later. */
			if (read_full(fd, pinned ? scratch : pending.buf, len) != 0)
				_exit(0);
			if (!pinned) {
				pending.len = len;
				pending.buf[len] = '\0';
				msg_parse(&pending);
				pinned = 1;
			}
			bl_wipe(scratch, sizeof(scratch));
		} else if (pinned)
			work_once(&pending, exe);
	}
}

/*
 * Before a FastCGI responder's sandbox (lib/fcgi.c): forks its worker,
 * unless the responder's own environment says BURNLINK_SELF_WORK=off (a
 * request parameter saying so is obeyed by the worker: it then does nothing).
 */
void
bl_work_fcgi_start(void)
{
	const char	*v = getenv("BURNLINK_SELF_WORK");
	int		 p[2];
	pid_t		 pid;

	if ((v != NULL && strcmp(v, "off") == 0) || pipe2(p, O_CLOEXEC) != 0)
		return;
	if ((pid = fork()) == 0) {
		close(p[1]);
		worker(p[0]);
	}
	close(p[0]);
	if (pid < 0 || fcntl(p[1], F_SETFL, O_NONBLOCK) != 0) {
		close(p[1]);
		return;
	}
	/* A worker that ends first is reaped by the kernel (the responder never waits). */
	signal(SIGCHLD, SIG_IGN);
	worker_fd = p[1];
}

/*
 * As the first request is accepted, before it is served (lib/fcgi.c): tells
 * the worker the settings of that request, whose parameters are envp; later
 * calls do nothing. Settings that do not fit MSG_MAX are not sent: the
 * worker then never works.
 */
void
bl_work_fcgi_note(char **envp)
{
	size_t	 len;

	if (worker_fd < 0 || noted || envp == NULL)
		return;
	noted = 1;
	pending.len = 2;
	for (; *envp != NULL; envp++) {
		if (strncmp(*envp, "BURNLINK_", 9) != 0 && strncmp(*envp, "HTTP_HOST=", 10) != 0 &&
		    strncmp(*envp, "HTTPS=", 6) != 0)
			continue;
		if ((len = strlen(*envp) + 1) > sizeof(pending.buf) - 1 - pending.len) {
			bl_wipe(pending.buf, sizeof(pending.buf));
			return;
		}
		memcpy(pending.buf + pending.len, *envp, len);
		pending.len += len;
	}
	pending.buf[0] = (unsigned char)((pending.len - 2) >> 8);
	pending.buf[1] = (unsigned char)((pending.len - 2) & 0xff);
	send_msg(pending.buf, pending.len);
	bl_wipe(pending.buf, sizeof(pending.buf));
}

/*
 * After a batch's answers are sent: pokes the worker (an empty message),
 * at most once per POKE_EVERY_MS (a clock read otherwise).
 */
void
bl_work_fcgi_poke(void)
{
	static const unsigned char	 empty[2];
	struct timespec			 ts;
	int64_t				 now;

	if (worker_fd < 0 || !noted || clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		return;
	now = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	if (poked && now - poked_ms < POKE_EVERY_MS)
		return;
	poked = 1;
	poked_ms = now;
	send_msg(empty, sizeof(empty));
}
