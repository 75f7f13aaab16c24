/*
 * failsync.c: an LD_PRELOAD shim that makes one durable commit fail, for the
 * fault-injection tests (tests/faults/batch.test.mjs).
 *
 *   FAILSYNC_MARKER=TEXT  once a write (write, pwrite, pwrite64) carries
 *                         TEXT, the next fsync or fdatasync, on any file,
 *                         fails with EIO without syncing
 *   FAILSYNC_MARKER_HEX=HEX  the same with the bytes HEX spells (a stored
 *                         content is sealed, so a test marks a row by its
 *                         key's SHA-256 instead: lib/keyslots.c)
 *
 * SQLite writes a transaction's pages to the WAL at COMMIT and then syncs it
 * (synchronous=FULL; a FastCGI responder syncs it itself right after the
 * COMMIT, its write lock let go: lib/store_sqlite.c, wal_sync()): so the
 * commit whose pages hold the marker (a secret whose stored ciphertext
 * carries it) is the one that fails, and no other.
 * Writes "failsync: failing fdatasync" (or fsync) to stderr when it does.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int	 armed;

static void
look(const void *buf, size_t len)
{
	static unsigned char	 hex[64];
	static size_t		 hexlen;
	const char	*m = getenv("FAILSYNC_MARKER");
	const char	*h = getenv("FAILSYNC_MARKER_HEX");
	unsigned	 b;

	if (m != NULL && *m != '\0' && len >= strlen(m) && memmem(buf, len, m, strlen(m)) != NULL)
		armed = 1;
	if (h != NULL && hexlen == 0)
		while (hexlen < sizeof(hex) && h[2 * hexlen] != '\0' &&
		    sscanf(h + 2 * hexlen, "%2x", &b) == 1)
			hex[hexlen++] = (unsigned char)b;
	if (hexlen > 0 && len >= hexlen && memmem(buf, len, hex, hexlen) != NULL)
		armed = 1;
}

static int
fail(const char *what)
{
	static const char	 pre[] = "failsync: failing ";

	armed = 0;
	(void)!write(STDERR_FILENO, pre, sizeof(pre) - 1);
	(void)!write(STDERR_FILENO, what, strlen(what));
	(void)!write(STDERR_FILENO, "\n", 1);
	errno = EIO;
	return -1;
}

#include "looked.h"

int
fsync(int fd)
{
	static int	(*real)(int);

	if (armed)
		return fail("fsync");
	if (real == NULL)
		real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
	return real(fd);
}

int
fdatasync(int fd)
{
	static int	(*real)(int);

	if (armed)
		return fail("fdatasync");
	if (real == NULL)
		real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
	return real(fd);
}
