/*
 * failmalloc.c: an LD_PRELOAD shim that makes one allocation fail, for the
 * fault-injection tests (tests/faults/). Only allocations made after main()
 * starts are counted (the shim wraps __libc_start_main).
 *
 *   FAILMALLOC_AT=N       the Nth allocation (malloc, calloc, realloc,
 *                         posix_memalign, aligned_alloc, memalign; strdup and
 *                         asprintf come through malloc) returns NULL
 *   FAILMALLOC_PERSIST=1  ... and every one after it
 *
 * When it fails the allocation it writes where from, to stderr:
 *   failmalloc: failing #N: frame frame ...   (symbol+offset (object) each)
 * At exit it writes one line to stderr:
 *   failmalloc: allocations=A failed=F at=N live=L
 * where live counts the blocks allocated after main() started that were never
 * freed (after the atexit handlers ran: OpenSSL's cleanup among them), and for
 * each of the first few a line "failmalloc: leak #seq size=... caller=SYMBOL".
 * A program that ends with _exit() skips the exit handlers; the shim then runs
 * OpenSSL's cleanup itself before it counts.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <execinfo.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

extern void	*__libc_malloc(size_t);
extern void	*__libc_calloc(size_t, size_t);
extern void	*__libc_realloc(void *, size_t);
extern void	 __libc_free(void *);
extern void	*__libc_memalign(size_t, size_t);

#define TABLE_BITS	20
#define TABLE_SIZE	(1u << TABLE_BITS)
#define TOMBSTONE	((void *)1)

struct slot {
	void		*p;
	unsigned long	 seq;
	size_t		 size;
	void		*caller;
};

static struct slot	*table;
static int		 armed, inited, persist;
static unsigned long	 count, fail_at, failed;
static long		 live;

static void
init(void)
{
	const char	*s;

	if (inited)
		return;
	inited = 1;
	if ((s = getenv("FAILMALLOC_AT")) != NULL)
		fail_at = strtoul(s, NULL, 10);
	persist = (s = getenv("FAILMALLOC_PERSIST")) != NULL && *s == '1';
	table = mmap(NULL, TABLE_SIZE * sizeof(struct slot), PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (table == MAP_FAILED)
		table = NULL;
}

static size_t
hash(const void *p)
{
	uintptr_t	 v = (uintptr_t)p;

	v ^= v >> 17;
	v *= 0x9e3779b97f4a7c15ull;
	return (size_t)(v >> (64 - TABLE_BITS));
}

static void
track(void *p, size_t size, void *caller)
{
	size_t	 i, n;

	if (table == NULL || p == NULL)
		return;
	for (i = hash(p), n = 0; n < TABLE_SIZE; i = (i + 1) & (TABLE_SIZE - 1), n++)
		if (table[i].p == NULL || table[i].p == TOMBSTONE) {
			table[i].p = p;
			table[i].seq = count;
			table[i].size = size;
			table[i].caller = caller;
			live++;
			return;
		}
}

static void
untrack(void *p)
{
	size_t	 i, n;

	if (table == NULL || p == NULL)
		return;
	for (i = hash(p), n = 0; n < TABLE_SIZE; i = (i + 1) & (TABLE_SIZE - 1), n++) {
		if (table[i].p == NULL)
			return;
		if (table[i].p == p) {
			table[i].p = TOMBSTONE;
			live--;
			return;
		}
	}
}

/* Writes the call stack, after a label, to stderr. */
static void
stack(const char *label, int skip)
{
	void	*frames[16];
	char	 buf[512];
	int	 i, n, len;

	n = backtrace(frames, 16);
	(void)!write(STDERR_FILENO, label, strlen(label));
	for (i = skip; i < n; i++) {
		Dl_info	 di;
		memset(&di, 0, sizeof(di));
		dladdr(frames[i], &di);
		len = snprintf(buf, sizeof(buf), " %s+%#lx(%s)",
		    di.dli_sname ? di.dli_sname : "?",
		    (unsigned long)((char *)frames[i] - (char *)(di.dli_sname ? di.dli_saddr : di.dli_fbase)),
		    di.dli_fname ? (strrchr(di.dli_fname, '/') ? strrchr(di.dli_fname, '/') + 1 : di.dli_fname) : "?");
		if (len > 0)
			(void)!write(STDERR_FILENO, buf, (size_t)len);
	}
	(void)!write(STDERR_FILENO, "\n", 1);
}

/* The call stack of the allocation being failed (the first one only). */
static void
where(void)
{
	char	 label[64];

	armed = 0;		/* backtrace() and dladdr() may allocate */
	snprintf(label, sizeof(label), "failmalloc: failing #%lu:", count);
	stack(label, 3);
	armed = 1;
}

/* A crash after a failed allocation: where it happened, then the default action. */
static void
crashed(int sig)
{
	char	 label[64];

	armed = 0;
	snprintf(label, sizeof(label), "failmalloc: signal %d after %lu allocations:", sig, count);
	stack(label, 2);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* 1 if this allocation is the one to fail. */
static int
should_fail(void)
{
	if (!armed)
		return 0;
	count++;
	if (fail_at != 0 && (count == fail_at || (persist && count > fail_at))) {
		if (failed++ == 0)
			where();
		return 1;
	}
	return 0;
}

void *
malloc(size_t n)
{
	void	*p;

	if (should_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	p = __libc_malloc(n);
	if (armed)
		track(p, n, __builtin_return_address(0));
	return p;
}

void *
calloc(size_t a, size_t b)
{
	void	*p;

	if (should_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	p = __libc_calloc(a, b);
	if (armed)
		track(p, a * b, __builtin_return_address(0));
	return p;
}

void *
realloc(void *old, size_t n)
{
	void	*p;

	if (old == NULL)
		return malloc(n);
	if (n == 0) {
		untrack(old);
		return __libc_realloc(old, n);
	}
	if (should_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	p = __libc_realloc(old, n);
	if (p != NULL) {
		untrack(old);
		if (armed)
			track(p, n, __builtin_return_address(0));
	}
	return p;
}

void
free(void *p)
{
	untrack(p);
	__libc_free(p);
}

static void *
aligned(size_t align, size_t n, void *caller)
{
	void	*p;

	if (should_fail())
		return NULL;
	p = __libc_memalign(align, n);
	if (armed)
		track(p, n, caller);
	return p;
}

int
posix_memalign(void **out, size_t align, size_t n)
{
	void	*p = aligned(align, n, __builtin_return_address(0));

	if (p == NULL)
		return ENOMEM;
	*out = p;
	return 0;
}

void *
aligned_alloc(size_t align, size_t n)
{
	return aligned(align, n, __builtin_return_address(0));
}

void *
memalign(size_t align, size_t n)
{
	return aligned(align, n, __builtin_return_address(0));
}

/* Counting starts when main() does. */
static int	(*real_main)(int, char **, char **);

static int
wrapped_main(int argc, char **argv, char **envp)
{
	init();
	if (fail_at != 0) {
		void *f[2];
		backtrace(f, 2);	/* loads libgcc_s before counting starts */
		signal(SIGSEGV, crashed);
		signal(SIGBUS, crashed);
		signal(SIGABRT, crashed);
	}
	/* glibc loads the time zone on the first gmtime_r and keeps it: not a leak. */
	tzset();
	armed = 1;
	return real_main(argc, argv, envp);
}

int
__libc_start_main(int (*main)(int, char **, char **), int argc, char **argv,
    void (*init_fn)(void), void (*fini)(void), void (*rtld_fini)(void), void *stack)
{
	int	 (*real)(int (*)(int, char **, char **), int, char **, void (*)(void),
		    void (*)(void), void (*)(void), void *);

	real = dlsym(RTLD_NEXT, "__libc_start_main");
	real_main = main;
	return real(wrapped_main, argc, argv, init_fn, fini, rtld_fini, stack);
}

static void report(void);

/* _exit() skips the exit handlers: run OpenSSL's, then report, then exit. */
void
_exit(int status)
{
	void	(*cleanup)(void);

	if (armed) {
		*(void **)&cleanup = dlsym(RTLD_DEFAULT, "OPENSSL_cleanup");
		if (cleanup != NULL)
			cleanup();
		report();
	}
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}

/* Runs after the atexit handlers (OpenSSL's cleanup) and the other libraries' destructors. */
__attribute__((destructor(101)))
static void
report(void)
{
	char	 buf[256];
	int	 n, shown = 0;
	size_t	 i;

	if (!armed)
		return;
	armed = 0;
	n = snprintf(buf, sizeof(buf), "failmalloc: allocations=%lu failed=%lu at=%lu live=%ld\n",
	    count, failed, fail_at, live);
	if (n > 0)
		(void)!write(STDERR_FILENO, buf, (size_t)n);
	for (i = 0; table != NULL && i < TABLE_SIZE && shown < 8; i++) {
		Dl_info	 di;
		if (table[i].p == NULL || table[i].p == TOMBSTONE)
			continue;
		memset(&di, 0, sizeof(di));
		dladdr(table[i].caller, &di);
		n = snprintf(buf, sizeof(buf), "failmalloc: leak #%lu size=%zu caller=%s+%#lx (%s)\n",
		    table[i].seq, table[i].size, di.dli_sname ? di.dli_sname : "?",
		    (unsigned long)((char *)table[i].caller - (char *)(di.dli_saddr ? di.dli_saddr : di.dli_fbase)),
		    di.dli_fname ? di.dli_fname : "?");
		if (n > 0)
			(void)!write(STDERR_FILENO, buf, (size_t)n);
		shown++;
	}
}
