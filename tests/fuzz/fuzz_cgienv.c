/*
 * fuzz_cgienv.c: the CGI variables a client controls. The input is split on
 * newlines into CONTENT_LENGTH, CONTENT_TYPE, HTTP_AUTHORIZATION, REMOTE_ADDR,
 * HTTP_X_FORWARDED_FOR, BURNLINK_TRUSTED_PROXIES, HTTP_HOST, REQUEST_URI,
 * HTTPS and REQUEST_METHOD; the rest is the body.
 */
#include <arpa/inet.h>

#include "fuzz.h"

static const char *const vars[] = {"CONTENT_LENGTH", "CONTENT_TYPE",
    "HTTP_AUTHORIZATION", "REMOTE_ADDR", "HTTP_X_FORWARDED_FOR",
    "BURNLINK_TRUSTED_PROXIES", "HTTP_HOST", "REQUEST_URI", "HTTPS", "REQUEST_METHOD"};
#define NVARS (sizeof(vars) / sizeof(vars[0]))

/* The client address is "unknown", an IPv4 address, or an IPv6 /64. */
static void
check_ip(const char *ip)
{
	unsigned char	 a[16];
	char		 buf[64];
	size_t		 n = strlen(ip);

	if (strcmp(ip, "unknown") == 0)
		return;
	if (inet_pton(AF_INET, ip, a) == 1)
		return;
	if (n < 4 || n >= sizeof(buf) || strcmp(ip + n - 3, "/64") != 0)
		abort();
	memcpy(buf, ip, n - 3);
	buf[n - 3] = '\0';
	if (inet_pton(AF_INET6, buf, a) != 1)
		abort();
	for (n = 8; n < 16; n++)
		if (a[n] != 0)
			abort();
}

/* {site_url} holds only characters of a scheme, a host and a path. */
static void
check_site(const char *s)
{
	if (strncmp(s, "http://", 7) != 0 && strncmp(s, "https://", 8) != 0)
		abort();
	for (; *s != '\0'; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || strchr(":/.-_~[]", *s) != NULL))
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
	char			*copy, *p, *nl, *site = NULL;
	int64_t			 account, key;
	size_t			 i, rest;
	enum bl_err		 e;

	if ((copy = malloc(size + 1)) == NULL)
		abort();
	memcpy(copy, data, size);
	copy[size] = '\0';
	memset(&f, 0, sizeof(f));
	fz_set(&f, "BURNLINK_DB", fz_tmpdb());
	p = copy;
	for (i = 0; i < NVARS; i++) {
		if ((nl = memchr(p, '\n', size - (size_t)(p - copy))) == NULL)
			break;
		*nl = '\0';
		/* An environment value ends at its first NUL, as execve gives it. */
		fz_set(&f, vars[i], p);
		p = nl + 1;
	}
	rest = size - (size_t)(p - copy);
	f.in = (const unsigned char *)p;
	f.inlen = rest;

	e = fz_req_init(&r, &ctx, &io);
	if (e != BL_OK)
		abort();
	check_ip(r.client_ip);
	if (bl_site_url(&r, &site) != 0)
		abort();
	check_site(site);
	free(site);
	if ((e = bl_req_method(&r, BL_MASK(BL_M_POST) | BL_MASK(BL_M_GET), "GET, POST")) == BL_OK &&
	    (e = bl_req_read_body(&r, 0)) == BL_OK)
		e = bl_auth_request(&r, &account, &key);
	if (e == BL_OK) {
		if (account != 0 || key != 0)
			abort();	/* no key exists in the fuzzing database */
		if (bl_respond_json(&r, 200, json_object_new_object(), 0) != BL_OK)
			bl_respond_error(&r, BL_ERR_INTERNAL);
	} else {
		if (bl_error_info(e)->status >= 500)
			abort();
		bl_respond_error(&r, e);
	}
	fz_check_head(&f);
	fz_req_free(&r, &ctx);
	fz_free(&f);
	free(copy);
	return 0;
}
