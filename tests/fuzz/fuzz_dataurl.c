/* fuzz_dataurl.c: the data: URL of a server-side file, sent as a JSON string in files[0].data. */
#include <strings.h>

#include "fuzz.h"

/* Appends s as the contents of a JSON string (escaped). */
static size_t
json_escape(char *out, const unsigned char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t	 i, j = 0;

	for (i = 0; i < len; i++) {
		unsigned char c = s[i];
		if (c == '"' || c == '\\') {
			out[j++] = '\\';
			out[j++] = (char)c;
		} else if (c < 0x20) {
			out[j++] = '\\';
			out[j++] = 'u';
			out[j++] = '0';
			out[j++] = '0';
			out[j++] = hex[c >> 4];
			out[j++] = hex[c & 15];
		} else
			out[j++] = (char)c;
	}
	return j;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static const char pre[] = "{\"files\":[{\"filename\":\"a.bin\",\"data\":\"";
	static const char post[] = "\"}]}";
	struct fz_io		 f;
	const struct bl_io	 io = { fz_getenv, fz_read, fz_write, &f };
	struct bl_ctx		 ctx;
	struct bl_req		 r;
	struct bl_create	 c;
	char			*body, len[32];
	size_t			 n;
	enum bl_err		 e;

	if (size > 1 << 20)
		return 0;
	if ((body = malloc(sizeof(pre) + size * 6 + sizeof(post))) == NULL)
		abort();
	memcpy(body, pre, sizeof(pre) - 1);
	n = sizeof(pre) - 1;
	n += json_escape(body + n, data, size);
	memcpy(body + n, post, sizeof(post) - 1);
	n += sizeof(post) - 1;

	memset(&f, 0, sizeof(f));
	memset(&c, 0, sizeof(c));
	snprintf(len, sizeof(len), "%zu", n);
	fz_set(&f, "REQUEST_METHOD", "POST");
	fz_set(&f, "CONTENT_TYPE", "application/json");
	fz_set(&f, "CONTENT_LENGTH", len);
	fz_set(&f, "BURNLINK_DB", "/nonexistent/fuzz.db");
	f.in = (const unsigned char *)body;
	f.inlen = n;
	if ((e = fz_req_init(&r, &ctx, &io)) == BL_OK &&
	    (e = bl_req_read_body(&r, 1)) == BL_OK &&
	    (e = bl_create_parse(&r, &c)) == BL_OK) {
		/* Accepted: a data: URL with ";base64," (any case, RFC 2397) whose payload is canonical. */
		const unsigned char *comma = memchr(data, ',', size);
		if (size < 5 || strncasecmp((const char *)data, "data:", 5) != 0 || comma == NULL ||
		    comma - data < 12 || strncasecmp((const char *)comma - 7, ";base64", 7) != 0)
			abort();
		if (c.content.nfiles != 1 || !c.content.files[0].data.enc ||
		    c.content.files[0].data.len - BL_TAG_BYTES !=
		    bl_b64_decoded_len((const char *)comma + 1, size - (size_t)(comma + 1 - data)))
			abort();
	} else {
		if (bl_error_info(e)->status != 400 && bl_error_info(e)->status != 413)
			abort();
		bl_respond_error(&r, e);
		fz_check_head(&f);
	}
	bl_create_free(&c);
	fz_req_free(&r, &ctx);
	fz_free(&f);
	free(body);
	return 0;
}
