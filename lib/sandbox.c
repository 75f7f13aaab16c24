/* sandbox.c (layer: serve): process hygiene (no core dumps) and the seccomp filter of the CGI programs. */
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include "internal.h"

/*
 * The filter is built in unless the build says BL_NO_SECCOMP (make SECCOMP=0,
 * for platforms without seccomp). Sanitizer builds skip it: LeakSanitizer
 * stops the world with clone() and ptrace() at exit, which the filter forbids.
 */
#if !defined(BL_NO_SECCOMP) && !defined(BL_SANITIZED) && defined(__linux__)
#define BL_USE_SECCOMP 1
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <unistd.h>

/*
 * The filters are built at compile time by scripts/seccomp-gen.c (with
 * libseccomp, where the rule lists live) into $(BUILD)/seccomp_bpf.h:
 * installing a ready BPF program costs two system calls, where building it
 * with libseccomp cost 0.87 ms of CPU in every process. One program per
 * variant: CGI or FastCGI responder (accept on fd 0, poll, ...), each with or
 * without a PostgreSQL store's network calls (bl_store_needs_net()).
 */
#include "seccomp_bpf.h"

#define BPF_PROG(f)	{ sizeof(f) / sizeof(f[0]), (struct sock_filter *)(f) }

/*
 * tgkill() is allowed for the process's own id only (raise() and abort()
 * signal their own thread with it): the filter compares its first argument
 * with a placeholder, replaced here with getpid() in a copy of the filter.
 */
static int
install_filter(int fcgi, int db)
{
	struct sock_fprog	 progs[2][2] = {
		{ BPF_PROG(bl_bpf_cgi), BPF_PROG(bl_bpf_cgi_db) },
		{ BPF_PROG(bl_bpf_fcgi), BPF_PROG(bl_bpf_fcgi_db) },
	};
	struct sock_filter	 copy[BL_BPF_MAX_LEN];
	struct sock_fprog	 prog = progs[fcgi != 0][db != 0];
	size_t			 i, own = 0;

	if (prog.len > BL_BPF_MAX_LEN)
		return -1;
	memcpy(copy, prog.filter, prog.len * sizeof(copy[0]));
	for (i = 0; i < prog.len; i++)
		if (copy[i].code == (BPF_JMP | BPF_JEQ | BPF_K) &&
		    copy[i].k == BL_BPF_OWN_PID) {
			copy[i].k = (__u32)getpid();
			own++;
		}
	if (own != 1)
		return -1;
	prog.filter = copy;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0)
		return -1;
	return 0;
}
#endif

/* 1 when this build installs the seccomp filter. */
int
bl_sandbox_enabled(void)
{
#ifdef BL_USE_SECCOMP
	return 1;
#else
	return 0;
#endif
}

/*
 * Makes the process unable to leave keys or plaintext on disk through a core
 * dump (RLIMIT_CORE 0, not dumpable, which also bars ptrace by the same user),
 * then confines it to the system calls it uses (fcgi: and those of a FastCGI
 * responder). 0 on success, -1 if any step failed (the caller refuses to serve).
 */
static int
sandbox(int fcgi)
{
	struct rlimit	 rl = { 0, 0 };
	int		 rc = 0;

	if (setrlimit(RLIMIT_CORE, &rl) != 0)
		rc = -1;
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
		rc = -1;
	/* Lock waits sleep 50 us (lib/store_sqlite.c): not the default 50 us more. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
#ifdef BL_USE_SECCOMP
	if (install_filter(fcgi, bl_store_needs_net(fcgi)) != 0)
		rc = -1;
#else
	(void)fcgi;
#endif
	return rc;
}

int
bl_sandbox(void)
{
	return sandbox(0);
}

int
bl_sandbox_fcgi(void)
{
	return sandbox(1);
}
