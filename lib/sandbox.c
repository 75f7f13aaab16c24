/* sandbox.c: process hygiene (no core dumps) and the seccomp filter of the CGI programs. */
#include <errno.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include "internal.h"

/*
 * The filter is built in unless the build says BL_NO_SECCOMP (make SECCOMP=0,
 * for platforms without seccomp). Sanitizer builds skip it: LeakSanitizer
 * stops the world with clone() and ptrace() at exit, which the filter forbids.
 */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define BL_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define BL_SANITIZED 1
#endif

#if !defined(BL_NO_SECCOMP) && !defined(BL_SANITIZED) && defined(__linux__)
#define BL_USE_SECCOMP 1
#include <seccomp.h>
#include <sys/socket.h>
#endif

/*
 * What a program does after it starts: read the request, open and lock the
 * SQLite files (WAL, -shm mapped, fsync'd, unlinked), read or create the
 * install secret, take random bytes, allocate, write the response and exit.
 * abort() needs the signal calls. Nothing else is allowed.
 */
#ifdef BL_USE_SECCOMP
static const int allowed[] = {
	SCMP_SYS(read), SCMP_SYS(pread64), SCMP_SYS(readv), SCMP_SYS(preadv),
	SCMP_SYS(write), SCMP_SYS(pwrite64), SCMP_SYS(writev), SCMP_SYS(pwritev),
	SCMP_SYS(open), SCMP_SYS(openat), SCMP_SYS(close), SCMP_SYS(lseek),
	SCMP_SYS(stat), SCMP_SYS(fstat), SCMP_SYS(lstat), SCMP_SYS(newfstatat),
	SCMP_SYS(statx), SCMP_SYS(access), SCMP_SYS(faccessat), SCMP_SYS(faccessat2),
	SCMP_SYS(readlink), SCMP_SYS(readlinkat), SCMP_SYS(getcwd),
	SCMP_SYS(fcntl), SCMP_SYS(flock), SCMP_SYS(fsync), SCMP_SYS(fdatasync),
	SCMP_SYS(ftruncate), SCMP_SYS(fallocate), SCMP_SYS(fchmod), SCMP_SYS(fchown),
	SCMP_SYS(umask), SCMP_SYS(unlink), SCMP_SYS(unlinkat), SCMP_SYS(link),
	SCMP_SYS(linkat),
	SCMP_SYS(mmap), SCMP_SYS(munmap), SCMP_SYS(mremap), SCMP_SYS(mprotect),
	SCMP_SYS(madvise), SCMP_SYS(brk),
	SCMP_SYS(getrandom), SCMP_SYS(clock_gettime), SCMP_SYS(gettimeofday),
	SCMP_SYS(time), SCMP_SYS(clock_nanosleep), SCMP_SYS(nanosleep),
	SCMP_SYS(sched_yield), SCMP_SYS(futex),
	SCMP_SYS(getpid), SCMP_SYS(gettid), SCMP_SYS(getuid), SCMP_SYS(geteuid),
	SCMP_SYS(getgid), SCMP_SYS(getegid),
	SCMP_SYS(rt_sigaction), SCMP_SYS(rt_sigprocmask), SCMP_SYS(rt_sigreturn),
	SCMP_SYS(tgkill), SCMP_SYS(exit), SCMP_SYS(exit_group),
};

/*
 * What an attacker who took over the process would want first: run a
 * program, reach the network, spawn or trace processes, change identity or
 * namespaces, load kernel code. These kill the process outright; any other
 * call outside the allow-list fails with EPERM, so a rare error path that
 * needs something unexpected ends in the program's own 500, not a crash.
 */
static const int killed[] = {
	SCMP_SYS(execve), SCMP_SYS(execveat), SCMP_SYS(fork), SCMP_SYS(vfork),
	SCMP_SYS(clone), SCMP_SYS(clone3), SCMP_SYS(ptrace),
	SCMP_SYS(process_vm_readv), SCMP_SYS(process_vm_writev),
	SCMP_SYS(socket), SCMP_SYS(socketpair), SCMP_SYS(connect), SCMP_SYS(bind),
	SCMP_SYS(listen), SCMP_SYS(accept), SCMP_SYS(accept4), SCMP_SYS(sendto),
	SCMP_SYS(sendmsg), SCMP_SYS(sendmmsg), SCMP_SYS(recvfrom), SCMP_SYS(recvmsg),
	SCMP_SYS(kill), SCMP_SYS(tkill), SCMP_SYS(setuid), SCMP_SYS(setgid),
	SCMP_SYS(setreuid), SCMP_SYS(setregid), SCMP_SYS(setresuid),
	SCMP_SYS(setresgid), SCMP_SYS(setgroups), SCMP_SYS(chroot),
	SCMP_SYS(mount), SCMP_SYS(umount2), SCMP_SYS(pivot_root), SCMP_SYS(unshare),
	SCMP_SYS(setns), SCMP_SYS(init_module), SCMP_SYS(finit_module),
	SCMP_SYS(delete_module), SCMP_SYS(kexec_load), SCMP_SYS(bpf),
	SCMP_SYS(perf_event_open), SCMP_SYS(userfaultfd), SCMP_SYS(keyctl),
	SCMP_SYS(add_key), SCMP_SYS(request_key), SCMP_SYS(io_uring_setup),
	SCMP_SYS(io_uring_enter), SCMP_SYS(io_uring_register),
	SCMP_SYS(memfd_create), SCMP_SYS(personality),
};

/*
 * A FastCGI responder also takes connections on its listening socket (fd 0,
 * FCGI_LISTENSOCK_FILENO) and talks over them; accept is allowed on fd 0 only.
 */
static const int fcgi_allowed[] = {
	SCMP_SYS(poll), SCMP_SYS(ppoll), SCMP_SYS(select), SCMP_SYS(pselect6),
	SCMP_SYS(shutdown), SCMP_SYS(getpeername), SCMP_SYS(getsockname),
	SCMP_SYS(setsockopt), SCMP_SYS(getsockopt),
};

/*
 * With a PostgreSQL store (BURNLINK_DB=postgresql://..., lib/store_pg.c) the
 * programs talk to the database over a socket and may resolve its host name
 * first (bl_store_needs_net()): these calls are allowed then, and socket()
 * for the local, IPv4 and IPv6 families only.
 */
static const int db_allowed[] = {
	SCMP_SYS(connect), SCMP_SYS(sendto), SCMP_SYS(sendmsg), SCMP_SYS(sendmmsg),
	SCMP_SYS(recvfrom), SCMP_SYS(recvmsg), SCMP_SYS(poll), SCMP_SYS(ppoll),
	SCMP_SYS(getsockopt), SCMP_SYS(setsockopt), SCMP_SYS(getsockname),
	SCMP_SYS(getpeername), SCMP_SYS(shutdown), SCMP_SYS(uname),
};
static const int db_families[] = { AF_UNIX, AF_INET, AF_INET6 };

/* 1 if nr is in list (n entries). */
static int
listed(const int *list, size_t n, int nr)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		if (list[i] == nr)
			return 1;
	return 0;
}

#define LISTED(list, nr)	listed(list, sizeof(list) / sizeof(list[0]), nr)

static int
is_fcgi_accept(int nr, int fcgi)
{
	return fcgi && (nr == SCMP_SYS(accept) || nr == SCMP_SYS(accept4));
}

static int
install_filter(int fcgi, int db)
{
	scmp_filter_ctx	 ctx;
	size_t		 i;
	int		 rc = -1;

	if ((ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM))) == NULL)
		return -1;
	for (i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
		if (allowed[i] >= 0 &&
		    seccomp_rule_add(ctx, SCMP_ACT_ALLOW, allowed[i], 0) != 0)
			goto out;
	for (i = 0; fcgi && i < sizeof(fcgi_allowed) / sizeof(fcgi_allowed[0]); i++)
		if (fcgi_allowed[i] >= 0 &&
		    seccomp_rule_add(ctx, SCMP_ACT_ALLOW, fcgi_allowed[i], 0) != 0)
			goto out;
	for (i = 0; db && i < sizeof(db_allowed) / sizeof(db_allowed[0]); i++)
		if (db_allowed[i] >= 0 && !(fcgi && LISTED(fcgi_allowed, db_allowed[i])) &&
		    seccomp_rule_add(ctx, SCMP_ACT_ALLOW, db_allowed[i], 0) != 0)
			goto out;
	for (i = 0; db && i < sizeof(db_families) / sizeof(db_families[0]); i++)
		if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1,
		    SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)db_families[i])) != 0)
			goto out;
	for (i = 0; i < sizeof(killed) / sizeof(killed[0]); i++) {
		if (killed[i] < 0 || (db && (killed[i] == SCMP_SYS(socket) ||
		    LISTED(db_allowed, killed[i]))))
			continue;
		if (is_fcgi_accept(killed[i], fcgi)) {
			if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, killed[i], 1,
			    SCMP_A0(SCMP_CMP_EQ, 0)) != 0)
				goto out;
			continue;
		}
		if (seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, killed[i], 0) != 0)
			goto out;
	}
	/* seccomp_load sets no_new_privs first (SCMP_FLTATR_CTL_NNP is on). */
	if (seccomp_load(ctx) != 0)
		goto out;
	rc = 0;
out:
	seccomp_release(ctx);
	return rc;
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
