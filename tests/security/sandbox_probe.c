/*
 * sandbox_probe.c: installs the programs' sandbox (bl_sandbox(), the same code
 * bl_serve() runs first) and then makes the system call named by argv[1], so a
 * test can see what the filter allows, refuses and kills. Prints one line.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"

int
main(int argc, char *argv[])
{
	const char	*what = argc > 1 ? argv[1] : "";
	char		 buf[64];
	int		 fd, rc;

	if (strcmp(what, "enabled") == 0) {
		printf("%d\n", bl_sandbox_enabled());
		return 0;
	}
	if (bl_sandbox() != 0) {
		printf("sandbox failed\n");
		return 3;
	}
	fflush(stdout);
	if (strcmp(what, "wait") == 0) {
		/* Blocks until stdin closes, for a look at /proc/<pid> from outside. */
		while (read(STDIN_FILENO, buf, sizeof(buf)) > 0)
			;
	} else if (strcmp(what, "read") == 0) {
		/* What the programs do: open a file, read it, write to stdout. */
		fd = open(argc > 2 ? argv[2] : "/etc/hostname", O_RDONLY | O_CLOEXEC);
		rc = fd >= 0 ? (int)read(fd, buf, sizeof(buf)) : -1;
		printf("read=%d\n", rc);
	} else if (strcmp(what, "execve") == 0) {
		char *const args[] = {(char *)"/bin/true", NULL};
		execve("/bin/true", args, args + 1);
		printf("execve returned errno=%d\n", errno);
	} else if (strcmp(what, "socket") == 0) {
		rc = socket(AF_INET, SOCK_STREAM, 0);
		printf("socket=%d errno=%d\n", rc, errno);
	} else if (strcmp(what, "fork") == 0) {
		pid_t pid = fork();
		if (pid == 0)
			_exit(0);
		printf("fork=%d errno=%d\n", (int)pid, errno);
	} else if (strcmp(what, "ptrace") == 0) {
		rc = (int)ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		printf("ptrace=%d errno=%d\n", rc, errno);
	} else if (strcmp(what, "mkdir") == 0) {
		/* Not in the allow-list and not among the killed: refused with EPERM. */
		rc = mkdir(argc > 2 ? argv[2] : "/tmp/burnlink-probe-dir", 0700);
		printf("mkdir=%d errno=%d\n", rc, errno);
	} else if (strcmp(what, "tgkill") == 0 && argc > 2) {
		/* Another process of the same user: the filter refuses it. */
		pid_t pid = (pid_t)strtol(argv[2], NULL, 10);
		rc = (int)syscall(SYS_tgkill, pid, pid, SIGTERM);
		printf("tgkill=%d errno=%d\n", rc, rc == 0 ? 0 : errno);
	} else if (strcmp(what, "tgkill-self") == 0) {
		/* Its own threads: allowed (raise() and abort() use it). */
		signal(SIGUSR1, SIG_IGN);
		rc = (int)syscall(SYS_tgkill, getpid(), gettid(), SIGUSR1);
		printf("tgkill=%d errno=%d\n", rc, rc == 0 ? 0 : errno);
	} else if (strcmp(what, "abort") == 0) {
		abort();
	} else if (strcmp(what, "crash") == 0) {
		/* A crash must leave no core file behind. */
		volatile int *p = NULL;
		*p = 1;
	} else {
		printf("usage: sandbox_probe enabled|wait|read|execve|socket|fork|ptrace|mkdir|tgkill PID|tgkill-self|abort|crash\n");
		return 2;
	}
	return 0;
}
