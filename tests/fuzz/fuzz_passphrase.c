/*
 * fuzz_passphrase.c: the body of a retrieve or burn, {"passphrase": "..."}, as
 * bl_check_passphrase reads it (the scrypt itself is left out: it is slow and
 * sees only the bytes), and the UTF-8 counting the create request applies.
 */
#include "fuzz.h"

/* A reference count of UTF-8 code points (RFC 3629), SIZE_MAX if invalid or NUL. */
static size_t
ref_codepoints(const unsigned char *s, size_t len)
{
	size_t	 i = 0, n = 0;

	while (i < len) {
		unsigned long	 cp;
		size_t		 k, j;
		unsigned char	 c = s[i];

		if (c == 0)
			return SIZE_MAX;
		if (c < 0x80) { i++; n++; continue; }
		if ((c & 0xe0) == 0xc0) { k = 1; cp = c & 0x1f; }
		else if ((c & 0xf0) == 0xe0) { k = 2; cp = c & 0x0f; }
		else if ((c & 0xf8) == 0xf0) { k = 3; cp = c & 0x07; }
		else return SIZE_MAX;
		if (i + k >= len)
			return SIZE_MAX;
		for (j = 1; j <= k; j++) {
			if ((s[i + j] & 0xc0) != 0x80)
				return SIZE_MAX;
			cp = (cp << 6) | (s[i + j] & 0x3f);
		}
		if ((k == 1 && cp < 0x80) || (k == 2 && cp < 0x800) || (k == 3 && cp < 0x10000) ||
		    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return SIZE_MAX;
		i += k + 1;
		n++;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct fz_io		 f;
	const struct bl_io	 io = { fz_getenv, fz_read, fz_write, &f };
	struct bl_ctx		 ctx;
	struct bl_req		 r;
	json_object		*v = NULL;
	char			 len[32];
	enum bl_err		 e;

	if (bl_utf8_codepoints((const char *)data, size) != ref_codepoints(data, size))
		abort();

	memset(&f, 0, sizeof(f));
	snprintf(len, sizeof(len), "%zu", size);
	fz_set(&f, "REQUEST_METHOD", "POST");
	fz_set(&f, "PATH_INFO", "/AAAAAAAAAAAAAAAAAAAAAA");
	fz_set(&f, "CONTENT_TYPE", "application/json");
	fz_set(&f, "CONTENT_LENGTH", len);
	fz_set(&f, "BURNLINK_DB", "/nonexistent/fuzz.db");
	f.in = data;
	f.inlen = size;
	if (fz_req_init(&r, &ctx, &io) != BL_OK || bl_req_key(&r) != BL_OK)
		abort();
	e = bl_req_read_body(&r, 0);
	if (e == BL_OK && r.json != NULL &&
	    json_object_object_get_ex(r.json, "passphrase", &v) &&
	    json_object_is_type(v, json_type_string)) {
		const char *p = json_object_get_string(v);
		size_t n = (size_t)json_object_get_string_len(v);
		/*
		 * json-c's UTF-8 check is laxer than RFC 3629 (it passes overlong
		 * C0/C1 forms), so the library's own count must be the strict one.
		 */
		if (bl_utf8_codepoints(p, n) != ref_codepoints((const unsigned char *)p, n))
			abort();
	}
	if (e != BL_OK) {
		if (bl_error_info(e)->status >= 500)
			abort();
		bl_respond_error(&r, e);
		fz_check_head(&f);
	}
	fz_req_free(&r, &ctx);
	fz_free(&f);
	return 0;
}
