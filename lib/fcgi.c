/* fcgi.c: FastCGI mode: the same programs as FastCGI responders, over libfcgi. */
#include <errno.h>
#include <limits.h>
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
static const char *
fcgi_getenv(void *ctx, const char *name)
{
	FCGX_Request	*q = ctx;
	const char	*v = FCGX_GetParam(name, q->envp);

	if (v == NULL && strncmp(name, "BURNLINK_", 9) == 0)
		v = getenv(name);
	return v;
}

static size_t
fcgi_read(void *ctx, void *buf, size_t len)
{
	FCGX_Request	*q = ctx;
	int		 n;

	n = FCGX_GetStr(buf, len > INT_MAX ? INT_MAX : (int)len, q->in);
	return n > 0 ? (size_t)n : 0;
}

static int
fcgi_write(void *ctx, const void *buf, size_t len)
{
	FCGX_Request	*q = ctx;
	const char	*p = buf;
	int		 n;

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
 * The head of libfcgi's private per-stream data (FCGX_Stream_Data in
 * fcgiapp.c, the same since 2.4.0): where the stream's buffer is.
 */
struct fcgi_stream_data {
	unsigned char	*buff;
	int		 bufflen;
	unsigned char	*mBuff;
};

/*
 * Wipes the buffers libfcgi kept of this request before it frees them: the
 * input buffer (the last part of the body, which in server-side mode is
 * plaintext, and the parameters), the output buffer (create's answer holds
 * the decryption key) and the parameters (Authorization, cookies). The output
 * is flushed first, so only what was already sent is wiped.
 */
static void
fcgi_wipe(FCGX_Request *q)
{
	struct fcgi_stream_data	*d;
	char			**p;

	if (q->out != NULL) {
		FCGX_FFlush(q->out);
		if (q->out->stop > q->out->wrNext)
			bl_wipe(q->out->wrNext, (size_t)(q->out->stop - q->out->wrNext));
	}
	if (q->in != NULL && (d = q->in->data) != NULL && d->buff != NULL &&
	    d->bufflen > 0 && d->bufflen <= 65536 + 8 &&
	    d->buff >= d->mBuff && d->buff < d->mBuff + 8 &&
	    q->in->stop >= d->buff && q->in->stop <= d->buff + d->bufflen)
		bl_wipe(d->buff, (size_t)d->bufflen);
	for (p = q->envp; p != NULL && *p != NULL; p++)
		bl_wipe(*p, strlen(*p));
}

/*
 * Serves requests until the web server closes the socket: each request gets
 * its own struct bl_req (set up, answered, wiped and freed as under CGI);
 * OpenSSL and the database connections stay from one request to the next
 * (bl_keep_lend(), bl_keep_take()). Returns 0, or 1 if FastCGI could not start.
 */
int
bl_fcgi_serve(enum bl_err (*handler)(struct bl_req *))
{
	FCGX_Request	 q;
	struct bl_io	 io = { fcgi_getenv, fcgi_read, fcgi_write, NULL };
	struct bl_keep	 keep;

	memset(&keep, 0, sizeof(keep));
	if (FCGX_Init() != 0 || FCGX_InitRequest(&q, 0, 0) != 0)
		return 1;
	/* No core dumps, and the seccomp filter with accept on the listening socket. */
	if (bl_sandbox_fcgi() != 0) {
		fprintf(stderr, "burnlink: cannot install the seccomp sandbox "
		    "(build with make SECCOMP=0 where seccomp is unavailable)\n");
		return 1;
	}
	io.ctx = &q;
	bl_store_persistent(1);
	while (FCGX_Accept_r(&q) >= 0) {
		bl_serve_one(handler, &io, &keep, 1);
		fcgi_wipe(&q);
		FCGX_Finish_r(&q);
	}
	bl_keep_free(&keep);
	return 0;
}
