/* fuzz_create.c: the create request, from body bytes to a validated, encrypted request. */
#include "fuzz.h"

/* What a validated request must satisfy, whatever the input was. */
static void
check_valid(const struct bl_create *c)
{
	size_t	 i, total = 0;

	if (c->ttl < BL_TTL_MIN || c->ttl > BL_TTL_MAX)
		abort();
	if (c->max_views != -1 && (c->max_views < 1 || c->max_views > BL_VIEWS_MAX))
		abort();
	if (c->pass != NULL && (c->pass_len < BL_PASS_MIN || c->pass_len > 4 * BL_PASS_MAX))
		abort();
	if (c->content.nfiles > BL_MAX_FILES)
		abort();
	if (!c->content.has_text && c->content.nfiles == 0)
		abort();
	if (c->content.has_text) {
		if (!c->content.text.enc || c->content.text.len < BL_TAG_BYTES)
			abort();
		total += c->content.text.len - BL_TAG_BYTES;
	}
	for (i = 0; i < c->content.nfiles; i++) {
		const struct bl_file *f = &c->content.files[i];
		/* In server-side mode every item is encrypted; client-side the names may be plain. */
		if (!f->data.enc || f->data.len < BL_TAG_BYTES)
			abort();
		if (c->server_side && (!f->name.enc || !f->mime.enc))
			abort();
		total += f->data.len - BL_TAG_BYTES;
	}
	if (total > BL_MAX_PLAINTEXT)
		abort();
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct fz_io		 f;
	const struct bl_io	 io = { fz_getenv, fz_read, fz_write, &f };
	struct bl_ctx		 ctx;
	struct bl_req		 r;
	struct bl_create	 c;
	char			 len[32];
	enum bl_err		 e;

	memset(&f, 0, sizeof(f));
	memset(&c, 0, sizeof(c));
	snprintf(len, sizeof(len), "%zu", size);
	fz_set(&f, "REQUEST_METHOD", "POST");
	fz_set(&f, "CONTENT_TYPE", "application/json");
	fz_set(&f, "CONTENT_LENGTH", len);
	fz_set(&f, "BURNLINK_DB", "/nonexistent/fuzz.db");
	fz_set(&f, "REMOTE_ADDR", "192.0.2.1");
	f.in = data;
	f.inlen = size;
	if ((e = fz_req_init(&r, &ctx, &io)) == BL_OK &&
	    (e = bl_req_read_body(&r, 1)) == BL_OK &&
	    (e = bl_create_parse(&r, &c)) == BL_OK)
		check_valid(&c);
	if (e != BL_OK) {
		const struct bl_error_info *ei = bl_error_info(e);
		if (ei->status == 200 || ei->status >= 500)
			abort();	/* bad input must be a 4xx */
		bl_respond_error(&r, e);
		fz_check_head(&f);
	}
	bl_create_free(&c);
	fz_req_free(&r, &ctx);
	fz_free(&f);
	return 0;
}
