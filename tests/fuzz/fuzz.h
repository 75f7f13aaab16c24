/* fuzz.h: a struct bl_io over a table of CGI variables, a byte buffer as stdin and a sink as stdout. */
#ifndef BL_FUZZ_H
#define BL_FUZZ_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define FZ_MAXVARS	24

struct fz_io {
	const char	*names[FZ_MAXVARS];
	const char	*values[FZ_MAXVARS];
	int		 n;
	const unsigned char *in;	/* what the program reads as its body */
	size_t		 inlen, inoff;
	char		*out;		/* everything it writes, NUL-terminated */
	size_t		 outlen, outcap;
};

static const char *
fz_getenv(void *ctx, const char *name)
{
	struct fz_io	*f = ctx;
	int		 i;

	for (i = 0; i < f->n; i++)
		if (strcmp(f->names[i], name) == 0)
			return f->values[i];
	return NULL;
}

static size_t
fz_read(void *ctx, void *buf, size_t len)
{
	struct fz_io	*f = ctx;
	size_t		 n = f->inlen - f->inoff;

	if (n > len)
		n = len;
	/* Short reads, as a pipe gives them: at most 4096 bytes a call. */
	if (n > 4096)
		n = 4096;
	memcpy(buf, f->in + f->inoff, n);
	f->inoff += n;
	return n;
}

static int
fz_write(void *ctx, const void *buf, size_t len)
{
	struct fz_io	*f = ctx;

	if (f->outlen + len + 1 > f->outcap) {
		size_t	 cap = (f->outlen + len + 1) * 2;
		char	*nb = realloc(f->out, cap);
		if (nb == NULL)
			abort();
		f->out = nb;
		f->outcap = cap;
	}
	memcpy(f->out + f->outlen, buf, len);
	f->outlen += len;
	f->out[f->outlen] = '\0';
	return 0;
}

/* Sets (or adds) one variable; value must outlive the request. */
static void
fz_set(struct fz_io *f, const char *name, const char *value)
{
	int	 i;

	for (i = 0; i < f->n; i++)
		if (strcmp(f->names[i], name) == 0) {
			f->values[i] = value;
			return;
		}
	if (f->n < FZ_MAXVARS) {
		f->names[f->n] = name;
		f->values[f->n++] = value;
	}
}

static void
fz_free(struct fz_io *f)
{
	free(f->out);
	memset(f, 0, sizeof(*f));
}

/* A directory for the database of one fuzzing process, removed at exit. */
static char fz_dir[64];
static char fz_db[128];

static void
fz_rmdir(void)
{
	char	 p[192];
	const char *const names[] = {"fz.db", "fz.db-wal", "fz.db-shm", "fz.db-journal",
	    "fz-counters",
	    /* left by builds from before the counters file */
	    "fz-limits.db", "fz-limits.db-wal", "fz-limits.db-shm", "fz-limits.db-journal",
	    "secret.key"};
	size_t	 i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", fz_dir, names[i]);
		unlink(p);
	}
	rmdir(fz_dir);
}

static const char *
fz_tmpdb(void)
{
	if (fz_dir[0] == '\0') {
		snprintf(fz_dir, sizeof(fz_dir), "/tmp/burnlink-fuzz-XXXXXX");
		if (mkdtemp(fz_dir) == NULL)
			abort();
		snprintf(fz_db, sizeof(fz_db), "%s/fz.db", fz_dir);
		atexit(fz_rmdir);
	}
	return fz_db;
}

/*
 * Checks a CGI response head: it ends with an empty line, every line is
 * "Name: value" with a known name, and no request byte broke a line.
 */
static void
fz_check_head(const struct fz_io *f)
{
	static const char *const known[] = {"Status", "Content-Type", "Content-Length",
	    "Cache-Control", "X-Content-Type-Options", "Referrer-Policy",
	    "Content-Security-Policy", "X-Frame-Options", "X-Request-Id",
	    "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset",
	    "Retry-After", "Allow", "Strict-Transport-Security", "Permissions-Policy",
	    "Cross-Origin-Opener-Policy", "Cross-Origin-Resource-Policy", "Set-Cookie", NULL};
	const char	*p = f->out, *end, *colon;
	size_t		 i;

	if (p == NULL)
		abort();		/* no response at all */
	for (;;) {
		end = strstr(p, "\r\n");
		if (end == NULL)
			abort();	/* head not terminated */
		if (end == p)
			break;		/* the empty line */
		if ((colon = memchr(p, ':', (size_t)(end - p))) == NULL)
			abort();
		for (i = 0; known[i] != NULL; i++)
			if (strlen(known[i]) == (size_t)(colon - p) &&
			    strncmp(known[i], p, (size_t)(colon - p)) == 0)
				break;
		if (known[i] == NULL)
			abort();	/* an unknown or injected header */
		for (const char *q = p; q < end; q++)
			if ((unsigned char)*q < 0x20 || *q == 0x7f)
				abort();
		p = end + 2;
	}
}

/* A request over io with its own context, as lib/serve.c sets them up. */
static enum bl_err
fz_req_init(struct bl_req *r, struct bl_ctx *c, const struct bl_io *io)
{
	if (bl_ctx_init(c, io->getenv, io->ctx) != 0)
		abort();
	return bl_req_init(r, io, c);
}

static void
fz_req_free(struct bl_req *r, struct bl_ctx *c)
{
	bl_req_free(r);
	bl_ctx_free(c);
}

#endif /* BL_FUZZ_H */
