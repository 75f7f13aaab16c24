/*
 * crashsync.c: an LD_PRELOAD shim that kills the process at one durable
 * point, for the crash tests of crypto-shredding (tests/faults/shred.test.mjs).
 *
 *   CRASHSYNC_BEFORE=N  the Nth fsync or fdatasync of the process (from 1)
 *                       is never made: the process kills itself (SIGKILL)
 *                       instead, with what it wrote still in the page cache
 *   CRASHSYNC_AFTER=N   the Nth one is made, then the process kills itself
 *
 * A program that writes a secret's key or its wipe (lib/keyslots.c) syncs
 * the keys file before SQLite's COMMIT syncs the WAL, so N = 1, 2, ... walks
 * a one-time read, a burn, a create or a cleanup through each point where a
 * crash leaves a different state on disk. Writes "crashsync: killed before
 * (or after) sync N" to stderr first.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int	 count;

static void
die(const char *when)
{
	char	 msg[64];
	int	 n = snprintf(msg, sizeof(msg), "crashsync: killed %s sync %d\n", when, count);

	(void)!write(STDERR_FILENO, msg, (size_t)n);
	raise(SIGKILL);
}

static int
at(const char *name)
{
	const char	*v = getenv(name);

	return v != NULL && atoi(v) == count;
}

static int
sync_with(int (*real)(int), int fd)
{
	int	 rc;

	count++;
	if (at("CRASHSYNC_BEFORE"))
		die("before");
	rc = real(fd);
	if (at("CRASHSYNC_AFTER"))
		die("after");
	return rc;
}

int
fsync(int fd)
{
	static int	(*real)(int);

	if (real == NULL)
		real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
	return sync_with(real, fd);
}

int
fdatasync(int fd)
{
	static int	(*real)(int);

	if (real == NULL)
		real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
	return sync_with(real, fd);
}
