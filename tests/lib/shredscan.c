/*
 * shredscan.c: the search of tests/lib/shred.mjs's problems(), in C over
 * OpenSSL: tries every candidate key of a data directory's files on every
 * probe (AES-256-GCM: does its tag verify?), and looks for every needle's
 * 16-byte windows in each file. shred.mjs builds it into build/testlib/ on
 * first use and says which candidates a file gives.
 *
 * Reads from stdin, every number a 32-bit little-endian unsigned:
 *   nprobes, then per probe: n (the item's number: its nonce), len, len bytes
 *     (the sealed item: ciphertext, then its 16-byte tag)
 *   nneedles, then per needle: len, len bytes
 *   nfiles, then per file: kind (1: a keys file, whose candidates are the
 *     first 32 bytes of each non-zero 64-byte slot after its 4096-byte
 *     header; 0: any other file, whose candidates are the 32-byte windows at
 *     every 8-byte offset), len, len bytes
 * A candidate of one byte repeated (zeros included) is not tried.
 * Writes, file by file: a line "K FILE PROBE" (indexes from 0) for each
 * candidate that opens a probe, in the order of the candidates and of the
 * probes; then for each needle, in order, that has a window (its bytes
 * 16i..16i+15) anywhere in the file, a line "N FILE NEEDLE OFFSET": the
 * first such window's first offset in the file. Exits 0, or 2 on bad input
 * or an OpenSSL failure.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#define KEY	32
#define TAG	16
#define SLOT	64
#define HEADER	4096
#define WIN	16

struct probe {
	unsigned char	 iv[12];
	const unsigned char *buf;
	uint32_t	 len;
};

/* The needles' windows, each distinct one once, in an open-addressed table. */
struct windows {
	const unsigned char **at;	/* a distinct window's bytes, or NULL */
	long		*first;		/* its first offset in the file, or -1 */
	size_t		 mask;		/* table size - 1 (a power of two) */
	size_t		*of;		/* per needle window (in order): its slot */
	size_t		 nof;
};

struct input {
	unsigned char	*buf;
	size_t		 len;
	size_t		 at;
};

/* Reads all of stdin into in; 0 on success. */
static int
slurp(struct input *in)
{
	size_t		 cap = 1 << 20, n;
	unsigned char	*p;

	if ((in->buf = malloc(cap)) == NULL)
		return -1;
	in->len = in->at = 0;
	while ((n = fread(in->buf + in->len, 1, cap - in->len, stdin)) > 0) {
		in->len += n;
		if (in->len == cap) {
			if ((p = realloc(in->buf, cap * 2)) == NULL)
				return -1;
			in->buf = p;
			cap *= 2;
		}
	}
	return ferror(stdin) ? -1 : 0;
}

/* The next 32-bit number of in into *v; 0 on success. */
static int
u32(struct input *in, uint32_t *v)
{
	if (in->len - in->at < 4)
		return -1;
	*v = (uint32_t)in->buf[in->at] | (uint32_t)in->buf[in->at + 1] << 8 |
	    (uint32_t)in->buf[in->at + 2] << 16 | (uint32_t)in->buf[in->at + 3] << 24;
	in->at += 4;
	return 0;
}

/* The next len bytes of in into *p; 0 on success. */
static int
bytes(struct input *in, uint32_t len, const unsigned char **p)
{
	if (in->len - in->at < len)
		return -1;
	*p = in->buf + in->at;
	in->at += len;
	return 0;
}

/* 1 if every byte of b[0..n) is b[0]. */
static int
uniform(const unsigned char *b, size_t n)
{
	size_t	 i;

	for (i = 1; i < n; i++)
		if (b[i] != b[0])
			return 0;
	return 1;
}

/* 1 if key opens probe p (its GCM tag verifies), 0 if not, -1 on failure. */
static int
opens(EVP_CIPHER_CTX *c, const unsigned char *key, const struct probe *p,
    unsigned char *scratch)
{
	int	 n;

	if (EVP_DecryptInit_ex(c, NULL, NULL, key, p->iv) != 1 ||
	    EVP_DecryptUpdate(c, scratch, &n, p->buf, (int)(p->len - TAG)) != 1 ||
	    EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_TAG, TAG,
	    (void *)(p->buf + p->len - TAG)) != 1)
		return -1;
	return EVP_DecryptFinal_ex(c, scratch + n, &n) == 1;
}

/* Tries key on every probe, printing "file probe" for each it opens; 0 on success. */
static int
try(EVP_CIPHER_CTX *c, const unsigned char *key, uint32_t file,
    const struct probe *probes, uint32_t nprobes, unsigned char *scratch)
{
	uint32_t	 i;
	int		 r;

	if (uniform(key, KEY))
		return 0;
	for (i = 0; i < nprobes; i++) {
		if ((r = opens(c, key, &probes[i], scratch)) < 0)
			return -1;
		if (r)
			printf("K %u %u\n", file, i);
	}
	return 0;
}

/* The hash of a 16-byte window. */
static size_t
whash(const unsigned char *b)
{
	uint64_t	 x, y;

	memcpy(&x, b, 8);
	memcpy(&y, b + 8, 8);
	x ^= y * 0x9e3779b97f4a7c15ULL;
	x ^= x >> 29;
	return (size_t)(x * 0xbf58476d1ce4e5b9ULL >> 17);
}

/* The slot of window b in w: where it is, or the empty one it would take. */
static size_t
wslot(const struct windows *w, const unsigned char *b)
{
	size_t	 i = whash(b) & w->mask;

	while (w->at[i] != NULL && memcmp(w->at[i], b, WIN) != 0)
		i = (i + 1) & w->mask;
	return i;
}

/* Puts every window of every needle into w; 0 on success. */
static int
wbuild(struct windows *w, const unsigned char **needle, const uint32_t *len, uint32_t n)
{
	size_t	 total = 0, size = 16, i, j, k = 0;

	for (i = 0; i < n; i++)
		total += len[i] / WIN;
	while (size < 2 * total + 16)
		size *= 2;
	w->mask = size - 1;
	w->nof = total;
	if ((w->at = calloc(size, sizeof(*w->at))) == NULL ||
	    (w->first = malloc(size * sizeof(*w->first))) == NULL ||
	    (w->of = calloc(total ? total : 1, sizeof(*w->of))) == NULL)
		return -1;
	for (i = 0; i < n; i++)
		for (j = 0; j + WIN <= len[i]; j += WIN) {
			size_t	 s = wslot(w, needle[i] + j);

			w->at[s] = needle[i] + j;
			w->of[k++] = s;
		}
	return 0;
}

/* Prints, for each needle with a window in data, the first such window's first offset. */
static void
wfind(struct windows *w, const uint32_t *len, uint32_t n, uint32_t file,
    const unsigned char *data, uint32_t dlen)
{
	size_t	 i, j, k = 0, s;
	long	 at;

	if (w->nof == 0)
		return;
	for (i = 0; i <= w->mask; i++)
		w->first[i] = -1;
	for (at = 0; (size_t)at + WIN <= dlen; at++) {
		s = wslot(w, data + at);
		if (w->at[s] != NULL && w->first[s] < 0)
			w->first[s] = at;
	}
	for (i = 0; i < n; i++) {
		at = -1;
		for (j = 0; j + WIN <= len[i]; j += WIN, k++)
			if (at < 0 && w->first[w->of[k]] >= 0)
				at = w->first[w->of[k]];
		if (at >= 0)
			printf("N %u %zu %ld\n", file, i, at);
	}
}

int
main(void)
{
	struct input	 in;
	struct probe	*probes = NULL;
	struct windows	 w = { NULL, NULL, 0, NULL, 0 };
	const unsigned char **needle = NULL;
	uint32_t	*nlen = NULL, nneedles;
	EVP_CIPHER_CTX	*c = NULL;
	unsigned char	*scratch = NULL;
	const unsigned char *data;
	uint32_t	 nprobes, nfiles, n, len, kind, f, i, most = 0;
	size_t		 at;
	int		 rc = 2;

	if (slurp(&in) != 0 || u32(&in, &nprobes) != 0 ||
	    (probes = calloc(nprobes ? nprobes : 1, sizeof(*probes))) == NULL)
		goto out;
	for (i = 0; i < nprobes; i++) {
		if (u32(&in, &n) != 0 || u32(&in, &len) != 0 || len < TAG ||
		    bytes(&in, len, &probes[i].buf) != 0)
			goto out;
		/* the nonce of item n (lib/secret.c, seal_iv()): 8 zero bytes, n big-endian */
		probes[i].iv[8] = (unsigned char)(n >> 24);
		probes[i].iv[9] = (unsigned char)(n >> 16);
		probes[i].iv[10] = (unsigned char)(n >> 8);
		probes[i].iv[11] = (unsigned char)n;
		probes[i].len = len;
		if (len > most)
			most = len;
	}
	if (u32(&in, &nneedles) != 0 ||
	    (needle = calloc(nneedles ? nneedles : 1, sizeof(*needle))) == NULL ||
	    (nlen = calloc(nneedles ? nneedles : 1, sizeof(*nlen))) == NULL)
		goto out;
	for (i = 0; i < nneedles; i++)
		if (u32(&in, &nlen[i]) != 0 || bytes(&in, nlen[i], &needle[i]) != 0)
			goto out;
	if (wbuild(&w, needle, nlen, nneedles) != 0 ||
	    (scratch = malloc(most + TAG)) == NULL || (c = EVP_CIPHER_CTX_new()) == NULL ||
	    EVP_DecryptInit_ex(c, EVP_aes_256_gcm(), NULL, NULL, NULL) != 1 ||
	    u32(&in, &nfiles) != 0)
		goto out;
	for (f = 0; f < nfiles; f++) {
		if (u32(&in, &kind) != 0 || u32(&in, &len) != 0 || bytes(&in, len, &data) != 0)
			goto out;
		if (nprobes == 0)
			;
		else if (kind == 1) {
			for (at = HEADER; at + SLOT <= len; at += SLOT)
				if (!(data[at] == 0 && uniform(data + at, SLOT)) &&
				    try(c, data + at, f, probes, nprobes, scratch) != 0)
					goto out;
		} else {
			for (at = 0; at + KEY <= len; at += 8)
				if (try(c, data + at, f, probes, nprobes, scratch) != 0)
					goto out;
		}
		wfind(&w, nlen, nneedles, f, data, len);
	}
	if (in.at != in.len || fflush(stdout) != 0)
		goto out;
	rc = 0;
out:
	if (rc != 0)
		fprintf(stderr, "shredscan: bad input or an OpenSSL failure\n");
	EVP_CIPHER_CTX_free(c);
	free(scratch);
	free(probes);
	free(needle);
	free(nlen);
	free(w.at);
	free(w.first);
	free(w.of);
	free(in.buf);
	return rc;
}
