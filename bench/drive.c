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
 * "runs=N mean_ms=X min_ms=Y cpu_ms=C maxrss_kib=Z faults=F status=S" (C: user +
 * system time of the program, which other load on the machine disturbs less
 * than the wall clock; F: its page faults, the mean per run) where S is the first
 * status line seen (from the first run, whose output is kept).
 * With DRIVE_VARY_ADDR=1 in the environment each run gets an X-Forwarded-For
 * of its own (10.x.y.z from the run's number): with BURNLINK_TRUSTED_PROXIES=
 * 127.0.0.1 every run is counted by the rate limiter, as the benchmark's
 * requests are, without the runs reaching the limit of one address.
 * Or: drive fsync DIR: the mean time of a 4 KiB write and fdatasync() in DIR
 * (200 times), the price of one durable commit there.
 */

static int
fsync_cost(const char *dir)
{
	struct timespec	 a, b;
	char		 path[4096], buf[4096];
	int		 fd, i;

	memset(buf, 0x5a, sizeof(buf));
	snprintf(path, sizeof(path), "%s/fsync-test", dir);
	if ((fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600)) < 0)
		return 1;
	unlink(path);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < 200; i++)
		if (pwrite(fd, buf, sizeof(buf), (off_t)(i % 16) * 4096) != (ssize_t)sizeof(buf) ||
		    fdatasync(fd) != 0)
			return 1;
	clock_gettime(CLOCK_MONOTONIC, &b);
	close(fd);
	printf("fdatasync_ms=%.3f\n", ((double)(b.tv_sec - a.tv_sec) * 1e3 +
	    (double)(b.tv_nsec - a.tv_nsec) / 1e6) / 200);
	return 0;
}
int
main(int argc, char *argv[])
{
	struct timespec	 a, b;
	struct rusage	 ru;
	double		 ms, total = 0, min = 1e12, cpu = 0, faults = 0;
	long		 maxrss = 0, count, i;
	char		 status[64] = "none", tmpl[] = "/tmp/bl-drive.XXXXXX", buf[256];
	char		 addr[32];
	const char	*v = getenv("DRIVE_VARY_ADDR");
	int		 st, fd, out, vary = v != NULL && strcmp(v, "1") == 0;
	ssize_t		 n;
	pid_t		 pid;

	if (argc == 3 && strcmp(argv[1], "fsync") == 0)
		return fsync_cost(argv[2]);
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
			if (vary) {
				snprintf(addr, sizeof(addr), "10.%ld.%ld.%ld",
				    (i >> 16) & 255, (i >> 8) & 255, i & 255);
				if (setenv("HTTP_X_FORWARDED_FOR", addr, 1) != 0)
					_exit(126);
			}
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
		cpu += (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
		    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
		faults += (double)(ru.ru_minflt + ru.ru_majflt);
	}
	if ((n = pread(out, buf, sizeof(buf) - 1, 0)) > 0) {
		buf[n] = '\0';
		if (strncmp(buf, "Status: ", 8) == 0)
			snprintf(status, sizeof(status), "%.3s", buf + 8);
	}
	printf("runs=%ld mean_ms=%.3f min_ms=%.3f cpu_ms=%.3f maxrss_kib=%ld faults=%.0f status=%s\n",
	    count, total / (double)count, min, cpu / (double)count, maxrss,
	    faults / (double)count, status);
	return 0;
}
