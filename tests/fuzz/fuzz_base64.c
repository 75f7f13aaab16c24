/* fuzz_base64.c: standard and url-safe base64 decoding; what decodes must re-encode to itself. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	const char	*s = (const char *)data;
	unsigned char	*d;
	char		*re;
	size_t		 n, m, want;

	/* Standard base64, canonical with padding. */
	want = bl_b64_decoded_len(s, size);
	if ((d = bl_b64_decode(s, size, &n)) != NULL) {
		if (want != n)
			abort();
		if ((re = bl_b64_encode(d, n, &m)) == NULL)
			abort();
		if (m != size || memcmp(re, s, size) != 0)
			abort();	/* accepted a non-canonical encoding */
		free(re);
		free(d);
	}
	/* url-safe, without padding. */
	if ((d = bl_b64url_decode(s, size, &n)) != NULL) {
		if ((re = bl_b64url_encode(d, n, &m)) == NULL)
			abort();
		if (m != size || memcmp(re, s, size) != 0)
			abort();
		free(re);
		free(d);
	}
	/* And encoding any bytes decodes back to them. */
	if ((re = bl_b64_encode(data, size, &m)) == NULL ||
	    (d = bl_b64_decode(re, m, &n)) == NULL || n != size || memcmp(d, data, size) != 0)
		abort();
	free(re);
	free(d);
	if ((re = bl_b64url_encode(data, size, &m)) == NULL ||
	    (d = bl_b64url_decode(re, m, &n)) == NULL || n != size || memcmp(d, data, size) != 0)
		abort();
	free(re);
	free(d);
	return 0;
}
