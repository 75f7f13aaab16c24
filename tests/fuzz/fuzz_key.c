/* fuzz_key.c: PATH_INFO to a key: exactly "/" + 22 url-safe base64 characters, else 404. */
#include "fuzz.h"

/* The key alphabet, spelt out independently of the library. */
static int
ref_key(const char *s, size_t len)
{
	static const char alphabet[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	size_t	 i;

	if (len != BL_KEY_LEN)
		return 0;
	for (i = 0; i < len; i++)
		if (s[i] == '\0' || strchr(alphabet, s[i]) == NULL)
			return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct fz_io		 f;
	const struct bl_io	 io = { fz_getenv, fz_read, fz_write, &f };
	struct bl_ctx		 ctx;
	struct bl_req		 r;
	char			*path;
	size_t			 plen;
	enum bl_err		 e;
	int			 shape;

	if ((path = malloc(size + 1)) == NULL)
		abort();
	memcpy(path, data, size);
	path[size] = '\0';		/* the environment cannot hold a NUL */
	plen = strlen(path);
	shape = plen > 0 && path[0] == '/' && ref_key(path + 1, plen - 1);
	if (bl_key_valid(path, plen) != ref_key(path, plen))
		abort();

	memset(&f, 0, sizeof(f));
	fz_set(&f, "REQUEST_METHOD", "GET");
	fz_set(&f, "PATH_INFO", path);
	fz_set(&f, "BURNLINK_DB", "/nonexistent/fuzz.db");
	if (fz_req_init(&r, &ctx, &io) != BL_OK)
		abort();
	e = bl_req_key(&r);
	if ((e == BL_OK) != shape)
		abort();
	if (e == BL_OK && (strlen(r.key) != BL_KEY_LEN || memcmp(r.key, path + 1, BL_KEY_LEN) != 0))
		abort();
	if (e != BL_OK) {
		/* Every key that is not one is the same 404, whatever it looked like. */
		if (e != BL_ERR_NOT_FOUND || r.hint[0] != '\0')
			abort();
		bl_respond_error(&r, e);
		fz_check_head(&f);
		if (strstr(f.out, "\"code\":\"NOT_FOUND\"") == NULL)
			abort();
	}
	fz_req_free(&r, &ctx);
	fz_free(&f);
	free(path);
	return 0;
}
