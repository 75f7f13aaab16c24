/* fcgi.c (layer: serve): FastCGI mode: the same programs as FastCGI responders, over libfcgi. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fcgiapp.h>

#include "internal.h"

/*
 * 1 if the web server started this process as a FastCGI responder: standard
 * input is then a listening socket (lighttpd mod_fastcgi, Apache mod_fcgid,
 * spawn-fcgi), which getpeername() reports as not connected. Under CGI it is a
 * pipe, a file or a connected socket (mod_cgid).
 */
int
bl_fcgi_listening(void)
{
	struct sockaddr_storage	 sa;
	socklen_t		 len = sizeof(sa);

	return getpeername(STDIN_FILENO, (struct sockaddr *)&sa, &len) != 0 &&
	    errno == ENOTCONN;
}

/*
 * A request parameter; the configuration (BURNLINK_*) may also come from the
 * responder's own environment (spawn-fcgi, mod_fcgid's FcgidInitialEnv), which
 * a parameter of the same name overrides. Request variables never do.
 */
/*
 * One request of a batch: libfcgi's request, and the answer held until the
 * batch's commit (bl_fcgi_serve()).
 */
struct slot {
	FCGX_Request	 q;
	char		*out;
	size_t		 len;
	size_t		 cap;
	int		 overflow;	/* the answer could not be held */
	int		 lost;		/* the early commit for it failed */
	int		 streaming;	/* the batch was committed: sent as written */
	struct bl_keep	*keep;		/* the batch's store */
};

/*
 * An answer larger than this (a large secret) commits the batch so far and
 * is sent as it is written, rather than held whole beside its serialisation.
 */
#define STREAM_AT	(1024 * 1024)

/* The last request of the current batch whose writes were committed early. */
static struct slot	*committed_upto;

/* Commits the batch so far; -1 (logged, the batch marked failed) if it is lost. */
static int
commit_batch(struct bl_keep *keep)
{
	struct bl_store	*s = keep->store;

	/* While a request runs, the batch's store is lent to its context (serve.c). */
	if (s == NULL && keep->lent != NULL)
		s = keep->lent->store;
	if (s != NULL && bl_store_batch_commit(s) != BL_OK) {
		bl_log(NULL, "database: %s", bl_store_error(s));
		keep->batch_failed = 1;
	}
	return keep->batch_failed ? -1 : 0;
}

static const char *
fcgi_getenv(void *ctx, const char *name)
{
	FCGX_Request	*q = &((struct slot *)ctx)->q;
	const char	*v = FCGX_GetParam(name, q->envp);

	if (v == NULL && strncmp(name, "BURNLINK_", 9) == 0)
		v = getenv(name);
	return v;
}

static size_t
fcgi_read(void *ctx, void *buf, size_t len)
{
	FCGX_Request	*q = &((struct slot *)ctx)->q;
	int		 n;

	n = FCGX_GetStr(buf, len > INT_MAX ? INT_MAX : (int)len, q->in);
	return n > 0 ? (size_t)n : 0;
}

/* Sends len bytes to the web server. */
static int
fcgi_send(FCGX_Request *q, const char *p, size_t len)
{
	int	 n;

	while (len > 0) {
		n = len > INT_MAX ? INT_MAX : (int)len;
		if (FCGX_PutStr(p, n, q->out) != n)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Holds the answer until the batch commits. The buffer grows by copying, the
 * old copy wiped first: an answer may hold a secret or a decryption key.
 */
static int
fcgi_write(void *ctx, const void *buf, size_t len)
{
	struct slot	*sl = ctx;
	size_t		 cap;
	char		*n;

	if (sl->streaming)
		return fcgi_send(&sl->q, buf, len);
	if (sl->len + len > STREAM_AT && sl->keep != NULL && !sl->overflow) {
		/* What this request and the ones before it wrote is made durable now. */
		if (commit_batch(sl->keep) != 0) {
			sl->lost = 1;		/* finish() answers 503 */
			return -1;
		}
		sl->streaming = 1;
		committed_upto = sl;
		if (sl->len > 0 && fcgi_send(&sl->q, sl->out, sl->len) != 0)
			return -1;
		return fcgi_send(&sl->q, buf, len);
	}
	if (len > SIZE_MAX / 2 - sl->len) {
		sl->overflow = 1;
		return -1;
	}
	if (sl->len + len > sl->cap) {
		cap = sl->cap ? sl->cap : 4096;
		while (cap < sl->len + len)
			cap *= 2;
		if ((n = malloc(cap)) == NULL) {
			sl->overflow = 1;
			return -1;
		}
		if (sl->len > 0)
			memcpy(n, sl->out, sl->len);
		if (sl->out != NULL) {
			bl_wipe(sl->out, sl->cap);
			free(sl->out);
		}
		sl->out = n;
		sl->cap = cap;
	}
	memcpy(sl->out + sl->len, buf, len);
	sl->len += len;
	return 0;
}

/*
 * The head of libfcgi's private per-stream data (FCGX_Stream_Data in
 * fcgiapp.c, the same since 2.4.0): where the stream's buffer is.
 */
struct fcgi_stream_data {
	unsigned char	*buff;
	int		 bufflen;
	unsigned char	*mBuff;
};

/* 1 if d looks like the stream data of a stream s of libfcgi's (see above). */
static int
stream_data_ok(const FCGX_Stream *s, const struct fcgi_stream_data *d)
{
	return d != NULL && d->buff != NULL && d->bufflen > 0 && d->bufflen <= 65536 + 8 &&
	    d->buff >= d->mBuff && d->buff < d->mBuff + 8 &&
	    s->stop >= d->buff && s->stop <= d->buff + d->bufflen;
}

/*
 * Ends the request's output and wipes the buffers libfcgi kept of it before
 * it frees them: the input buffer (the last part of the body, which in
 * server-side mode is plaintext, and the parameters), the output buffer
 * (create's answer holds the decryption key) and the parameters
 * (Authorization, cookies).
 *
 * The output streams are closed here, standard error first as
 * FCGX_Finish_r() does, so that the last of the answer, its end-of-stream
 * record and FCGI_END_REQUEST leave in one write(): flushed first, the end
 * went in a write of its own, which often met a web server that had the
 * whole answer and had closed the connection (EPIPE). What is wiped was sent.
 */
static void
fcgi_wipe(FCGX_Request *q)
{
	struct fcgi_stream_data	*d;
	char			**p;

	if (q->err != NULL)
		FCGX_FClose(q->err);
	if (q->out != NULL) {
		FCGX_FClose(q->out);
		if (stream_data_ok(q->out, d = q->out->data))
			bl_wipe(d->buff, (size_t)d->bufflen);
	}
	if (q->in != NULL && stream_data_ok(q->in, d = q->in->data))
		bl_wipe(d->buff, (size_t)d->bufflen);
	for (p = q->envp; p != NULL && *p != NULL; p++)
		bl_wipe(*p, strlen(*p));
}

/* Writes straight to the web server (an answer that is not held). */
static int
fcgi_write_now(void *ctx, const void *buf, size_t len)
{
	return fcgi_send(&((struct slot *)ctx)->q, buf, len);
}

/*
 * The answer sent instead of a held one: 503 when the batch's commit failed
 * (what the request wrote is gone, so its success must not be reported), or
 * when it committed but the WAL's sync after it failed (unsure: what it wrote
 * is visible and may not be durable, lib/store_sqlite.c, wal_sync()), 500
 * when the answer could not be held (memory). It goes out through the one
 * output path (bl_respond_detached()), with the request id of what was held.
 */
static void
send_error(struct slot *sl, int commit_failed, int unsure)
{
	const struct bl_io	 io = { fcgi_getenv, fcgi_read, fcgi_write_now, sl };
	const char		*id = NULL, *end;
	char			 rid[32] = "-";

	if (sl->out != NULL && sl->len > 0 &&
	    (id = memmem(sl->out, sl->len, "\r\nX-Request-Id: ", 16)) != NULL) {
		id += 16;
		if ((end = memchr(id, '\r', sl->len - (size_t)(id - sl->out))) != NULL &&
		    end - id < (long)sizeof(rid))
			snprintf(rid, sizeof(rid), "%.*s", (int)(end - id), id);
	}
	if (commit_failed && unsure)
		bl_respond_detached(&io, rid, BL_ERR_STORE_UNAVAILABLE, BL_HINT_UNSURE);
	else if (commit_failed)
		bl_respond_detached(&io, rid, BL_ERR_STORE_UNAVAILABLE, "The database could "
		    "not commit this request; nothing was stored or used. Try again.");
	else
		bl_respond_detached(&io, rid, BL_ERR_INTERNAL, "The server ran out of "
		    "memory while answering; try again later.");
}

/* 1 if the status line of a held answer is 2xx. */
static int
held_ok(const struct slot *sl)
{
	return sl->len >= 9 && memcmp(sl->out, "Status: 2", 9) == 0;
}

/*
 * 1 if the listening socket is a unix-domain one (lighttpd's mod_fastcgi,
 * Apache's mod_fcgid): a connection's end is then a plain close().
 * libfcgi otherwise closes each connection by shutting down its sending
 * side and reading until the web server closes its end (shutdown(), poll()
 * up to 2 s, read(), close()), which keeps a TCP connection from answering
 * unread input with a reset that could discard the answer's last bytes in
 * the web server's socket. A unix-domain socket delivers what was written
 * into the peer's queue at the write, and a close() loses none of it, so the
 * responder detaches the request (FCGX_Detach(): libfcgi then only closes)
 * and no longer waits for the web server to act before its next answer.
 */
static int	 unix_listener;

/*
 * Sends a held answer (or the lost-commit one: unsure if a WAL sync of the
 * batch failed), wipes and frees it, ends the request.
 */
static void
finish(struct slot *sl, int lost, int unsure)
{
	if (sl->streaming)
		;			/* sent as it was written */
	else if (sl->lost || (lost && (sl->overflow || held_ok(sl)))) {
		bl_log(NULL, "the batch's commit failed: answering 503");
		send_error(sl, 1, unsure);
	} else if (sl->overflow || sl->out == NULL)
		send_error(sl, 0, 0);	/* nothing whole was held */
	else
		fcgi_send(&sl->q, sl->out, sl->len);
	if (sl->out != NULL) {
		bl_wipe(sl->out, sl->cap);
		free(sl->out);
	}
	sl->out = NULL;
	sl->len = sl->cap = 0;
	sl->overflow = sl->lost = sl->streaming = 0;
	fcgi_wipe(&sl->q);
	if (unix_listener)
		FCGX_Detach(&sl->q);
	FCGX_Finish_r(&sl->q);
}

/*
 * The listening socket is non-blocking (bl_fcgi_serve()): an accept never
 * waits, so no timer has to interrupt one. (A timer's signal can land after
 * the accept, while libfcgi waits for the new connection's first record;
 * libfcgi then closes that connection unanswered: docs/PERFORMANCE.md,
 * "Group commit".)
 *
 * The web server ends a responder with SIGTERM (mod_fcgid, spawn-fcgi: or
 * SIGUSR1): it finishes the batch in hand and exits. The signals are blocked
 * but while it waits for a connection (listener_ready()), so that none is
 * lost between the check and the wait.
 */
static volatile sig_atomic_t	 stopping;
static sigset_t			 waiting_mask;	/* the mask while waiting */

static void
on_stop(int sig)
{
	(void)sig;
	stopping = 1;
}

/* Catches SIGTERM and SIGUSR1 (libfcgi's own handlers only set a flag of its own). */
static int
stop_signals(void)
{
	struct sigaction	 sa;
	sigset_t		 stop;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGUSR1);
	return sigaction(SIGTERM, &sa, NULL) != 0 || sigaction(SIGUSR1, &sa, NULL) != 0 ||
	    sigprocmask(SIG_BLOCK, &stop, &waiting_mask) != 0 ? -1 : 0;
}

/*
 * Waits until a connection is on the listening socket (wait: else only
 * looks) or a stop signal came; 1 if a connection waits.
 */
static int
listener_ready(int wait)
{
	struct pollfd		 p = { STDIN_FILENO, POLLIN, 0 };
	const struct timespec	 now = { 0, 0 };

	return ppoll(&p, 1, wait ? NULL : &now, &waiting_mask) == 1 && (p.revents & POLLIN);
}

/*
 * Takes the next connection into sl: 0 if one was taken, 1 if none was
 * waiting (another responder on the same socket, with spawn-fcgi -F, may take
 * it first), -1 if the socket failed (the web server closed it).
 */
static int
accept_one(struct slot *sl)
{
	int	 rc = FCGX_Accept_r(&sl->q);

	if (rc >= 0)
		return 0;
	return rc == -EAGAIN || rc == -EWOULDBLOCK || rc == -EINTR ? 1 : -1;
}

/* 1 if two requests name the same database (BURNLINK_DB, or both the default). */
static int
same_db(struct slot *a, struct slot *b)
{
	const char	*x = fcgi_getenv(a, "BURNLINK_DB"), *y = fcgi_getenv(b, "BURNLINK_DB");

	return (x == NULL && y == NULL) || (x != NULL && y != NULL && strcmp(x, y) == 0);
}

/*
 * Serves requests until the web server closes the socket: each request gets
 * its own context and struct bl_req (set up, answered, wiped and freed as
 * under CGI); OpenSSL and the database connections stay from one request to
 * the next (keep_lend(), keep_take() in serve.c).
 *
 * Group commit: the responder takes every request that is already waiting
 * (up to BATCH), answers them in turn with their write transactions joined
 * into one (bl_store_batch()), commits that once, and only then sends the
 * answers. A durable commit costs an fdatasync with SQLite's write lock held,
 * so one commit per request caps writes at one per fdatasync whatever the
 * number of processes; a batch pays one for all its requests. No answer goes
 * out before what its request wrote is durable; if the commit fails, each
 * request that had succeeded gets 503 STORE_UNAVAILABLE instead. A request
 * for another database than the batch's starts the next batch. Returns 0, or
 * 1 if FastCGI could not start.
 */
#define BATCH	16

/*
 * Answers sl[0..n-1], all for one database, with one commit (see above); a
 * batch whose held answers pass HELD_MAX bytes (large secrets) commits and
 * answers at that point, and the rest form the next. A batch that waited
 * for the write lock (the other responder's commit: lib/store_sqlite.c,
 * wlock_take()) takes in, before it commits, the requests that came
 * meanwhile, up to room slots: one commit then answers them too, rather
 * than a commit of their own after this one. That accept reads the new
 * request's FastCGI records with the write lock held: the web server wrote
 * them with its connect, which the listening socket showed (libfcgi waits
 * up to 2 s for them otherwise). Returns the number of slots used (n, or
 * more).
 */
#define HELD_MAX	(8 * 1024 * 1024)

static int
serve_batch(const struct bl_route *rt, struct bl_keep *keep,
    struct slot *sl, int n, int room)
{
	struct bl_io	 io = { fcgi_getenv, fcgi_read, fcgi_write, NULL };
	unsigned long	 flushes, waits, syncfails;
	size_t		 held;
	int		 i, j, lost, durable, solo;

	for (i = 0; i < n; i = j) {
		bl_config_batch();	/* the settings file and install secret looked at again */
		keep->batch = 1;
		keep->batch_failed = 0;
		committed_upto = NULL;
		durable = i;
		waits = bl_store_lock_waits();
		syncfails = bl_store_sync_failures();
		for (j = i, held = 0; held <= HELD_MAX; j++) {
			if (j == n) {
				if (bl_store_lock_waits() == waits || n == room ||
				    !listener_ready(0) || accept_one(&sl[n]) != 0)
					break;
				/* Another database's request: the next batch. */
				if (!same_db(&sl[i], &sl[n++]))
					break;
			}
			sl[j].keep = keep;
			io.ctx = &sl[j];
			/*
			 * No store kept (a responder's first request): the request
			 * opens its own, not batched (serve.c, keep_lend()), so its
			 * commits were durable before it ended.
			 */
			solo = j == i && keep->store == NULL;
			flushes = bl_store_batch_durable();
			bl_serve_one(rt, &io, keep, NULL);
			/*
			 * A flush during this request (a passphrase's scrypt)
			 * made the writes of the ones before it durable; its
			 * own answer rests on what it wrote after.
			 */
			if (bl_store_batch_durable() != flushes)
				durable = j;
			if (solo)
				durable = j + 1;
			held += sl[j].len;
		}
		lost = commit_batch(keep) != 0;
		keep->batch = 0;
		/* what the answers counted, in one lock of the counters (lib/metrics.c) */
		bl_metrics_flush(keep->counters);
		/* Requests whose writes an early commit made durable are not lost. */
		for (; i < j; i++)
			finish(&sl[i], lost && i >= durable &&
			    (committed_upto == NULL || &sl[i] > committed_upto),
			    bl_store_sync_failures() != syncfails);
		/* The answers are out: the WAL's checkpoint the commit found due. */
		if (keep->store != NULL && bl_store_idle(keep->store) != 0) {
			bl_store_close(keep->store);
			keep->store = NULL;
			free(keep->db_path);
			keep->db_path = NULL;
		}
	}
	return n;
}

int
bl_fcgi_serve(const struct bl_route *rt)
{
	static struct slot	 slots[BATCH];
	struct bl_keep		 keep;
	int			 i, j, n, fl, rc;

	memset(&keep, 0, sizeof(keep));
	{
		struct sockaddr_storage	 sa;
		socklen_t		 len = sizeof(sa);

		unix_listener = getsockname(STDIN_FILENO, (struct sockaddr *)&sa, &len) == 0 &&
		    sa.ss_family == AF_UNIX;
	}
	if (FCGX_Init() != 0 || stop_signals() != 0 ||
	    (fl = fcntl(STDIN_FILENO, F_GETFL)) < 0 ||
	    fcntl(STDIN_FILENO, F_SETFL, fl | O_NONBLOCK) != 0)
		return 1;
	for (i = 0; i < BATCH; i++)
		if (FCGX_InitRequest(&slots[i].q, 0, FCGI_FAIL_ACCEPT_ON_INTR) != 0)
			return 1;
	/* The worker that does the cron jobs' due work (lib/work.c), then the sandbox. */
	bl_work_fcgi_start();
	/*
	 * A web server that closed a connection first: write() says EPIPE, with
	 * no signal (libfcgi's FCGX_Init() caught SIGPIPE with a handler that
	 * does nothing, a delivery and an rt_sigreturn each time). After the
	 * worker's fork: what it runs gets SIGPIPE's default, as before.
	 */
	signal(SIGPIPE, SIG_IGN);
	/*
	 * audit_syslog's socket, before the sandbox forbids it: from the
	 * settings the process's own environment names (docs/ADMIN.md).
	 */
	{
		struct bl_ctx	 c;

		if (bl_ctx_init(&c, NULL, NULL) == 0)
			bl_audit_syslog_open(&c);
		bl_ctx_free(&c);
	}
	/*
	 * The settings and the install secret, read once while unchanged
	 * (lib/config.c); the metrics' totals added once per batch.
	 */
	bl_config_keep(1);
	bl_metrics_defer(1);
	/* No core dumps, and the seccomp filter with accept on the listening socket. */
	if (bl_sandbox_fcgi() != 0) {
		fprintf(stderr, "burnlink: cannot install the seccomp sandbox "
		    "(build with make SECCOMP=0 where seccomp is unavailable)\n");
		return 1;
	}
	bl_store_persistent(1);
	while (!stopping) {
		if ((rc = accept_one(&slots[0])) == 1) {
			/* Nothing waits: the wiped keys' sync (lib/store_sqlite.c, commit()). */
			bl_store_settle(keep.store);
			listener_ready(1);
			continue;
		}
		if (rc < 0)
			break;
		/* The worker's settings: the first request's, before it is served (lib/work.c). */
		bl_work_fcgi_note(slots[0].q.envp);
		for (n = 1; n < BATCH && listener_ready(0) && accept_one(&slots[n]) == 0; n++)
			;
		/*
		 * Each run of requests for one database is a batch; the last one
		 * may take in more (serve_batch()).
		 */
		for (i = 0; i < n; i = j) {
			for (j = i + 1; j < n && same_db(&slots[i], &slots[j]); j++)
				;
			if (j == n)
				j = n = i + serve_batch(rt, &keep, slots + i, j - i, BATCH - i);
			else
				serve_batch(rt, &keep, slots + i, j - i, j - i);
		}
		bl_work_fcgi_poke();	/* once every answer is sent */
	}
	bl_metrics_flush(keep.counters);
	bl_keep_free(&keep);
	bl_config_keep(0);
	return 0;
}
