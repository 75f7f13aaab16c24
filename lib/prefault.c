/* prefault.c (layer: serve): maps a CGI program's first heap in one system call instead of fault by fault. */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

/*
 * A CGI process lives for one request, and part of its cost is the kernel
 * mapping its pages one fault at a time. The first heap (132 KiB, most of it
 * written by every request: SQLite's page cache and schema, json-c's tree) is
 * mapped here with MADV_POPULATE_WRITE, one system call instead of ~22 write
 * faults.
 *
 * The code and constants are left to fault. Mapping them ahead as well
 * (MADV_POPULATE_READ over the whole executable) mapped every page of it,
 * 630 for metadata and 1,360 for create and retrieve (which carry OpenSSL's
 * providers), where a request runs code on a fraction of them and each read
 * fault maps 16 neighbouring pages already in the page cache. Measured on the
 * benchmark machine (docs/PERFORMANCE.md, "Where a CGI request spends its
 * time"; CPU time per request, five interleaved rounds of 150): create
 * 1.49 -> 1.30 ms, retrieve 1.47 -> 1.23 ms, metadata 1.06 -> 0.98 ms without
 * the code's prefault, for 20-25 more page faults.
 *
 * Kernels before 5.14 do not know the advice and refuse it; nothing else
 * changes then.
 */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE	23
#endif

void
bl_prefault(void)
{
	uintptr_t	 page = (uintptr_t)sysconf(_SC_PAGESIZE), lo, hi;
	void		*p;

	if (page == 0 || (page & (page - 1)) != 0)
		return;
	/* The first allocation creates the heap: map it whole. */
	if ((p = malloc(1)) == NULL)
		return;
	lo = (uintptr_t)p & ~(page - 1);
	hi = (uintptr_t)sbrk(0);
	if (hi > lo && hi - lo <= 1024 * 1024)
		madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
	free(p);
}
