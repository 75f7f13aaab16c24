/* drive.c: runs a program as a CGI request COUNT times; prints latency and peak RSS. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * Usage: drive COUNT BODYFILE PROGRAM
 * The CGI variables come from the environment; BODYFILE (or /dev/null) is the
 * program's standard input each time, its output goes to /dev/null. Prints
 * "runs=N mean_ms=X min_ms=Y maxrss_kib=Z status=S" where S is the first
 * status line seen (from the first run, whose output is kept).
 */
int
main(int argc, char *argv[])
{
	struct timespec	 a, b;
	struct rusage	 ru;
	double		 ms, total = 0, min = 1e12;
	long		 maxrss = 0, count, i;
	char		 status[64] = "none", tmpl[] = "/tmp/bl-drive.XXXXXX", buf[256];
	int		 st, fd, out;
	ssize_t		 n;
	pid_t		 pid;

	if (argc < 4 || (count = strtol(argv[1], NULL, 10)) < 1) {
		fprintf(stderr, "usage: drive COUNT BODYFILE PROGRAM [ARG...]\n");
		return 2;
	}
	if ((out = mkstemp(tmpl)) < 0)
		return 1;
	unlink(tmpl);
	for (i = 0; i < count; i++) {
		clock_gettime(CLOCK_MONOTONIC, &a);
		if ((pid = fork()) < 0)
			return 1;
		if (pid == 0) {
			if ((fd = open(argv[2], O_RDONLY)) < 0 || dup2(fd, 0) < 0)
				_exit(126);
			if (i > 0 && (out = open("/dev/null", O_WRONLY)) < 0)
				_exit(126);
			if (dup2(out, 1) < 0)
				_exit(126);
			execv(argv[3], argv + 3);
			_exit(127);
		}
		if (wait4(pid, &st, 0, &ru) < 0)
			return 1;
		clock_gettime(CLOCK_MONOTONIC, &b);
		ms = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
		total += ms;
		if (ms < min)
			min = ms;
		if (ru.ru_maxrss > maxrss)
			maxrss = ru.ru_maxrss;
	}
	if ((n = pread(out, buf, sizeof(buf) - 1, 0)) > 0) {
		buf[n] = '\0';
		if (strncmp(buf, "Status: ", 8) == 0)
			snprintf(status, sizeof(status), "%.3s", buf + 8);
	}
	printf("runs=%ld mean_ms=%.3f min_ms=%.3f maxrss_kib=%ld status=%s\n",
	    count, total / (double)count, min, maxrss, status);
	return 0;
}
