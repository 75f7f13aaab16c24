/* seccomp-gen.c: builds the seccomp filters of lib/sandbox.c with libseccomp and prints them as C. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/filter.h>
#include <seccomp.h>

/*
 * Run at build time: the programs install the BPF written here
 * ($(BUILD)/seccomp_bpf.h) with two prctl() calls, instead of paying
 * libseccomp's rule table and BPF generation (0.87 ms) in every process.
 * Usage: seccomp-gen > seccomp_bpf.h
 */

/*
 * What a program does after it starts: read the request, open and lock the
 * SQLite files (WAL, -shm mapped, fsync'd, unlinked), write a larger
 * rate-limit counters table and rename it over the old one (lib/counters.c),
 * read or create the install secret, take random bytes, allocate, write the response and exit.
 * abort() and raise() need the signal calls: tgkill(getpid(), gettid(), sig)
 * is allowed for the process's own id only (OWN_PID below). Nothing else is
 * allowed.
 */
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
	SCMP_SYS(linkat), SCMP_SYS(rename), SCMP_SYS(renameat), SCMP_SYS(renameat2),
	SCMP_SYS(mmap), SCMP_SYS(munmap), SCMP_SYS(mremap), SCMP_SYS(mprotect),
	SCMP_SYS(madvise), SCMP_SYS(brk),
	SCMP_SYS(getrandom), SCMP_SYS(clock_gettime), SCMP_SYS(gettimeofday),
	SCMP_SYS(time), SCMP_SYS(clock_nanosleep), SCMP_SYS(nanosleep),
	SCMP_SYS(sched_yield), SCMP_SYS(futex),
	SCMP_SYS(getpid), SCMP_SYS(gettid), SCMP_SYS(getuid), SCMP_SYS(geteuid),
	SCMP_SYS(getgid), SCMP_SYS(getegid),
	SCMP_SYS(rt_sigaction), SCMP_SYS(rt_sigprocmask), SCMP_SYS(rt_sigreturn),
	SCMP_SYS(exit), SCMP_SYS(exit_group),
};

/*
 * tgkill(tgid, tid, sig) signals any process of the same user, as kill()
 * would (killed below): it is allowed only when tgid is the process's own.
 * The filter is built here, before that id exists, so its rule compares the
 * first argument (its low 32 bits: a pid_t) with this placeholder, which no
 * pid can be (pid_max is at most 2^22); lib/sandbox.c replaces it with
 * getpid() in a copy of the filter before installing it. Each filter holds
 * the placeholder exactly once (checked below). The other calls that signal
 * a process (rt_sigqueueinfo, rt_tgsigqueueinfo, pidfd_send_signal) are not
 * listed: they fail with EPERM.
 */
#define OWN_PID		0x7b1d0001u

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
 * FCGI_LISTENSOCK_FILENO) and talks over them; accept is allowed on fd 0 only
 * (non-blocking: it waits for a connection in ppoll(), lib/fcgi.c). Its
 * wait for the responders' write lock is bounded by a timer (setitimer:
 * lib/store_sqlite.c, wlock_take()).
 */
static const int fcgi_allowed[] = {
	SCMP_SYS(poll), SCMP_SYS(ppoll), SCMP_SYS(select), SCMP_SYS(pselect6),
	SCMP_SYS(shutdown), SCMP_SYS(getpeername), SCMP_SYS(getsockname),
	SCMP_SYS(setsockopt), SCMP_SYS(getsockopt), SCMP_SYS(setitimer),
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

/* Adds the rules of one variant (fcgi, db) to ctx. 0 on success, -1 on error. */
static int
add_rules(scmp_filter_ctx ctx, int fcgi, int db)
{
	size_t	 i;

	for (i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
		if (allowed[i] >= 0 &&
		    seccomp_rule_add(ctx, SCMP_ACT_ALLOW, allowed[i], 0) != 0)
			return -1;
	for (i = 0; fcgi && i < sizeof(fcgi_allowed) / sizeof(fcgi_allowed[0]); i++)
		if (fcgi_allowed[i] >= 0 &&
		    seccomp_rule_add(ctx, SCMP_ACT_ALLOW, fcgi_allowed[i], 0) != 0)
			return -1;
	for (i = 0; db && i < sizeof(db_allowed) / sizeof(db_allowed[0]); i++)
		if (db_allowed[i] >= 0 && !(fcgi && LISTED(fcgi_allowed, db_allowed[i])) &&
		    seccomp_rule_add(ctx, SCMP_ACT_ALLOW, db_allowed[i], 0) != 0)
			return -1;
	for (i = 0; db && i < sizeof(db_families) / sizeof(db_families[0]); i++)
		if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1,
		    SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)db_families[i])) != 0)
			return -1;
	if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1,
	    SCMP_A0_32(SCMP_CMP_EQ, (scmp_datum_t)OWN_PID)) != 0)
		return -1;
	for (i = 0; i < sizeof(killed) / sizeof(killed[0]); i++) {
		if (killed[i] < 0 || (db && (killed[i] == SCMP_SYS(socket) ||
		    LISTED(db_allowed, killed[i]))))
			continue;
		if (is_fcgi_accept(killed[i], fcgi)) {
			if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, killed[i], 1,
			    SCMP_A0(SCMP_CMP_EQ, 0)) != 0)
				return -1;
			continue;
		}
		if (seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, killed[i], 0) != 0)
			return -1;
	}
	return 0;
}

static size_t	 max_len;	/* the longest filter, in instructions */

/*
 * Prints the BPF of one variant as a C array called name. 0 on success, -1 on
 * error (also when the filter does not hold OWN_PID exactly once, as the
 * comparison of a tgkill argument).
 */
static int
print_filter(const char *name, int fcgi, int db)
{
	scmp_filter_ctx		 ctx;
	struct sock_filter	 ins;
	FILE			*tmp = NULL;
	size_t			 len = 0, own = 0;
	int			 rc = -1;

	if ((ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM))) == NULL)
		return -1;
	/*
	 * A binary tree of the system call numbers rather than a linear list:
	 * the same rules, and the kernel, which runs the filter for every call
	 * number when it is installed (its cache of allowed calls), takes about
	 * 0.1 ms instead of 0.3 ms for that.
	 */
	if (seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2) != 0)
		goto out;
	if (add_rules(ctx, fcgi, db) != 0)
		goto out;
	if ((tmp = tmpfile()) == NULL)
		goto out;
	if (seccomp_export_bpf(ctx, fileno(tmp)) != 0)
		goto out;
	rewind(tmp);
	printf("static const struct sock_filter %s[] = {\n", name);
	while (fread(&ins, sizeof(ins), 1, tmp) == 1) {
		printf("\t{ 0x%04x, %u, %u, 0x%08x },\n", (unsigned)ins.code,
		    (unsigned)ins.jt, (unsigned)ins.jf, (unsigned)ins.k);
		if (ins.k == OWN_PID)
			own += ins.code == (BPF_JMP | BPF_JEQ | BPF_K) ? 1 : 2;
		len++;
	}
	printf("};\n\n");
	if (ferror(tmp))
		goto out;
	if (own != 1) {
		fprintf(stderr, "seccomp-gen: %s: the tgkill placeholder is not "
		    "compared exactly once\n", name);
		goto out;
	}
	if (len > max_len)
		max_len = len;
	rc = 0;
out:
	if (tmp != NULL)
		fclose(tmp);
	seccomp_release(ctx);
	return rc;
}

int
main(void)
{
	printf("/* seccomp_bpf.h: generated by scripts/seccomp-gen.c, do not edit. */\n\n");
	if (print_filter("bl_bpf_cgi", 0, 0) != 0 ||
	    print_filter("bl_bpf_fcgi", 1, 0) != 0 ||
	    print_filter("bl_bpf_cgi_db", 0, 1) != 0 ||
	    print_filter("bl_bpf_fcgi_db", 1, 1) != 0) {
		fprintf(stderr, "seccomp-gen: cannot build the filters\n");
		return 1;
	}
	/* What lib/sandbox.c replaces with getpid(), and the room its copy needs. */
	printf("#define BL_BPF_OWN_PID\t0x%08xu\n", OWN_PID);
	printf("#define BL_BPF_MAX_LEN\t%zu\n", max_len);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "seccomp-gen: write error\n");
		return 1;
	}
	return 0;
}
