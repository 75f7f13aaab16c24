/* unit.h: a minimal test harness; each check counts, and main prints "N passed, N failed". */
#ifndef UNIT_H
#define UNIT_H

#include <stdio.h>
#include <string.h>

static int unit_pass, unit_fail;

#define CHECK(cond) do {						\
	if (cond)							\
		unit_pass++;						\
	else {								\
		unit_fail++;						\
		fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, __LINE__, #cond); \
	}								\
} while (0)

#define UNIT_END(name) do {						\
	printf("%s: %d passed, %d failed\n", name, unit_pass, unit_fail); \
	return unit_fail != 0;						\
} while (0)

/* Parses hex into buf; returns the byte count. */
static inline size_t
unhex(const char *hex, unsigned char *buf)
{
	size_t	 n = 0;
	unsigned int b;

	while (hex[0] && hex[1] && sscanf(hex, "%2x", &b) == 1) {
		buf[n++] = (unsigned char)b;
		hex += 2;
	}
	return n;
}

#endif
