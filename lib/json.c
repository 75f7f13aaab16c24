/* json.c: parsing request bodies and validating the create request against its table. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include <json-c/printbuf.h>

#include "internal.h"

/*
 * json-c 0.16 reports success when an allocation fails while it adds a member
 * or an element, and leaves that value out (0.17 reports a memory error). A
 * body that lost its "passphrase" would store an unprotected secret, so the
 * values of the text json-c accepted (well-formed, at most 32 deep) are counted
 * and compared with the tree: fewer in the tree is a key repeated in one
 * object (refused) or a value lost to memory (500). The count is taken before
 * the tokener reads the body (a large body is released as it is read), so
 * the scan also meets text that is not JSON: it always moves forward and
 * stops 64 deep, and its count is used only when the tokener accepted it.
 *
 * A key is repeated when two keys of one object are the same as json-c keeps
 * them: after unescaping ("pass\u0070hrase" is "passphrase"; a lone surrogate
 * is U+FFFD) and up to a NUL (json-c's keys are C strings). Every key of an
 * object is compared, however many: they are sorted, then neighbours compared.
 *
 * The scan also notes the first thing json-c 0.16 takes even in strict mode
 * that is not JSON (RFC 8259, RFC 3629): NaN, Infinity, a number ending in its
 * point, a control character not escaped in a string, UTF-8 that is overlong,
 * a surrogate or past U+10FFFF. A body the tokener accepted is refused for it.
 */
struct scan_key {
	const char	*p;	/* the raw inside of the key's string */
	size_t		 n;
};

struct scan {
	const char	*s;
	size_t		 len, i, values;
	int		 repeated, nomem;
	struct scan_key	 first;	/* the first key found repeated */
	const char	*lax;	/* the first thing that is not JSON, or NULL */
	size_t		 lax_at;	/* and its byte */
};

static int
scan_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Notes what is not JSON at byte at, unless something before it was. */
static void
scan_lax(struct scan *sc, size_t at, const char *what)
{
	if (sc->lax == NULL) {
		sc->lax = what;
		sc->lax_at = at;
	}
}

/* The length of the UTF-8 character at sc->i (1 if it is not well-formed, noted). */
static size_t
scan_utf8(struct scan *sc)
{
	unsigned char	 c = (unsigned char)sc->s[sc->i];
	size_t		 n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;

	if (n > sc->len - sc->i || bl_utf8_codepoints(sc->s + sc->i, n) != 1) {
		scan_lax(sc, sc->i, "invalid utf-8");
		return 1;
	}
	return n;
}

/* Steps over the string at sc->i (its opening quote); [*a, *b) is its raw inside. */
static void
scan_string(struct scan *sc, size_t *a, size_t *b)
{
	unsigned char	 c;

	sc->i++;
	*a = sc->i;
	while (sc->i < sc->len && (c = (unsigned char)sc->s[sc->i]) != '"') {
		if (c == '\\')
			sc->i += 2;
		else if (c >= 0x80)
			sc->i += scan_utf8(sc);
		else {
			if (c < 0x20)
				scan_lax(sc, sc->i, "a control character not escaped in a string");
			sc->i++;
		}
	}
	if (sc->i > sc->len)
		sc->i = sc->len;
	*b = sc->i;
	sc->i++;
}

/* The value of the 4 hex digits at p[*i, *i + 4), or -1; *i moves past them. */
static long
key_hex4(const struct scan_key *k, size_t *i)
{
	long	 v = 0;
	size_t	 j;
	char	 c;

	if (k->n - *i < 4)
		return -1;
	for (j = 0; j < 4; j++) {
		c = k->p[*i + j];
		if (c >= '0' && c <= '9')
			v = v * 16 + (c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v * 16 + (c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v = v * 16 + (c - 'A' + 10);
		else
			return -1;
	}
	*i += 4;
	return v;
}

/*
 * The code point of the next character of a key as json-c decodes it, from
 * k->p[*i]: raw UTF-8 and escapes alike. -1 at the end of the key or at a NUL.
 */
static long
key_next(const struct scan_key *k, size_t *i)
{
	unsigned char	 c;
	long		 cp, lo;
	size_t		 save, len, j;

	if (*i >= k->n)
		return -1;
	c = (unsigned char)k->p[(*i)++];
	if (c == '\\' && *i < k->n) {
		c = (unsigned char)k->p[(*i)++];
		switch (c) {
		case 'b': return '\b';
		case 'f': return '\f';
		case 'n': return '\n';
		case 'r': return '\r';
		case 't': return '\t';
		case 'u': break;
		default: return c;	/* \" \\ \/ */
		}
		if ((cp = key_hex4(k, i)) < 0)
			return -1;	/* not JSON: the tokener refuses it */
		if (cp >= 0xd800 && cp <= 0xdbff) {
			save = *i;
			if (k->n - *i >= 6 && k->p[*i] == '\\' && k->p[*i + 1] == 'u') {
				*i += 2;
				lo = key_hex4(k, i);
				if (lo >= 0xdc00 && lo <= 0xdfff)
					return 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			}
			*i = save;
			return 0xfffd;
		}
		if (cp >= 0xdc00 && cp <= 0xdfff)
			return 0xfffd;
		return cp == 0 ? -1 : cp;
	}
	if (c == 0)
		return -1;
	if (c < 0x80)
		return c;
	/* Raw UTF-8 (the scan checks it is well-formed). */
	len = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : 1;
	cp = c & (0x3f >> len);
	for (j = 0; j < len && *i < k->n; j++)
		cp = (cp << 6) | ((unsigned char)k->p[(*i)++] & 0x3f);
	return cp;
}

/* Orders two keys by their decoded characters. */
static int
key_cmp(const void *va, const void *vb)
{
	const struct scan_key	*a = va, *b = vb;
	size_t			 i = 0, j = 0;
	long			 ca, cb;

	do {
		ca = key_next(a, &i);
		cb = key_next(b, &j);
	} while (ca == cb && ca >= 0);
	return ca < cb ? -1 : ca > cb;
}

/* Notes whether two keys of the object are the same (it sorts keys[]). */
static void
scan_repeats(struct scan *sc, struct scan_key *keys, size_t nkeys)
{
	size_t	 k;

	if (sc->repeated || nkeys < 2)
		return;
	qsort(keys, nkeys, sizeof(keys[0]), key_cmp);
	for (k = 1; k < nkeys; k++)
		if (key_cmp(&keys[k - 1], &keys[k]) == 0) {
			sc->repeated = 1;
			sc->first = keys[k];
			return;
		}
}

/* 1 if s[0, n) is a JSON literal or number: no NaN, no Infinity, no "1.". */
static int
scalar_valid(const char *s, size_t n)
{
	size_t	 i = 0, d;

	if ((n == 4 && (memcmp(s, "true", 4) == 0 || memcmp(s, "null", 4) == 0)) ||
	    (n == 5 && memcmp(s, "false", 5) == 0))
		return 1;
	if (i < n && s[i] == '-')
		i++;
	for (d = i; i < n && s[i] >= '0' && s[i] <= '9'; i++)
		continue;
	if (i == d || (s[d] == '0' && i - d > 1))
		return 0;
	if (i < n && s[i] == '.') {
		for (d = ++i; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			continue;
		if (i == d)
			return 0;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		if (++i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		for (d = i; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			continue;
		if (i == d)
			return 0;
	}
	return i == n;
}

/* Counts the value at sc->i and everything inside it. */
static void
scan_value(struct scan *sc, int depth)
{
	struct scan_key	 stack[32], *keys = stack, *grown;
	size_t		 nkeys = 0, cap = 32, a, b, start;
	char		 open;

	while (sc->i < sc->len && scan_space(sc->s[sc->i]))
		sc->i++;
	if (sc->i >= sc->len)
		return;
	if (depth > 64) {
		sc->i = sc->len;	/* deeper than the tokener takes: it fails */
		return;
	}
	sc->values++;
	open = sc->s[sc->i];
	if (open == '"') {
		scan_string(sc, &a, &b);
		return;
	}
	if (open != '{' && open != '[') {
		start = sc->i;
		while (sc->i < sc->len && !scan_space(sc->s[sc->i]) &&
		    sc->s[sc->i] != ',' && sc->s[sc->i] != ']' && sc->s[sc->i] != '}')
			sc->i++;
		if (!scalar_valid(sc->s + start, sc->i - start))
			scan_lax(sc, start, "NaN, Infinity or a number ending in its point, "
			    "none of them JSON,");
		return;
	}
	for (sc->i++; sc->i < sc->len;) {
		if (scan_space(sc->s[sc->i]) || sc->s[sc->i] == ',') {
			sc->i++;
			continue;
		}
		if (sc->s[sc->i] == '}' || sc->s[sc->i] == ']') {
			sc->i++;
			break;
		}
		if (open == '{') {
			scan_string(sc, &a, &b);
			if (nkeys == cap && !sc->nomem) {
				/* At most one key in 4 bytes of body: this ends. */
				grown = reallocarray(keys == stack ? NULL : keys, cap * 2, sizeof(*keys));
				if (grown == NULL)
					sc->nomem = 1;
				else {
					if (keys == stack)
						memcpy(grown, stack, sizeof(stack));
					keys = grown;
					cap *= 2;
				}
			}
			if (nkeys < cap) {
				keys[nkeys].p = sc->s + a;
				keys[nkeys++].n = b - a;
			}
			while (sc->i < sc->len && sc->s[sc->i] != ':')
				sc->i++;
			sc->i++;
		}
		start = sc->i;
		scan_value(sc, depth + 1);
		if (sc->i == start)
			sc->i++;	/* not JSON, which the tokener reports */
	}
	scan_repeats(sc, keys, nkeys);
	if (keys != stack)
		free(keys);
}

/* The number of values in a parsed tree, itself included. */
static size_t
tree_values(json_object *o)
{
	size_t	 n = 1, i, len;

	switch (json_object_get_type(o)) {
	case json_type_object: {
		json_object_object_foreach(o, k, v) {
			(void)k;
			n += tree_values(v);
		}
		break;
	}
	case json_type_array:
		len = json_object_array_length(o);
		for (i = 0; i < len; i++)
			n += tree_values(json_object_array_get_idx(o, i));
		break;
	default:
		break;
	}
	return n;
}

/* 1 if the body, white space aside, is the literal null. */
static int
is_null_literal(const char *s, size_t len)
{
	while (len > 0 && scan_space(*s))
		s++, len--;
	while (len > 0 && scan_space(s[len - 1]))
		len--;
	return len == 4 && memcmp(s, "null", 4) == 0;
}

/*
 * A body larger than this is fed to the tokener in pieces of this size, and
 * each piece it has read is wiped and its whole pages handed back to the
 * kernel before the next: while json-c copies a 2 MiB secret's ciphertext
 * string out of its buffer, the body is not also held whole (client-side
 * create of 2 MiB: three copies of 2.7 MiB at the peak before, two after).
 */
#define PARSE_PIECE	(256 * 1024)

/* Wipes body[*done, upto) and returns the pages wholly inside it. */
static void
release_read(char *body, size_t *done, size_t upto)
{
	uintptr_t	 page = (uintptr_t)sysconf(_SC_PAGESIZE), lo, hi;

	if (upto <= *done)
		return;
	bl_wipe(body + *done, upto - *done);
	if (page != 0 && (page & (page - 1)) == 0) {
		/* Rounded inward: never the page of the allocator's header before body. */
		lo = ((uintptr_t)body + *done + page - 1) & ~(page - 1);
		hi = ((uintptr_t)body + upto) & ~(page - 1);
		if (hi > lo)
			madvise((void *)lo, hi - lo, MADV_DONTNEED);
	}
	*done = upto;
}

/* Refuses the body for a repeated key, naming it when it is short printable ASCII. */
static void
repeated_key(struct bl_req *r, const struct scan_key *k)
{
	char	 name[41];
	size_t	 i = 0, n = 0;
	long	 c;

	while ((c = key_next(k, &i)) >= 0x20 && c < 0x7f && n < sizeof(name) - 1)
		name[n++] = (char)c;
	name[n] = '\0';
	if (c < 0 && n > 0)
		bl_req_fail(r, BL_ERR_INVALID_JSON, "The key \"%s\" appears twice in one object "
		    "(keys are compared after unescaping); send each key once.", name);
	else
		bl_req_fail(r, BL_ERR_INVALID_JSON, "A key appears twice in one object "
		    "(keys are compared after unescaping); send each key once.");
}

/*
 * Parses r->body as one JSON object (strict, UTF-8 checked, nothing after it)
 * into r->json, and consumes the body: it is wiped and freed whatever the
 * outcome.
 */
enum bl_err
bl_json_parse(struct bl_req *r)
{
	struct json_tokener	*tok = NULL;
	json_object		*o = NULL;
	size_t			 i, off = 0, n, end = 0, done = 0, total = r->body_len + 1;
	struct scan		 sc;
	enum bl_err		 e = BL_ERR_INVALID_JSON;
	int			 pieces;

	if (r->body_len > INT32_MAX || (tok = json_tokener_new_ex(32)) == NULL) {
		e = BL_ERR_INTERNAL;
		goto out;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	/*
	 * The tokener gathers each string in its buffer, and json-c 0.16 drops
	 * a piece it cannot append when the buffer fails to grow: a text or a
	 * passphrase would be stored shortened, without an error. Sized here
	 * for the longest string the body can hold, the buffer never grows
	 * while parsing.
	 */
	if (tok->pb == NULL || printbuf_memset(tok->pb, 0, 0, (int)r->body_len + 1) < 0) {
		bl_log(r, "cannot allocate the JSON parser's buffer (out of memory?)");
		e = BL_ERR_INTERNAL;
		goto out;
	}
	printbuf_reset(tok->pb);
	/* The values of the text, counted while the body is whole (see above). */
	memset(&sc, 0, sizeof(sc));
	sc.s = r->body;
	sc.len = r->body_len;
	scan_value(&sc, 0);
	/*
	 * In pieces only what opens as an object: its bytes before the end are
	 * never looked at again (a bare null is judged on its text below).
	 */
	for (i = 0; i < r->body_len && scan_space(r->body[i]); i++)
		continue;
	pieces = r->body_len > PARSE_PIECE && i < r->body_len && r->body[i] == '{';
	/* The NUL after the body ends the input, so a bare literal completes. */
	do {
		n = total - off;
		/*
		 * json-c 0.16 checks UTF-8 afresh in each call, so a piece never
		 * ends inside a character (at most three continuation bytes).
		 */
		if (pieces && n > PARSE_PIECE)
			for (n = PARSE_PIECE; n > PARSE_PIECE - 4 &&
			    ((unsigned char)r->body[off + n] & 0xc0) == 0x80; n--)
				continue;
		o = json_tokener_parse_ex(tok, r->body + off, (int)n);
		end = off + json_tokener_get_parse_end(tok);
		off += n;
		if (o != NULL || json_tokener_get_error(tok) != json_tokener_continue)
			break;
		if (pieces)
			release_read(r->body, &done, off);
	} while (off < total);
	if (o == NULL) {
		/* What the tokener read: it stops at a NUL, the body may go on. */
		if (json_tokener_get_error(tok) == json_tokener_success &&
		    (pieces || !is_null_literal(r->body, end < r->body_len ? end : r->body_len))) {
			/* json-c 0.16 says nothing else when it runs out of memory. */
			bl_log(r, "the JSON parser returned nothing (out of memory?)");
			e = BL_ERR_INTERNAL;
		} else if (json_tokener_get_error(tok) == json_tokener_success)
			bl_req_fail(r, e, "The body must be a JSON object ({...} with the members docs/API.md lists for this request), not null.");
		else if (json_tokener_get_error(tok) == json_tokener_continue)
			bl_req_fail(r, e, "The JSON body ends too early.");
		else
			bl_req_fail(r, e, "The body is not valid JSON (%s at byte %zu).",
			    json_tokener_error_desc(json_tokener_get_error(tok)), end);
		goto out;
	}
	if (sc.lax != NULL) {
		bl_req_fail(r, e, "The body is not valid JSON (%s at byte %zu).", sc.lax, sc.lax_at);
		goto out;
	}
	for (i = end; i < r->body_len; i++)
		if (r->body[i] != ' ' && r->body[i] != '\t' && r->body[i] != '\r' &&
		    r->body[i] != '\n') {
			bl_req_fail(r, e, "Unexpected data after the JSON object at byte %zu.", i);
			goto out;
		}
	if (!json_object_is_type(o, json_type_object)) {
		bl_req_fail(r, e, "The body must be a JSON object ({...} with the members docs/API.md lists for this request).");
		goto out;
	}
	if (sc.values != tree_values(o)) {
		if (sc.repeated) {
			repeated_key(r, &sc.first);
			goto out;
		}
		if (sc.nomem) {
			bl_log(r, "cannot allocate the list of an object's keys (out of memory)");
			e = BL_ERR_INTERNAL;
			goto out;
		}
		bl_log(r, "the JSON parser lost a value (out of memory?)");
		e = BL_ERR_INTERNAL;
		goto out;
	}
	r->json = o;
	o = NULL;
	e = BL_OK;
out:
	if (o != NULL) {
		bl_json_wipe(o);
		json_object_put(o);
	}
	if (tok != NULL) {
		/* The tokener's scratch buffer held the last string it parsed. */
		if (tok->pb != NULL && tok->pb->buf != NULL)
			bl_wipe(tok->pb->buf, (size_t)tok->pb->size);
		json_tokener_free(tok);
	}
	/* The tree holds everything now: a 2 MiB secret need not be kept twice. */
	if (r->body != NULL) {
		bl_wipe(r->body + done, total - done);
		free(r->body);
		r->body = NULL;
	}
	return e;
}

/* Overwrites every string in a JSON tree (they may hold plaintext or a passphrase). */
void
bl_json_wipe(json_object *o)
{
	size_t	 i, n;

	switch (json_object_get_type(o)) {
	case json_type_string:
		bl_wipe((char *)json_object_get_string(o), (size_t)json_object_get_string_len(o));
		break;
	case json_type_array:
		n = json_object_array_length(o);
		for (i = 0; i < n; i++)
			bl_json_wipe(json_object_array_get_idx(o, i));
		break;
	case json_type_object: {
		json_object_object_foreach(o, k, v) {
			(void)k;
			bl_json_wipe(v);
		}
		break;
	}
	default:
		break;
	}
}

/*
 * Adds v under k to object o; -1 on failure (v is released). k must outlive o
 * (every name here is a string literal): json-c keeps the pointer and copies
 * nothing. A copied name leaks in json-c 0.16 when the object's table must
 * grow (its 11th member, and on) and that allocation fails; a kept one has
 * nothing to leak, whatever the number of members.
 */
int
bl_json_add(json_object *o, const char *k, json_object *v)
{
	if (v == NULL)
		return -1;
	if (json_object_object_add_ex(o, k, v, JSON_C_OBJECT_ADD_CONSTANT_KEY) != 0) {
		json_object_put(v);
		return -1;
	}
	return 0;
}

/* Adds a JSON null under k (a name that outlives o, as bl_json_add()); -1 on failure. */
int
bl_json_add_null(json_object *o, const char *k)
{
	return json_object_object_add_ex(o, k, NULL, JSON_C_OBJECT_ADD_CONSTANT_KEY) != 0 ? -1 : 0;
}

/* Adds ms as an ISO 8601 UTC time under k, or null for a negative ms. */
int
bl_json_add_time(json_object *o, const char *k, int64_t ms)
{
	char	 buf[64];

	if (ms < 0)
		return bl_json_add_null(o, k);
	return bl_json_add(o, k, json_object_new_string(bl_iso8601(ms, buf)));
}

/*
 * A stored item as JSON: a plain string, or {ciphertext, iv}; NULL on failure.
 * The item's bytes are released once encoded (a 2 MiB secret is not held raw,
 * encoded and in the JSON tree at the same time).
 */
json_object *
bl_json_item(struct bl_item *it)
{
	json_object	*o = NULL, *s;
	char		*ct = NULL, *iv = NULL;
	size_t		 n;

	if (!it->enc)
		return json_object_new_string_len((const char *)it->buf, (int)it->len);
	if ((ct = bl_b64_encode(it->buf, it->len, &n)) == NULL ||
	    (iv = bl_b64_encode(it->iv, BL_IV_BYTES, NULL)) == NULL ||
	    (o = json_object_new_object()) == NULL)
		goto fail;
	bl_free_wipe(it->buf, it->len);
	it->buf = NULL;
	it->len = 0;
	if ((s = json_object_new_string_len(ct, (int)n)) == NULL)
		goto fail;
	if (json_object_object_add_ex(o, "ciphertext", s, JSON_C_OBJECT_ADD_CONSTANT_KEY) != 0) {
		json_object_put(s);	/* not taken on failure */
		goto fail;
	}
	if ((s = json_object_new_string(iv)) == NULL)
		goto fail;
	if (json_object_object_add_ex(o, "iv", s, JSON_C_OBJECT_ADD_CONSTANT_KEY) != 0) {
		json_object_put(s);
		goto fail;
	}
	free(ct);
	free(iv);
	return o;
fail:
	json_object_put(o);
	free(ct);
	free(iv);
	return NULL;
}

/*
 * Adds a secret's content under "text" (null when it has none) and "files"
 * ({filename, mimeType, data} each); -1 on failure. Its items are released
 * as they are encoded (bl_json_item()).
 */
int
bl_json_add_content(json_object *o, struct bl_content *c)
{
	json_object	*files, *f;
	size_t		 i;

	if ((c->has_text ? bl_json_add(o, "text", bl_json_item(&c->text)) :
	    bl_json_add_null(o, "text")) ||
	    bl_json_add(o, "files", files = json_object_new_array()))
		return -1;
	for (i = 0; i < c->nfiles; i++) {
		if ((f = json_object_new_object()) == NULL ||
		    json_object_array_add(files, f) != 0) {
			json_object_put(f);
			return -1;
		}
		if (bl_json_add(f, "filename", bl_json_item(&c->files[i].name)) ||
		    bl_json_add(f, "mimeType", bl_json_item(&c->files[i].mime)) ||
		    bl_json_add(f, "data", bl_json_item(&c->files[i].data)))
			return -1;
	}
	return 0;
}

void
bl_create_free(struct bl_create *c)
{
	bl_content_free(&c->content);
	bl_wipe(c->dkey, sizeof(c->dkey));
}

/* Which mode a JSON value claims: 1 server-side (string), 0 client-side (object), -1 neither. */
static int
mode_of(json_object *v)
{
	if (json_object_is_type(v, json_type_string))
		return 1;
	if (json_object_is_type(v, json_type_object))
		return 0;
	return -1;
}

/*
 * Reads keyCommitment (docs/API.md "Key commitment") into c: absent or null
 * is none; else 43 url-safe base64 characters of 32 bytes, canonical, and
 * only in client-side mode (in server-side mode the server makes the key and
 * its commitment).
 */
static enum bl_err
parse_commitment(struct bl_req *r, json_object *o, struct bl_create *c)
{
	const char	*s;
	unsigned char	*raw;
	size_t		 len, n;
	enum bl_err	 e;

	if ((e = bl_field_string(&r->ctx->cfg.limits, BL_F_KEY_COMMITMENT, o, &s,
	    &len)) != BL_OK || s == NULL)
		return e;
	if (c->server_side)
		return bl_req_fail(r, BL_ERR_INVALID_KEY_COMMITMENT, "keyCommitment is "
		    "for client-side mode only: in server-side mode the server makes the "
		    "key and its commitment. Leave it out.");
	if ((raw = bl_b64url_decode(s, len, &n)) == NULL)
		return errno == ENOMEM ? BL_ERR_INTERNAL : BL_ERR_INVALID_KEY_COMMITMENT;
	if (n == BL_COMMIT_BYTES) {
		memcpy(c->commit, raw, BL_COMMIT_BYTES);
		c->has_commit = 1;
	}
	free(raw);
	return c->has_commit ? BL_OK : BL_ERR_INVALID_KEY_COMMITMENT;
}

/*
 * Fails with the size error of field f: what is larger than f's bound, as
 * r->ctx->cfg.limits has it.
 */
static enum bl_err
too_large(struct bl_req *r, enum bl_field f, const char *what)
{
	char	 bound[96];

	bl_hint_format(&r->ctx->cfg.limits, f == BL_F_SEALED_META ?
	    "${sealedMeta.max:size} limit (${sealedMeta.max} bytes of plaintext)" :
	    f == BL_F_NOTE ? "${note.max:size} limit (${note.max} bytes of plaintext)" :
	    "${content.max:size} limit (${content.max} bytes of plaintext)",
	    bound, sizeof(bound));
	return bl_req_fail(r, bl_field_info(f)->err, "%s is larger than the %s.", what, bound);
}

/*
 * Decodes {ciphertext, iv} into it (ciphertext at least the tag long), its
 * plaintext at most field f's bound less used.
 */
static enum bl_err
parse_enc(struct bl_req *r, json_object *v, const char *what, enum bl_field f,
    size_t used, struct bl_item *it)
{
	json_object	*ct, *iv;
	unsigned char	*ivb = NULL;
	size_t		 n, maxplain = (size_t)r->ctx->cfg.limits.f[f].max - used;

	if (!json_object_object_get_ex(v, "ciphertext", &ct) ||
	    !json_object_is_type(ct, json_type_string))
		return bl_req_fail(r, BL_ERR_INVALID_CIPHERTEXT,
		    "%s.ciphertext must be a base64 string.", what);
	if (!json_object_object_get_ex(v, "iv", &iv) ||
	    !json_object_is_type(iv, json_type_string))
		return bl_req_fail(r, BL_ERR_INVALID_IV,
		    "%s.iv must be base64 of exactly %d bytes.", what, BL_IV_BYTES);
	n = bl_b64_decoded_len(json_object_get_string(ct), (size_t)json_object_get_string_len(ct));
	if (n != SIZE_MAX && n > maxplain + BL_TAG_BYTES)
		return too_large(r, f, what);
	if ((it->buf = bl_b64_decode(json_object_get_string(ct),
	    (size_t)json_object_get_string_len(ct), &it->len)) == NULL && errno == ENOMEM)
		return BL_ERR_INTERNAL;
	if (it->buf == NULL)
		return bl_req_fail(r, BL_ERR_INVALID_CIPHERTEXT,
		    "%s.ciphertext must be canonical standard base64 with padding.", what);
	if (it->len < BL_TAG_BYTES)
		return bl_req_fail(r, BL_ERR_INVALID_CIPHERTEXT,
		    "%s.ciphertext is shorter than the %d-byte AES-GCM tag.", what, BL_TAG_BYTES);
	if ((ivb = bl_b64_decode(json_object_get_string(iv),
	    (size_t)json_object_get_string_len(iv), &n)) == NULL && errno == ENOMEM)
		return BL_ERR_INTERNAL;
	if (ivb == NULL || n != BL_IV_BYTES) {
		free(ivb);
		return bl_req_fail(r, BL_ERR_INVALID_IV,
		    "%s.iv must be canonical base64 of exactly %d bytes (%d characters).", what,
		    BL_IV_BYTES, (BL_IV_BYTES + 2) / 3 * 4);
	}
	memcpy(it->iv, ivb, BL_IV_BYTES);
	free(ivb);
	it->enc = 1;
	return BL_OK;
}

/*
 * Decodes one sealed item {ciphertext, iv} (a secret request's note) into it,
 * its plaintext at most field f's bound; the field's error when v is not an
 * object.
 */
enum bl_err
bl_json_sealed(struct bl_req *r, json_object *v, const char *what, enum bl_field f,
    struct bl_item *it)
{
	if (!json_object_is_type(v, json_type_object))
		return bl_req_fail(r, bl_field_info(f)->err, "%s must be {ciphertext, iv}.", what);
	return parse_enc(r, v, what, f, 0, it);
}

/* Copies a plaintext string into it (to be encrypted later, or kept plain). */
static enum bl_err
copy_plain(const char *s, size_t len, struct bl_item *it)
{
	if ((it->buf = malloc(len + 1)) == NULL)
		return BL_ERR_INTERNAL;
	memcpy(it->buf, s, len);
	it->buf[len] = '\0';
	it->len = len;
	it->enc = 0;
	return BL_OK;
}

/*
 * A filename or mimeType (field f): a short string, or (client-side)
 * {ciphertext, iv}; absent or null, dflt unless the table requires it.
 */
static enum bl_err
parse_meta(struct bl_req *r, json_object *v, int server_side, const char *what,
    enum bl_field f, const char *dflt, struct bl_item *it)
{
	const struct bl_bounds	*b = &r->ctx->cfg.limits.f[f];
	const char		*s;
	size_t			 len;

	if (v == NULL || json_object_is_type(v, json_type_null)) {
		if (bl_field_info(f)->null == BL_NULL_INVALID)
			return bl_req_fail(r, BL_ERR_INVALID_FILES, "%s is required.", what);
		return copy_plain(dflt, strlen(dflt), it);
	}
	if (json_object_is_type(v, json_type_object)) {
		if (server_side)
			return bl_req_fail(r, BL_ERR_INVALID_ENCRYPTION_MODE,
			    "%s is encrypted but the request is in server-side mode; send every item one way.", what);
		return parse_enc(r, v, what, BL_F_SEALED_META, 0, it);
	}
	if (!json_object_is_type(v, json_type_string))
		return bl_req_fail(r, BL_ERR_INVALID_FILES,
		    "%s must be a string%s.", what, server_side ? "" : " or {ciphertext, iv}");
	s = json_object_get_string(v);
	len = (size_t)json_object_get_string_len(v);
	if (len == 0 && b->min > 0)
		return bl_req_fail(r, BL_ERR_INVALID_FILES, "%s must not be empty.", what);
	if ((int64_t)len > b->max || bl_utf8_codepoints(s, len) == SIZE_MAX)
		return bl_req_fail(r, BL_ERR_INVALID_FILES,
		    "%s must be valid text of at most %lld bytes without NUL.", what,
		    (long long)b->max);
	return copy_plain(s, len, it);
}

/* Decodes a data:<mime>;base64,<data> URL into it, at most the content bound less used. */
static enum bl_err
parse_data_url(struct bl_req *r, json_object *v, const char *what, size_t used,
    struct bl_item *it)
{
	const char	*s = json_object_get_string(v), *comma, *b64;
	size_t		 len = (size_t)json_object_get_string_len(v), n;
	size_t		 maxplain = (size_t)r->ctx->cfg.limits.f[BL_F_CONTENT].max - used;

	/* The scheme and ";base64" are case-insensitive (RFC 2397). */
	if (len < 5 || strncasecmp(s, "data:", 5) != 0 ||
	    (comma = memchr(s, ',', len)) == NULL || comma - s < 12 ||
	    strncasecmp(comma - 7, ";base64", 7) != 0)
		return bl_req_fail(r, BL_ERR_INVALID_FILES,
		    "%s must be a data URL: data:<mime type>;base64,<data>.", what);
	b64 = comma + 1;
	len -= (size_t)(b64 - s);
	n = bl_b64_decoded_len(b64, len);
	if (n != SIZE_MAX && n > maxplain)
		return too_large(r, BL_F_CONTENT, what);
	if ((it->buf = bl_b64_decode(b64, len, &it->len)) == NULL && errno == ENOMEM)
		return BL_ERR_INTERNAL;
	if (it->buf == NULL)
		return bl_req_fail(r, BL_ERR_INVALID_FILES,
		    "%s: the data URL's payload must be canonical base64 with padding.", what);
	it->enc = 0;
	return BL_OK;
}

/* Size of one item's plaintext. */
static size_t
plain_len(const struct bl_item *it)
{
	return it->enc ? it->len - BL_TAG_BYTES : it->len;
}

/* Encrypts a plaintext item in place under key with a fresh IV. */
static enum bl_err
encrypt_item(const unsigned char key[32], struct bl_item *it)
{
	unsigned char	*ct;

	if (it->enc)
		return BL_OK;
	if ((ct = malloc(it->len + BL_TAG_BYTES)) == NULL)
		return BL_ERR_INTERNAL;
	if (bl_random(it->iv, BL_IV_BYTES) != 0 ||
	    bl_aes_gcm_encrypt(key, it->iv, it->buf, it->len, ct) != 0) {
		free(ct);
		return BL_ERR_INTERNAL;
	}
	bl_free_wipe(it->buf, it->len + 1);
	it->buf = ct;
	it->len += BL_TAG_BYTES;
	it->enc = 1;
	return BL_OK;
}

/* The files array, each item checked for its mode and size. */
static enum bl_err
parse_files(struct bl_req *r, json_object *files, struct bl_create *c, size_t *total)
{
	size_t		 i, n;
	char		 what[48];
	enum bl_err	 e;

	if (!json_object_is_type(files, json_type_array))
		return bl_req_fail(r, BL_ERR_INVALID_FILES,
		    "files must be an array of {filename, mimeType, data}.");
	n = json_object_array_length(files);
	if (n > 0 && !r->ctx->cfg.policy.files_allowed)
		return bl_req_fail(r, BL_ERR_INVALID_FILES,
		    "This server does not accept files (files.allowed is false in GET /api/config); send text only.");
	if ((int64_t)n > r->ctx->cfg.limits.f[BL_F_FILES].max)
		return bl_req_fail(r, BL_ERR_INVALID_FILES,
		    "At most %lld files may be attached; %zu were sent.",
		    (long long)r->ctx->cfg.limits.f[BL_F_FILES].max, n);
	if (n == 0)
		return BL_OK;
	if ((c->content.files = calloc(n, sizeof(struct bl_file))) == NULL)
		return BL_ERR_INTERNAL;
	for (i = 0; i < n; i++) {
		json_object	*f = json_object_array_get_idx(files, i), *name, *mime, *data;
		struct bl_file	*bf = &c->content.files[i];
		int		 m;

		c->content.nfiles = i + 1;
		if (!json_object_is_type(f, json_type_object))
			return bl_req_fail(r, BL_ERR_INVALID_FILES,
			    "files[%zu] must be an object {filename, mimeType, data}.", i);
		json_object_object_get_ex(f, "filename", &name);
		json_object_object_get_ex(f, "mimeType", &mime);
		if (!json_object_object_get_ex(f, "data", &data) || (m = mode_of(data)) < 0)
			return bl_req_fail(r, BL_ERR_INVALID_FILES,
			    "files[%zu].data must be a data URL (server-side) or {ciphertext, iv} (client-side).", i);
		if (m != c->server_side)
			return bl_req_fail(r, BL_ERR_INVALID_ENCRYPTION_MODE,
			    "files[%zu] is in %s mode but the request is in %s mode; send every item one way.",
			    i, m ? "server-side" : "client-side", c->server_side ? "server-side" : "client-side");
		snprintf(what, sizeof(what), "files[%zu].filename", i);
		if ((e = parse_meta(r, name, c->server_side, what, BL_F_FILENAME, "",
		    &bf->name)) != BL_OK)
			return e;
		snprintf(what, sizeof(what), "files[%zu].mimeType", i);
		if ((e = parse_meta(r, mime, c->server_side, what, BL_F_MIME_TYPE,
		    "application/octet-stream", &bf->mime)) != BL_OK)
			return e;
		snprintf(what, sizeof(what), "files[%zu].data", i);
		e = c->server_side ? parse_data_url(r, data, what, *total, &bf->data) :
		    parse_enc(r, data, what, BL_F_CONTENT, *total, &bf->data);
		if (e != BL_OK)
			return e;
		*total += plain_len(&bf->data);
		/* bf has its own copy: the item's JSON text is wiped and let go. */
		bl_json_wipe(f);
		json_object_array_put_idx(files, i, NULL);
	}
	return BL_OK;
}

/* INVALID_MAX_VIEWS with a hint that names what this server allows. */
static enum bl_err
views_fail(struct bl_req *r)
{
	const struct bl_bounds	*b = &r->ctx->cfg.limits.f[BL_F_MAX_VIEWS];

	if (r->ctx->cfg.policy.views_forced)
		return bl_req_fail(r, BL_ERR_INVALID_MAX_VIEWS, "This server allows only "
		    "maxViews %lld: send %lld or leave maxViews out.", (long long)b->max,
		    (long long)b->max);
	if (!r->ctx->cfg.policy.views_unlimited)
		return bl_req_fail(r, BL_ERR_INVALID_MAX_VIEWS, "maxViews must be a whole "
		    "number from %lld to %lld; this server does not allow unlimited views (null).",
		    (long long)b->min, (long long)b->max);
	return BL_ERR_INVALID_MAX_VIEWS;	/* the table's hint says it */
}

/*
 * The operator's rules that bounds cannot say (docs/ADMIN.md, "The settings
 * file"): unlimited views, a required passphrase.
 */
static enum bl_err
policy_check(struct bl_req *r, const struct bl_create *c)
{
	const struct bl_policy	*pol = &r->ctx->cfg.policy;
	const struct bl_bounds	*pb = &r->ctx->cfg.limits.f[BL_F_PASSPHRASE];

	if (c->max_views < 0 && !pol->views_unlimited)
		return views_fail(r);
	if (c->pass == NULL && pol->passphrase_required)
		return bl_req_fail(r, BL_ERR_INVALID_PASSPHRASE_FORMAT, "This server requires "
		    "a passphrase: send passphrase, a string of %lld to %lld characters.",
		    (long long)pb->min, (long long)pb->max);
	return BL_OK;
}

/*
 * Validates the create request in r->json into c, against the limits of the
 * request (r->ctx->cfg.limits, from the table of lib/fields.c). On success every
 * item of c->content is encrypted (server-side mode: under a fresh key in
 * c->dkey).
 */
/* The notify field's names, in the order of their bits (BL_NOTIFY_*). */
static const char *const notify_names[] = { "email", "webhook" };

enum bl_err
bl_create_parse(struct bl_req *r, struct bl_create *c)
{
	const struct bl_limits	*lim = &r->ctx->cfg.limits;
	json_object		*o = r->json, *text = NULL, *secret = NULL, *v, *files = NULL;
	size_t			 total = 0, i;
	enum bl_err		 e;
	int			 has_files;

	memset(c, 0, sizeof(*c));

	/* text / secret decide the mode; files decide it when there is no text. */
	json_object_object_get_ex(o, "text", &text);
	json_object_object_get_ex(o, "secret", &secret);
	if (json_object_is_type(text, json_type_null))
		text = NULL;
	if (json_object_is_type(secret, json_type_null))
		secret = NULL;
	if (text != NULL && secret != NULL)
		return bl_req_fail(r, BL_ERR_INVALID_TEXT,
		    "Send text or the legacy secret field, not both.");
	if (secret != NULL && !json_object_is_type(secret, json_type_string))
		return bl_req_fail(r, BL_ERR_INVALID_TEXT,
		    "secret (the legacy field) must be a plaintext string.");
	if (text == NULL)
		text = secret;
	json_object_object_get_ex(o, "files", &files);
	if (json_object_is_type(files, json_type_null))
		files = NULL;
	has_files = files != NULL && json_object_is_type(files, json_type_array) &&
	    json_object_array_length(files) > 0;
	if (text != NULL) {
		if ((c->server_side = mode_of(text)) < 0)
			return BL_ERR_INVALID_TEXT;
	} else if (has_files) {
		v = json_object_array_get_idx(files, 0);
		if (json_object_is_type(v, json_type_object) &&
		    json_object_object_get_ex(v, "data", &v))
			c->server_side = mode_of(v) == 1;
	}

	/* Absent or null: what the table says (the default, unlimited, none). */
	if ((e = bl_field_int(lim, BL_F_TTL, o, &c->ttl)) != BL_OK)
		return e;
	if ((e = bl_field_int(lim, BL_F_MAX_VIEWS, o, &c->max_views)) != BL_OK)
		return views_fail(r);
	if ((e = bl_field_string(lim, BL_F_PASSPHRASE, o, &c->pass, &c->pass_len)) != BL_OK ||
	    (e = bl_field_bool(lim, BL_F_DELETABLE, o, &c->deletable)) != BL_OK ||
	    (e = bl_field_names(lim, BL_F_NOTIFY, o, notify_names, 2, &c->notify)) != BL_OK ||
	    (e = parse_commitment(r, o, c)) != BL_OK ||
	    (e = policy_check(r, c)) != BL_OK)
		return e;

	if (text != NULL) {
		c->content.has_text = 1;
		if (c->server_side) {
			const char *s = json_object_get_string(text);
			size_t len = (size_t)json_object_get_string_len(text);
			/* The text is content, kept exactly: NUL characters included. */
			if ((int64_t)len > lim->f[BL_F_CONTENT].max)
				return BL_ERR_INVALID_CONTENT_SIZE;
			if ((e = copy_plain(s, len, &c->content.text)) != BL_OK)
				return e;
		} else if ((e = parse_enc(r, text, "text", BL_F_CONTENT, 0,
		    &c->content.text)) != BL_OK)
			return e;
		total = plain_len(&c->content.text);
		/*
		 * c has its own copy of the text (or its bytes decoded): the JSON
		 * text is wiped and let go, so that a 2 MiB secret is not held
		 * in it as well while it is encrypted and stored.
		 */
		bl_json_wipe(text);
		json_object_object_del(o, text == secret ? "secret" : "text");
	}
	if (files != NULL && (e = parse_files(r, files, c, &total)) != BL_OK)
		return e;
	if (c->content.nfiles == 0 && (!c->content.has_text || total == 0))
		return BL_ERR_INVALID_CONTENT;
	if ((int64_t)total > lim->f[BL_F_CONTENT].max)
		return BL_ERR_INVALID_CONTENT_SIZE;

	if (c->server_side) {
		if (bl_random(c->dkey, sizeof(c->dkey)) != 0 ||
		    bl_key_commitment(c->dkey, c->commit) != 0)
			return BL_ERR_INTERNAL;
		c->has_commit = 1;
		if (c->content.has_text &&
		    (e = encrypt_item(c->dkey, &c->content.text)) != BL_OK)
			return e;
		for (i = 0; i < c->content.nfiles; i++) {
			struct bl_file *f = &c->content.files[i];
			if ((e = encrypt_item(c->dkey, &f->name)) != BL_OK ||
			    (e = encrypt_item(c->dkey, &f->mime)) != BL_OK ||
			    (e = encrypt_item(c->dkey, &f->data)) != BL_OK)
				return e;
		}
	}
	return BL_OK;
}
