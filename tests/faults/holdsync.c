/*
 * holdsync.c: an LD_PRELOAD shim that stops a process at one durable sync
 * until the test lets it go, and then makes that sync succeed or fail, for
 * the tests of a FastCGI responder's early lock release
 * (tests/faults/earlysync.test.mjs).
 *
 *   HOLDSYNC_MARKER_HEX=HEX  once a write (write, pwrite, pwrite64) carries
 *                            the bytes HEX spells (a row's key hash: its
 *                            page is written to the WAL at COMMIT), the next
 *                            fsync or fdatasync, on any file, is held
 *   HOLDSYNC_FIFO=PATH       where it is held: the shim writes "holdsync:
 *                            held" to stderr, opens PATH (a FIFO: the open
 *                            waits for the test to open it for writing) and
 *                            reads one byte: 'f' fails the sync with EIO
 *                            without making it, anything else makes it
 *   HOLDSYNC_FILE=SUFFIX     held is then the next sync of a file whose
 *                            path ends in SUFFIX (e.g. -keys), not of any
 *
 * Writes "holdsync: failing fdatasync" (or fsync) or "holdsync: synced" to
 * stderr once let go. Only the first marked sync is held.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int	 armed, done;

static void
say(const char *a, const char *b)
{
	(void)!write(STDERR_FILENO, "holdsync: ", 10);
	(void)!write(STDERR_FILENO, a, strlen(a));
	(void)!write(STDERR_FILENO, b, strlen(b));
	(void)!write(STDERR_FILENO, "\n", 1);
}

static void
look(const void *buf, size_t len)
{
	static unsigned char	 hex[64];
	static size_t		 hexlen;
	const char	*h = getenv("HOLDSYNC_MARKER_HEX");
	unsigned	 b;

	if (done || h == NULL)
		return;
	if (hexlen == 0)
		while (hexlen < sizeof(hex) && h[2 * hexlen] != '\0' &&
		    sscanf(h + 2 * hexlen, "%2x", &b) == 1)
			hex[hexlen++] = (unsigned char)b;
	if (hexlen > 0 && len >= hexlen && memmem(buf, len, hex, hexlen) != NULL)
		armed = 1;
}

/* Holds the armed sync; 1 if it is to fail. */
static int
hold(void)
{
	const char	*path = getenv("HOLDSYNC_FIFO");
	char		 c = 's';
	int		 fd;

	armed = 0;
	done = 1;
	say("held", "");
	if (path == NULL || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		say("cannot open the FIFO", "");
		return 1;
	}
	if (read(fd, &c, 1) != 1)
		c = 'f';
	close(fd);
	return c == 'f';
}

/* 1 if fd is the file HOLDSYNC_FILE names (or if it names none). */
static int
chosen(int fd)
{
	const char	*suffix = getenv("HOLDSYNC_FILE");
	char		 link[64], path[4096];
	ssize_t		 n;
	size_t		 len;

	if (suffix == NULL)
		return 1;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	if ((n = readlink(link, path, sizeof(path) - 1)) < 0)
		return 0;
	path[n] = '\0';
	len = strlen(suffix);
	return (size_t)n >= len && strcmp(path + n - len, suffix) == 0;
}

static int
sync_with(int (*real)(int), int fd, const char *what)
{
	int	 rc;

	if (armed && chosen(fd) && hold()) {
		say("failing ", what);
		errno = EIO;
		return -1;
	}
	rc = real(fd);
	if (done == 1) {
		done = 2;
		say("synced", "");
	}
	return rc;
}

#include "looked.h"

int
fsync(int fd)
{
	static int	(*real)(int);

	if (real == NULL)
		real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
	return sync_with(real, fd, "fsync");
}

int
fdatasync(int fd)
{
	static int	(*real)(int);

	if (real == NULL)
		real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
	return sync_with(real, fd, "fdatasync");
}
