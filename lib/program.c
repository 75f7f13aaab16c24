/* program.c (layer: serve): the entry of every program: a FastCGI responder (fcgi.c) or one CGI request (serve.c). */
#include <malloc.h>
#include <stdio.h>
#include <unistd.h>

#include "internal.h"

/*
 * The confinement of a CGI request, once its context is set up and before
 * its request is read: the helper that does the cron jobs' due work after
 * the answer (lib/work.c) is forked first, then the sandbox is installed.
 * 0, or -1 when the sandbox could not be.
 */
static int
cgi_confine(struct bl_ctx *c)
{
	bl_work_start(c);
	bl_audit_syslog_open(c);
	return bl_sandbox();
}

/*
 * The main loop of every program: FastCGI when the web server started it as a
 * FastCGI responder (bl_fcgi_serve()), else one CGI request. A CGI process
 * ends with _exit() once the response is written and everything is wiped
 * (its stores left open to the exit, bl_ctx_exit()): the exit handlers would
 * only run OpenSSL's cleanup (about 0.5 M instructions after a cipher was
 * used). Sanitizer builds return instead, so
 * LeakSanitizer's exit-time check runs.
 */
int
bl_serve(const struct bl_route *rt)
{
	/*
	 * Buffers of 128 KiB and more get their own mappings, returned when
	 * freed and grown with mremap. glibc's default raises that threshold
	 * after the first such buffer is freed, so a 2 MiB secret's later
	 * copies came from the heap, where freed memory stays resident and a
	 * growing buffer is copied: a 2 MiB retrieve peaked at 11.6 MiB, now
	 * 9.7 MiB (and 61 -> 49 ms).
	 */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	if (bl_fcgi_listening())
		return bl_fcgi_serve(rt);
	bl_prefault();
	bl_serve_one(rt, &bl_cgi_io, NULL, cgi_confine);
#ifdef BL_SANITIZED
	return 0;
#else
	fflush(stderr);
	_exit(0);
#endif
}
