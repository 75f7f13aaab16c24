/*
 * stub.c: a program's file in the `make dist` tarball (x86-64 Linux; no C
 * library, static, a few hundred bytes): executes bin/burnlink-programs of
 * its own tree (scripts/multicall.c) with the same arguments and
 * environment and its own file name as argv[0], which names the program.
 * Its own path comes from /proc/self/exe (else argv[0]); the tree is found
 * from there (cgi-bin/create and bin/cleanup alike:
 * <dir>/../bin/burnlink-programs).
 * Built with -nostdlib -static (Makefile, dist).
 */
#if !defined(__x86_64__) || !defined(__linux__)
#error "stub.c: x86-64 Linux only (make dist ships separate programs elsewhere)"
#endif

#define SYS_write	1
#define SYS_execve	59
#define SYS_exit	60
#define SYS_readlink	89
#define PATH_LEN	4096

static long
sys3(long n, long a, long b, long c)
{
	long	 r;

	__asm__ volatile ("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c) :
	    "rcx", "r11", "memory");
	return r;
}

static const char	 target[] = "/../bin/burnlink-programs";
static const char	 fail[] = "burnlink: cannot execute ../bin/burnlink-programs beside this program\n";

void	 stub_main(long *) __attribute__((noreturn, used));

/* sp: the initial stack (argc, argv..., NULL, envp..., NULL). */
void
stub_main(long *sp)
{
	static char	 path[PATH_LEN], exe[PATH_LEN + sizeof(target)];
	long		 argc = sp[0], n, i, slash = -1, dirlen = 0;
	char		**argv = (char **)(sp + 1), **envp = argv + argc + 1;

	n = sys3(SYS_readlink, (long)"/proc/self/exe", (long)path, PATH_LEN);
	/* Without /proc (a chroot): argv[0], whose directory is the current one (CGI) if it has none. */
	if (n <= 0 && argc > 0 && argv[0] != 0)
		for (n = 0; n < PATH_LEN && argv[0][n] != '\0'; n++)
			path[n] = argv[0][n];
	for (i = 0; n > 0 && i < n; i++)
		if (path[i] == '/')
			slash = i;
	if (n > 0 && n < PATH_LEN && argc > 0) {
		path[n] = '\0';
		argv[0] = path + slash + 1;	/* the program's name */
		/* the directory (or "."), then the target: dir/../bin/burnlink-programs */
		if (slash < 0)
			exe[dirlen++] = '.';
		for (; dirlen < slash; dirlen++)
			exe[dirlen] = path[dirlen];
		for (n = 0; n < (long)sizeof(target); n++)
			exe[dirlen + n] = target[n];
		sys3(SYS_execve, (long)exe, (long)argv, (long)envp);
	}
	sys3(SYS_write, 2, (long)fail, sizeof(fail) - 1);
	sys3(SYS_exit, 127, 0, 0);
	for (;;)
		;
}

__asm__(".text\n.globl _start\n_start:\n\txor %rbp, %rbp\n\tmov %rsp, %rdi\n"
    "\tand $-16, %rsp\n\tcall stub_main\n\thlt\n");
