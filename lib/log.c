/* log.c (layer: base): the log line, and the hint a request's error answer will carry. */
#include <stdarg.h>
#include <stdio.h>

#include "internal.h"

/* Writes one line to stderr: the id ("-" for none), then msg with control characters escaped. */
static void
vlog(const char *id, const char *fmt, va_list ap)
{
	char	 msg[512], out[1100];
	size_t	 i, j = 0;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	for (i = 0; msg[i] != '\0' && j + 5 < sizeof(out); i++) {
		unsigned char c = (unsigned char)msg[i];
		if (c < 0x20 || c == 0x7f)
			j += (size_t)snprintf(out + j, sizeof(out) - j, "\\x%02x", c);
		else
			out[j++] = (char)c;
	}
	out[j] = '\0';
	fprintf(stderr, "burnlink: %s: %s\n", id != NULL && *id != '\0' ? id : "-", out);
}

/* Logs one line with a request id, or "-" for a program that serves none. */
void
bl_log_id(const char *id, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vlog(id, fmt, ap);
	va_end(ap);
}

/* Logs one line with the request's id (r may be NULL). */
void
bl_log(const struct bl_req *r, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vlog(r != NULL ? r->id : NULL, fmt, ap);
	va_end(ap);
}

/* Records a hint for the error about to be returned; returns e. */
enum bl_err
bl_req_fail(struct bl_req *r, enum bl_err e, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(r->hint, sizeof(r->hint), fmt, ap);
	va_end(ap);
	return e;
}
