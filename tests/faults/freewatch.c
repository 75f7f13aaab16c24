/*
 * freewatch.c: an LD_PRELOAD shim that reports memory released while it
 * still holds a marker, for the fault-injection tests
 * (tests/faults/wipe.test.mjs).
 *
 *   FREEWATCH_MARKER=TEXT  a block passed to free(), or left behind by
 *                          realloc(), that holds TEXT is reported
 *
 * realloc() always moves here (a new block, the old one copied and freed),
 * the case in which the C library frees the old copy as it is: so a buffer
 * grown by realloc (json-c's printbuf, vasprintf) shows what it leaves.
 * Each report is one line on stderr:
 *   freewatch: freed N bytes holding the marker
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void	*__libc_malloc(size_t);
extern void	 __libc_free(void *);

static void
check(void *p)
{
	const char	*m = getenv("FREEWATCH_MARKER");
	size_t		 n;
	char		 line[96];
	int		 len;

	if (p == NULL || m == NULL || *m == '\0')
		return;
	n = malloc_usable_size(p);
	if (n >= strlen(m) && memmem(p, n, m, strlen(m)) != NULL) {
		len = snprintf(line, sizeof(line), "freewatch: freed %zu bytes holding the marker\n", n);
		(void)!write(STDERR_FILENO, line, (size_t)len);
	}
}

void
free(void *p)
{
	check(p);
	__libc_free(p);
}

void *
realloc(void *p, size_t size)
{
	void	*q;
	size_t	 n;

	if (p == NULL)
		return __libc_malloc(size);
	if (size == 0) {
		free(p);
		return NULL;
	}
	if ((q = __libc_malloc(size)) == NULL)
		return NULL;
	n = malloc_usable_size(p);
	memcpy(q, p, n < size ? n : size);
	free(p);
	return q;
}
