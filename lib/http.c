/* http.c (layer: http): reading the request and the one path every response leaves by. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "internal.h"

static const char *
cgi_getenv(void *ctx, const char *name)
{
	(void)ctx;
	return getenv(name);
}

static size_t
cgi_read(void *ctx, void *buf, size_t len)
{
	ssize_t	 n;

	(void)ctx;
	do
		n = read(STDIN_FILENO, buf, len);
	while (n < 0 && errno == EINTR);
	return n > 0 ? (size_t)n : 0;
}

static int
cgi_write(void *ctx, const void *buf, size_t len)
{
	const char	*p = buf;
	ssize_t		 n;

	(void)ctx;
	while (len > 0) {
		if ((n = write(STDOUT_FILENO, p, len)) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

const struct bl_io bl_cgi_io = { cgi_getenv, cgi_read, cgi_write, NULL };

/* The value of a CGI variable, or NULL. */
const char *
bl_req_env(const struct bl_req *r, const char *name)
{
	return r->io->getenv(r->io->ctx, name);
}

/*
 * Sets up r for one request over io, borrowing ctx: id (also the context's id
 * for log lines), clock, method and client address.
 */
enum bl_err
bl_req_init(struct bl_req *r, const struct bl_io *io, struct bl_ctx *ctx)
{
	unsigned char	 rnd[15];
	char		*id;
	const char	*m;

	memset(r, 0, sizeof(*r));
	r->io = io;
	r->ctx = ctx;
	r->now_ms = ctx->now_ms;
	memcpy(r->id, "req_unknown", sizeof("req_unknown"));
	if (bl_random(rnd, sizeof(rnd)) == 0 &&
	    (id = bl_b64url_encode(rnd, sizeof(rnd), NULL)) != NULL) {
		snprintf(r->id, sizeof(r->id), "req_%s", id);
		free(id);
	}
	m = bl_req_env(r, "REQUEST_METHOD");
	if (m == NULL)
		r->method = BL_M_OTHER;
	else if (strcmp(m, "GET") == 0)
		r->method = BL_M_GET;
	else if (strcmp(m, "HEAD") == 0)
		r->method = BL_M_HEAD;
	else if (strcmp(m, "POST") == 0)
		r->method = BL_M_POST;
	else if (strcmp(m, "DELETE") == 0)
		r->method = BL_M_DELETE;
	memcpy(ctx->log_id, r->id, sizeof(ctx->log_id));
	/* The context's configuration names the trusted proxies. */
	bl_client_ip(ctx, bl_req_env(r, "REMOTE_ADDR"), bl_req_env(r, "HTTP_X_FORWARDED_FOR"),
	    r->client_ip);
	return BL_OK;
}

/*
 * Releases everything r holds, wiping the body, the parsed JSON and the
 * session first. The stores are the context's: it closes or keeps them.
 */
void
bl_req_free(struct bl_req *r)
{
	if (r->json != NULL) {
		bl_json_wipe(r->json);
		json_object_put(r->json);
	}
	if (r->body != NULL)
		bl_free_wipe(r->body, r->body_len + 1);
	bl_wipe(&r->session, sizeof(r->session));
	r->json = NULL;
	r->body = NULL;
	r->store = NULL;
}

/* The context's store for this request, opened on first use (lib/ctx.c). */
enum bl_err
bl_req_store(struct bl_req *r)
{
	enum bl_err	 e;

	if ((e = bl_ctx_store(r->ctx)) == BL_OK)
		r->store = r->ctx->store;
	return e;
}

/* The install secret, loaded on first use into the context. */
enum bl_err
bl_req_install_key(struct bl_req *r)
{
	return bl_ctx_install_key(r->ctx);
}

/* BL_OK if the request method is in mask, else 405 with allow as the Allow header. */
enum bl_err
bl_req_method(struct bl_req *r, unsigned mask, const char *allow)
{
	r->allow = allow;
	if (r->method != BL_M_OTHER && (mask & BL_MASK(r->method)))
		return BL_OK;
	return BL_ERR_METHOD_NOT_ALLOWED;
}

/* Takes the key from PATH_INFO ("/<22 url-safe base64 chars>"), else 404. */
enum bl_err
bl_req_key(struct bl_req *r)
{
	const char	*p = bl_req_env(r, "PATH_INFO");

	if (p == NULL || p[0] != '/' || !bl_key_valid(p + 1, strlen(p + 1)))
		return BL_ERR_NOT_FOUND;
	memcpy(r->key, p + 1, BL_KEY_LEN + 1);
	return BL_OK;
}

/* 1 if the request names an item of a collection (any PATH_INFO other than "" or "/"). */
int
bl_req_item(const struct bl_req *r)
{
	const char	*p = bl_req_env(r, "PATH_INFO");

	return p != NULL && p[0] != '\0' && strcmp(p, "/") != 0;
}

static int
hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	    c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/*
 * The parameter name of QUERY_STRING ("a=1&b=x%20y"), percent- and
 * '+'-decoded into out (len bytes, NUL-terminated): 1 when present, 0 when
 * absent, -1 when it does not fit, has a bad escape, a NUL or a control
 * character. The last one wins when a name repeats.
 */
int
bl_req_query(const struct bl_req *r, const char *name, char *out, size_t len)
{
	const char	*q = bl_req_env(r, "QUERY_STRING"), *v, *end;
	size_t		 nlen = strlen(name), n;
	int		 found = 0, hi, lo;
	unsigned char	 ch;

	if (len == 0)
		return -1;
	out[0] = '\0';
	while (q != NULL && *q != '\0') {
		end = q + strcspn(q, "&");
		if ((size_t)(end - q) > nlen && strncmp(q, name, nlen) == 0 && q[nlen] == '=') {
			found = 1;
			for (n = 0, v = q + nlen + 1; v < end; v++) {
				ch = (unsigned char)*v;
				if (ch == '+')
					ch = ' ';
				else if (ch == '%') {
					if (end - v < 3 || (hi = hexval(v[1])) < 0 || (lo = hexval(v[2])) < 0)
						return -1;
					ch = (unsigned char)(hi * 16 + lo);
					v += 2;
				}
				if (ch < 0x20 || ch == 0x7f || n + 1 >= len)
					return -1;
				out[n++] = (char)ch;
			}
			out[n] = '\0';
		} else if ((size_t)(end - q) == nlen && strncmp(q, name, nlen) == 0) {
			found = 1;
			out[0] = '\0';
		}
		q = *end == '&' ? end + 1 : end;
	}
	return found;
}

/* Parses PATH_INFO "/<id>" (a positive decimal without a leading zero); 0 if it is not one. */
int64_t
bl_req_item_id(const struct bl_req *r)
{
	const char	*p = bl_req_env(r, "PATH_INFO");
	int64_t		 v = 0;

	if (p == NULL || p[0] != '/' || p[1] < '1' || p[1] > '9')
		return 0;
	for (p++; *p != '\0'; p++) {
		if (*p < '0' || *p > '9' || v > (INT64_MAX - 9) / 10)
			return 0;
		v = v * 10 + (*p - '0');
	}
	return v;
}

/*
 * 1 if CONTENT_TYPE is application/json, parameters allowed, except a charset
 * other than UTF-8 (the body is read as UTF-8, as JSON is: RFC 8259).
 */
static int
is_json_type(const char *ct)
{
	size_t	 n = sizeof("application/json") - 1, len;
	const char	*v;

	if (ct == NULL)
		return 0;
	while (*ct == ' ' || *ct == '\t')
		ct++;
	if (strncasecmp(ct, "application/json", n) != 0)
		return 0;
	ct += n;
	while (*ct == ' ' || *ct == '\t')
		ct++;
	if (*ct != '\0' && *ct != ';')
		return 0;
	while (*ct == ';') {
		for (ct++; *ct == ' ' || *ct == '\t'; ct++)
			continue;
		len = strcspn(ct, ";");
		if (len >= 8 && strncasecmp(ct, "charset=", 8) == 0) {
			v = ct + 8;
			if (*v == '"')
				v++;
			if (strncasecmp(v, "utf-8", 5) != 0 ||
			    strspn(v + 5, "\" \t") != (size_t)(ct + len - (v + 5)))
				return 0;
		}
		ct += len;
	}
	return 1;
}

/* Parses CONTENT_LENGTH strictly: digits only, no sign, at most max. */
static int
content_length(const char *s, size_t max, size_t *out)
{
	size_t	 v = 0;

	if (s == NULL || *s == '\0') {
		*out = 0;
		return 0;
	}
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		if (v > (max + 1) / 10 + 1)
			return 1;	/* too large, without overflowing */
		v = v * 10 + (size_t)(*s - '0');
	}
	*out = v;
	return v > max ? 1 : 0;
}

/*
 * Reads the body: 413 above 4 MiB (without reading it), 415 if it is not JSON,
 * then parses it into r->json. A missing body is INVALID_JSON when required,
 * else leaves r->json NULL.
 */
enum bl_err
bl_req_read_body(struct bl_req *r, int required)
{
	size_t		 len, got = 0, n;
	int		 rc;

	rc = content_length(bl_req_env(r, "CONTENT_LENGTH"),
	    (size_t)r->ctx->cfg.limits.f[BL_F_BODY].max, &len);
	if (rc > 0)
		return BL_ERR_PAYLOAD_TOO_LARGE;
	if (rc < 0)
		return bl_req_fail(r, BL_ERR_INVALID_JSON,
		    "CONTENT_LENGTH is not a number; send a JSON body with a Content-Length.");
	if (len == 0)
		return required ? BL_ERR_INVALID_JSON : BL_OK;
	if (!is_json_type(bl_req_env(r, "CONTENT_TYPE")))
		return BL_ERR_UNSUPPORTED_MEDIA_TYPE;
	if ((r->body = malloc(len + 1)) == NULL)
		return BL_ERR_INTERNAL;
	r->body_len = len;
	while (got < len && (n = r->io->read(r->io->ctx, r->body + got, len - got)) > 0)
		got += n;
	r->body[got] = '\0';
	if (got != len)
		return bl_req_fail(r, BL_ERR_INVALID_JSON,
		    "The body ended before Content-Length bytes arrived.");
	/* The parser wipes and frees the body: a 2 MiB secret is not kept twice. */
	return bl_json_parse(r);
}

/* An output buffer on the caller's stack: responses are written without allocating. */
struct obuf {
	char	*buf;
	size_t	 len, cap;
	int	 err;		/* set when something did not fit */
};

static void
oprintf(struct obuf *o, const char *fmt, ...)
{
	va_list	 ap;
	int	 n;

	if (o->err)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->cap - o->len) {
		o->err = 1;
		return;
	}
	o->len += (size_t)n;
}

/* Appends s as the inside of a JSON string. */
static void
ojson(struct obuf *o, const char *s)
{
	for (; *s != '\0' && !o->err; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			oprintf(o, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			oprintf(o, "\\u%04x", c);
		else
			oprintf(o, "%c", c);
	}
}

static const char *reason(int);

/*
 * Writes status, the headers every response carries, the rate-limit and
 * Retry-After/Allow headers when set, then body (not for HEAD). Only fixed
 * strings and numbers reach the headers. Nothing is allocated. 0 on success.
 */
static int
write_response(struct bl_req *r, int status, const char *body, size_t blen)
{
	char		 head[2048];
	struct obuf	 o = { head, 0, sizeof(head), 0 };

	bl_metrics_answer(r->ctx, r->endpoint, (int)r->method, r->item, status, r->event);
	oprintf(&o, "Status: %d %s\r\n"
	    "Content-Type: %s\r\n"
	    "Content-Length: %zu\r\n"
	    "Cache-Control: %s\r\n"
	    "X-Content-Type-Options: nosniff\r\n"
	    "Referrer-Policy: no-referrer\r\n"
	    "Content-Security-Policy: default-src 'none'; frame-ancestors 'none'\r\n"
	    "X-Frame-Options: DENY\r\n"
	    "X-Request-Id: %s\r\n", status, reason(status),
	    status == 200 && r->content_type != NULL ? r->content_type :
	    "application/json; charset=utf-8", blen,
	    status == 200 && r->cache_control != NULL ? r->cache_control : "no-store", r->id);
	if (r->rl.set)
		oprintf(&o, "X-RateLimit-Limit: %lld\r\nX-RateLimit-Remaining: %lld\r\n"
		    "X-RateLimit-Reset: %lld\r\n", (long long)r->rl.limit,
		    (long long)r->rl.remaining, (long long)r->rl.reset);
	if (r->retry_after > 0)
		oprintf(&o, "Retry-After: %ld\r\n", r->retry_after);
	if (status == 405 && r->allow != NULL)
		oprintf(&o, "Allow: %s\r\n", r->allow);
	if (r->set_cookie[0] != '\0')
		oprintf(&o, "Set-Cookie: %s\r\n", r->set_cookie);
	oprintf(&o, "\r\n");
	if (o.err) {
		bl_log(r, "the response head does not fit");
		return -1;
	}
	if (r->io->write(r->io->ctx, o.buf, o.len) != 0)
		return -1;
	if (r->method != BL_M_HEAD && r->io->write(r->io->ctx, body, blen) != 0)
		return -1;
	return 0;
}

/*
 * The response of last resort, when memory ran out: a 500 built on the stack,
 * with the hint already recorded (it may say that a view was used).
 */
static int
write_fallback(struct bl_req *r)
{
	char		 body[2048];
	struct obuf	 o = { body, 0, sizeof(body), 0 };

	oprintf(&o, "{\"error\":\"Internal server error.\",\"code\":\"INTERNAL_ERROR\",\"hint\":\"");
	ojson(&o, r->hint[0] != '\0' ? r->hint : "The server ran out of memory; try again later.");
	oprintf(&o, "\",\"requestId\":\"%s\"}", r->id);
	if (o.err)
		return -1;
	return write_response(r, 500, body, o.len);
}

static const char *
reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 409: return "Conflict";
	case 410: return "Gone";
	case 413: return "Payload Too Large";
	case 415: return "Unsupported Media Type";
	case 429: return "Too Many Requests";
	case 503: return "Service Unavailable";
	default: return "Internal Server Error";
	}
}

/* The length of s once json-c has escaped it (plain, '/' not escaped). */
static size_t
escaped_len(const char *s, size_t len)
{
	size_t	 i, n = 0;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\' || c == '\b' || c == '\n' || c == '\r' ||
		    c == '\t' || c == '\f')
			n += 2;
		else if (c < 0x20)
			n += 6;
		else
			n++;
	}
	return n;
}

/*
 * The length of o's plain serialisation (json_plain_put(), the bytes json-c
 * writes): bl_json_text() allocates it once. SIZE_MAX for what this does not
 * write (doubles: no answer holds one).
 */
static size_t
json_plain_len(json_object *o)
{
	size_t	 n, v, i, len;
	char	 num[32];

	switch (json_object_get_type(o)) {
	case json_type_null:
		return 4;
	case json_type_boolean:
		return json_object_get_boolean(o) ? 4 : 5;
	case json_type_int:
		return (size_t)snprintf(num, sizeof(num), "%lld",
		    (long long)json_object_get_int64(o));
	case json_type_string:
		return 2 + escaped_len(json_object_get_string(o),
		    (size_t)json_object_get_string_len(o));
	case json_type_array:
		len = json_object_array_length(o);
		for (n = 2, i = 0; i < len; i++) {
			if ((v = json_plain_len(json_object_array_get_idx(o, i))) == SIZE_MAX)
				return SIZE_MAX;
			n += v + (i > 0);
		}
		return n;
	case json_type_object: {
		n = 2;
		i = 0;
		json_object_object_foreach(o, k, val) {
			if ((v = json_plain_len(val)) == SIZE_MAX)
				return SIZE_MAX;
			n += (i++ > 0) + 3 + escaped_len(k, strlen(k)) + v;
		}
		return n;
	}
	default:
		return SIZE_MAX;
	}
}

/* Writes s (len bytes) escaped as json-c's plain output does; returns the end. */
static char *
escaped_put(char *p, const char *s, size_t len)
{
	static const char	 hex[] = "0123456789abcdef";
	size_t			 i;
	unsigned char		 c;

	for (i = 0; i < len; i++) {
		switch (c = (unsigned char)s[i]) {
		case '"':  *p++ = '\\'; *p++ = '"'; break;
		case '\\': *p++ = '\\'; *p++ = '\\'; break;
		case '\b': *p++ = '\\'; *p++ = 'b'; break;
		case '\n': *p++ = '\\'; *p++ = 'n'; break;
		case '\r': *p++ = '\\'; *p++ = 'r'; break;
		case '\t': *p++ = '\\'; *p++ = 't'; break;
		case '\f': *p++ = '\\'; *p++ = 'f'; break;
		default:
			if (c < 0x20) {
				memcpy(p, "\\u00", 4);
				p += 4;
				*p++ = hex[c >> 4];
				*p++ = hex[c & 0xf];
			} else
				*p++ = (char)c;
		}
	}
	return p;
}

/* Writes o as json_plain_len() counts it (the bytes json-c would); returns the end. */
static char *
json_plain_put(char *p, json_object *o)
{
	size_t	 i, len;
	char	 num[32];
	int	 n;

	switch (json_object_get_type(o)) {
	case json_type_null:
		memcpy(p, "null", 4);
		return p + 4;
	case json_type_boolean:
		n = json_object_get_boolean(o);
		memcpy(p, n ? "true" : "false", n ? 4 : 5);
		return p + (n ? 4 : 5);
	case json_type_int:
		n = snprintf(num, sizeof(num), "%lld", (long long)json_object_get_int64(o));
		memcpy(p, num, (size_t)n);
		return p + n;
	case json_type_string:
		*p++ = '"';
		p = escaped_put(p, json_object_get_string(o),
		    (size_t)json_object_get_string_len(o));
		*p++ = '"';
		return p;
	case json_type_array:
		*p++ = '[';
		len = json_object_array_length(o);
		for (i = 0; i < len; i++) {
			if (i > 0)
				*p++ = ',';
			p = json_plain_put(p, json_object_array_get_idx(o, i));
		}
		*p++ = ']';
		return p;
	case json_type_object: {
		*p++ = '{';
		i = 0;
		json_object_object_foreach(o, k, val) {
			if (i++ > 0)
				*p++ = ',';
			*p++ = '"';
			p = escaped_put(p, k, strlen(k));
			*p++ = '"';
			*p++ = ':';
			p = json_plain_put(p, val);
		}
		*p++ = '}';
		return p;
	}
	default:
		return p;	/* json_plain_len() refused it */
	}
}

/*
 * The plain JSON text of o (as json-c writes it with JSON_C_TO_STRING_PLAIN
 * | JSON_C_TO_STRING_NOSLASHESCAPE) in one block of its exact size, never
 * grown: an answer may hold a decryption key or plaintext, and json-c's own
 * serialisation grows its buffer by realloc, which frees the old copies
 * unwiped. Release it with bl_free_wipe(text, *len + 1). NULL when memory
 * runs out or o holds a value this does not write (a double).
 */
char *
bl_json_text(json_object *o, size_t *len)
{
	size_t	 want = json_plain_len(o);
	char	*t, *end;

	*len = 0;
	if (want == SIZE_MAX || (t = malloc(want + 1)) == NULL)
		return NULL;
	end = json_plain_put(t, o);
	if ((size_t)(end - t) != want) {	/* cannot be: json_plain_len() counts these bytes */
		bl_free_wipe(t, want + 1);
		return NULL;
	}
	*end = '\0';
	*len = want;
	return t;
}

/*
 * Logs the store's reason for a failure that is the server's fault (busy,
 * unavailable, internal) and passes e on: what the handlers wrap every
 * store call in.
 */
enum bl_err
bl_req_logged(struct bl_req *r, enum bl_err e)
{
	if (r->store != NULL && (e == BL_ERR_STORE_BUSY || e == BL_ERR_STORE_UNAVAILABLE ||
	    e == BL_ERR_INTERNAL || e == BL_ERR_RATE_LIMIT_UNAVAILABLE))
		bl_log(r, "database: %s", bl_store_error(r->store));
	return e;
}

/*
 * The one way a handler answers: with body, a JSON object it built (failed:
 * building it failed, body may be NULL), which this takes, wipes and frees.
 * BL_OK, or BL_ERR_INTERNAL unanswered when it could not be built or
 * serialised: the handler undoes what the answer was to report, if anything
 * (a key or a webhook whose secret nobody saw), and returns it; the error
 * answer then carries the hint recorded (bl_req_fail(): "a view was used").
 * Its strings are wiped: an answer may hold an API key or a signing secret.
 */
enum bl_err
bl_respond_json(struct bl_req *r, int status, json_object *body, int failed)
{
	char	*js = NULL;
	size_t	 jlen = 0;

	if (!failed && (js = bl_json_text(body, &jlen)) != NULL)
		bl_respond_text(r, status, js, jlen);
	if (body != NULL)
		bl_json_wipe(body);
	json_object_put(body);
	if (js == NULL)
		return BL_ERR_INTERNAL;
	bl_free_wipe(js, jlen + 1);
	return BL_OK;
}

/* Adds v under k unless an earlier step failed (bad); takes v either way. */
static int
take(json_object *o, const char *k, json_object *v, int bad)
{
	if (bad || k == NULL) {
		json_object_put(v);
		return bad;
	}
	return bl_json_add(o, k, v) != 0;
}

/*
 * Answers 200 {success: true (if success), k: v, k2: v2} (k2, or both, may
 * be NULL); takes v and v2 whatever happens.
 */
enum bl_err
bl_respond_fields(struct bl_req *r, int success, const char *k, json_object *v,
    const char *k2, json_object *v2)
{
	json_object	*o = json_object_new_object();
	int		 bad;

	bad = o == NULL || (success && bl_json_add(o, "success", json_object_new_boolean(1)));
	bad = take(o, k, v, bad);
	bad = take(o, k2, v2, bad);
	return bl_respond_json(r, 200, o, bad);
}

/*
 * Writes one whole error response with body as JSON (bl_json_text()). If the
 * body cannot be serialised, the fallback 500 goes out instead. 0 on success.
 */
static int
respond_error_json(struct bl_req *r, int status, json_object *body)
{
	char	*js;
	size_t	 jlen;
	int	 rc;

	if (r->responded)
		return 0;
	if ((js = bl_json_text(body, &jlen)) == NULL) {
		r->responded = 1;
		bl_log(r, "cannot serialise the response");
		return write_fallback(r);
	}
	rc = bl_respond_text(r, status, js, jlen);
	bl_free_wipe(js, jlen + 1);
	return rc;
}

/*
 * Writes one whole response whose JSON body was made ahead (bl_json_text()),
 * so that nothing can fail between a commit and the answer: this allocates
 * nothing. 0 on success.
 */
int
bl_respond_text(struct bl_req *r, int status, const char *js, size_t jlen)
{
	if (r->responded)
		return 0;
	r->responded = 1;
	return write_response(r, status, js, jlen);
}

/* Writes the JSON error body for e: {error, code, hint, requestId}. */
int
bl_respond_error(struct bl_req *r, enum bl_err e)
{
	const struct bl_error_info	*ei = bl_error_info(e);
	json_object			*o;
	char				 hint[sizeof(r->hint)];
	int				 rc;

	if (ei->status == 503 && r->retry_after == 0)
		r->retry_after = e == BL_ERR_RATE_LIMIT_UNAVAILABLE ? 60 : 5;
	if ((o = json_object_new_object()) == NULL ||
	    bl_json_add(o, "error", json_object_new_string(ei->message)) ||
	    bl_json_add(o, "code", json_object_new_string(ei->code)) ||
	    bl_json_add(o, "hint",
	    json_object_new_string(r->hint[0] != '\0' ? r->hint :
	    r->ctx != NULL && r->ctx->hint[0] != '\0' && r->ctx->hint_err == e ? r->ctx->hint :
	    bl_error_hint(e, r->ctx != NULL ? &r->ctx->cfg.limits : NULL,
	    hint, sizeof(hint)))) ||
	    bl_json_add(o, "requestId", json_object_new_string(r->id))) {
		json_object_put(o);
		if (r->responded)
			return -1;
		r->responded = 1;
		return write_fallback(r);
	}
	rc = respond_error_json(r, ei->status, o);
	json_object_put(o);
	return rc;
}

/*
 * The JSON error body for a request whose struct bl_req is already gone (a
 * FastCGI batch whose commit failed after the answers were made): the same
 * output path, with the request id and hint given.
 */
int
bl_respond_detached(const struct bl_io *io, const char *id, enum bl_err e,
    const char *hint)
{
	struct bl_req	 r;

	memset(&r, 0, sizeof(r));
	r.io = io;
	snprintf(r.id, sizeof(r.id), "%s", id);
	snprintf(r.hint, sizeof(r.hint), "%s", hint);
	return bl_respond_error(&r, e);
}

/*
 * Reads and discards what is left of the request body (up to 64 MiB), so that
 * a server that streams the body (Apache mod_cgid, fcgiwrap) delivers the
 * answer instead of resetting the connection on an unread body.
 */
void
bl_req_drain(struct bl_req *r)
{
	const char	*cl = bl_req_env(r, "CONTENT_LENGTH");
	char		 buf[16384];
	size_t		 left = 0, n, used = 0;

	if (cl == NULL || *cl == '\0' || strspn(cl, "0123456789") != strlen(cl) ||
	    strlen(cl) > 8)
		return;
	for (; *cl != '\0'; cl++)
		left = left * 10 + (size_t)(*cl - '0');
	if (left > 64 * 1024 * 1024)	/* the servers' own limit */
		return;
	left -= r->body_len;	/* what bl_req_read_body() read */
	while (left > 0 && (n = r->io->read(r->io->ctx, buf,
	    left < sizeof(buf) ? left : sizeof(buf))) > 0) {
		left -= n;
		if (n > used)
			used = n;
	}
	bl_wipe(buf, used);
}


/* Keeps in r->rl the window with the fewest requests left (the later reset on a tie). */
static void
note(struct bl_req *r, int64_t limit, int64_t left, int64_t reset)
{
	if (r->rl.set && (left > r->rl.remaining ||
	    (left == r->rl.remaining && reset <= r->rl.reset)))
		return;
	r->rl.set = 1;
	r->rl.limit = limit;
	r->rl.remaining = left;
	r->rl.reset = reset;
}

/*
 * Counts one request against a limit for subject (lib/limit.c) and keeps the
 * tightest window for the X-RateLimit-* headers. Returns BL_OK while the
 * count is within the limit (and the requests left in *remaining, if not
 * NULL), the limit's error with Retry-After and a hint once it is exceeded,
 * and RATE_LIMIT_UNAVAILABLE when the counter cannot be read or written.
 */
enum bl_err
bl_limit_take(struct bl_req *r, enum bl_limit which, const void *subject, size_t len,
    int64_t *remaining)
{
	const struct bl_limit_info	*li = bl_limit_info(which);
	struct bl_usage			 u;
	int64_t				 left;
	enum bl_err			 e;

	if ((e = bl_limit_count(r->ctx, which, subject, len, &u)) != BL_OK)
		return e;
	left = u.count >= u.limit ? 0 : u.limit - u.count;
	note(r, u.limit, left, u.reset);
	if (remaining != NULL)
		*remaining = left;
	if (u.count <= u.limit)
		return BL_OK;
	bl_metrics_limit(r->ctx, which);
	r->retry_after = (long)(r->rl.reset - r->now_ms / 1000);
	if (r->retry_after < 1)
		r->retry_after = 1;
	if (which == BL_LIM_PASSPHRASE)
		return bl_req_fail(r, li->err, "At most %lld passphrase attempts a minute "
		    "are allowed for this secret; try again in %ld seconds.",
		    (long long)li->limit, r->retry_after);
	if (which == BL_LIM_PASSPHRASE_SECRET)
		return bl_req_fail(r, li->err, "At most %lld passphrase attempts an hour "
		    "are allowed for this secret from all addresses together; try again "
		    "in %ld seconds.", (long long)li->limit, r->retry_after);
	if (which == BL_LIM_SIGNIN_ACCOUNT)
		return bl_req_fail(r, li->err, "At most %lld sign-in attempts an hour are "
		    "allowed for this account from all addresses together; try again in %ld "
		    "seconds, or reset the password by e-mail (POST /api/token), which ends "
		    "this wait.", (long long)li->limit, r->retry_after);
	if (which == BL_LIM_SIGNIN || which == BL_LIM_SIGNIN_IP || which == BL_LIM_SIGNUP)
		return bl_req_fail(r, li->err, "At most %lld %s an hour are allowed %s; "
		    "try again in %ld seconds.", (long long)li->limit,
		    which == BL_LIM_SIGNUP ? "sign-ups" : "sign-in attempts",
		    which == BL_LIM_SIGNIN ? "for this account from this address" :
		    "from this address", r->retry_after);
	return bl_req_fail(r, li->err, "%s allows %lld requests per %s; try again in "
	    "%ld seconds (see Retry-After and X-RateLimit-Reset).",
	    which == BL_LIM_KEY_HOUR ? "This account's API keys" :
	    which == BL_LIM_NET48_CREATE ? "This IPv6 network (/48, all its /64s together)" :
	    which <= BL_LIM_IP_BURN || strncmp(li->name, "ip:", 3) == 0 ?
	    "This address" : "This account",
	    (long long)li->limit, li->window == 60 ? "minute" : li->window == 3600 ?
	    "hour" : "day", r->retry_after);
}

/*
 * Counts the request against the per-IP daily limit of its operation; a
 * creation from IPv6 also against its /48's (docs/API.md, "Rate limits").
 */
enum bl_err
bl_limit_request(struct bl_req *r, enum bl_limit which)
{
	char		 net[BL_IP_TEXT];
	enum bl_err	 e;

	if ((e = bl_limit_take(r, which, r->client_ip, strlen(r->client_ip), NULL)) != BL_OK ||
	    which != BL_LIM_IP_CREATE)
		return e;
	bl_client_net48(r->client_ip, net);
	if (strcmp(net, r->client_ip) == 0)
		return BL_OK;	/* IPv4, or "unknown" */
	return bl_limit_take(r, BL_LIM_NET48_CREATE, net, strlen(net), NULL);
}

/*
 * Counts a creation attributed to an account: with an API key against the
 * account's shared hourly key limit, else (a signed-in session) against the
 * account's hourly and daily limits. Anonymous creation (account 0) is free.
 */
enum bl_err
bl_limit_creator(struct bl_req *r, int64_t account_id, int by_key)
{
	char		 id[24];
	int		 n;
	enum bl_err	 e;

	if (account_id <= 0)
		return BL_OK;
	n = snprintf(id, sizeof(id), "%lld", (long long)account_id);
	if (by_key)
		return bl_limit_take(r, BL_LIM_KEY_HOUR, id, (size_t)n, NULL);
	if ((e = bl_limit_take(r, BL_LIM_SESSION_HOUR, id, (size_t)n, NULL)) != BL_OK)
		return e;
	return bl_limit_take(r, BL_LIM_SESSION_DAY, id, (size_t)n, NULL);
}
