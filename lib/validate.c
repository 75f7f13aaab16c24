/* validate.c: field checks with explicit bounds (the table's fields of lib/fields.c), and time formatting. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

/* 1 if s is exactly BL_KEY_LEN url-safe base64 characters. */
int
bl_key_valid(const char *s, size_t len)
{
	size_t	 i;

	if (s == NULL || len != BL_KEY_LEN)
		return 0;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '_'))
			return 0;
	}
	return 1;
}

/*
 * 1 if s[0, len) is valid UTF-8 without control characters: C0 (below
 * U+0020), DEL and C1 (U+0080-U+009F, in UTF-8 C2 80 to C2 9F).
 */
int
bl_text_valid(const char *s, size_t len)
{
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 i;

	if (bl_utf8_codepoints(s, len) == SIZE_MAX)
		return 0;
	for (i = 0; i < len; i++)
		if (p[i] < 0x20 || p[i] == 0x7f ||
		    (p[i] == 0xc2 && i + 1 < len && p[i + 1] <= 0x9f))
			return 0;
	return 1;
}

/*
 * Counts the code points of UTF-8 text; SIZE_MAX if it is not valid UTF-8
 * (overlongs, surrogates, values past U+10FFFF) or holds a NUL.
 */
size_t
bl_utf8_codepoints(const char *s, size_t len)
{
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 i = 0, n = 0;

	while (i < len) {
		unsigned char	 c = p[i];
		size_t		 k;
		unsigned long	 cp;

		if (c == 0)
			return SIZE_MAX;
		if (c < 0x80) {
			i++;
			n++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			k = 1;
			cp = c & 0x1f;
		} else if (c >= 0xe0 && c <= 0xef) {
			k = 2;
			cp = c & 0x0f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			k = 3;
			cp = c & 0x07;
		} else
			return SIZE_MAX;
		if (len - i <= k)
			return SIZE_MAX;
		for (size_t j = 1; j <= k; j++) {
			if ((p[i + j] & 0xc0) != 0x80)
				return SIZE_MAX;
			cp = (cp << 6) | (p[i + j] & 0x3f);
		}
		if ((k == 2 && cp < 0x800) || (k == 3 && cp < 0x10000) ||
		    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return SIZE_MAX;
		i += k + 1;
		n++;
	}
	return n;
}

/*
 * Reads a JSON number with an integral value within [min, max] (1e3 and 5.0
 * count, 5.5 and "5" do not); 0 on success, -1 otherwise.
 */
int
bl_json_int(json_object *o, int64_t min, int64_t max, int64_t *out)
{
	int64_t	 v;
	double	 d;

	if (o == NULL)
		return -1;
	switch (json_object_get_type(o)) {
	case json_type_int:
		/* json-c clamps out-of-range integers to INT64_MIN/MAX. */
		v = json_object_get_int64(o);
		break;
	case json_type_double:
		d = json_object_get_double(o);
		if (!isfinite(d) || floor(d) != d || d < (double)min || d > (double)max)
			return -1;
		v = (int64_t)d;
		break;
	default:
		return -1;
	}
	if (v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/*
 * The member of o for field f: 1 with *v when it is there and not null, 0
 * when it is absent or null (*is_null tells which).
 */
static int
field_value(enum bl_field f, json_object *o, json_object **v, int *is_null)
{
	const struct bl_field_info	*fi = bl_field_info(f);

	assert(fi != NULL && fi->member != NULL);
	*v = NULL;
	*is_null = 0;
	if (o == NULL || !json_object_object_get_ex(o, fi->member, v))
		return 0;
	if (*v == NULL || json_object_is_type(*v, json_type_null)) {
		*is_null = 1;
		return 0;
	}
	return 1;
}

/*
 * Reads the integer field f of the object o, within lim's bounds, into *out:
 * the default when it is absent, and when null the default or -1 (null means
 * unlimited), as the table says. BL_OK, or the field's error (its hint is the
 * error table's, formatted with the request's limits).
 */
enum bl_err
bl_field_int(const struct bl_limits *lim, enum bl_field f, json_object *o, int64_t *out)
{
	const struct bl_field_info	*fi = bl_field_info(f);
	const struct bl_bounds		*b = &lim->f[f];
	json_object			*v;
	int				 is_null;

	assert(fi->type == BL_FT_INTEGER);
	if (!field_value(f, o, &v, &is_null)) {
		if (is_null && fi->null == BL_NULL_UNLIMITED)
			*out = -1;
		else if (is_null && fi->null == BL_NULL_INVALID)
			return fi->err;
		else
			*out = b->dflt;
		return BL_OK;
	}
	return bl_json_int(v, b->min, b->max, out) == 0 ? BL_OK : fi->err;
}

/* Reads the boolean field f of o into *out (1 or 0), the default when absent or null. */
enum bl_err
bl_field_bool(const struct bl_limits *lim, enum bl_field f, json_object *o, int *out)
{
	const struct bl_field_info	*fi = bl_field_info(f);
	json_object			*v;
	int				 is_null;

	assert(fi->type == BL_FT_BOOLEAN);
	if (!field_value(f, o, &v, &is_null)) {
		if (is_null && fi->null == BL_NULL_INVALID)
			return fi->err;
		*out = lim->f[f].dflt != 0;
		return BL_OK;
	}
	if (!json_object_is_type(v, json_type_boolean))
		return fi->err;
	*out = json_object_get_boolean(v);
	return BL_OK;
}

/*
 * Reads the string field f of o: *out and *len point into o, NULL when it is
 * absent or null (the table says it means none). Its length in code points or
 * bytes (as the table says) is within lim's bounds, and it is valid UTF-8
 * without NUL. BL_OK, or the field's error.
 */
enum bl_err
bl_field_string(const struct bl_limits *lim, enum bl_field f, json_object *o,
    const char **out, size_t *len)
{
	const struct bl_field_info	*fi = bl_field_info(f);
	const struct bl_bounds		*b = &lim->f[f];
	json_object			*v;
	size_t				 n;
	int				 is_null;

	assert(fi->type == BL_FT_STRING || fi->type == BL_FT_BYTES);
	*out = NULL;
	*len = 0;
	if (!field_value(f, o, &v, &is_null))
		return fi->null == BL_NULL_INVALID ? fi->err : BL_OK;
	if (!json_object_is_type(v, json_type_string))
		return fi->err;
	*out = json_object_get_string(v);
	*len = (size_t)json_object_get_string_len(v);
	n = bl_utf8_codepoints(*out, *len);
	if (n != SIZE_MAX && fi->type == BL_FT_BYTES)
		n = *len;
	if (n == SIZE_MAX || (int64_t)n < b->min || (int64_t)n > b->max) {
		*out = NULL;
		*len = 0;
		return fi->err;
	}
	return BL_OK;
}

/*
 * Formats ms since the epoch as 2006-01-02T15:04:05.000Z into buf. The date is
 * computed here (days to civil date, proleptic Gregorian): glibc's gmtime_r
 * reads /etc/localtime on first use, seven system calls for a time zone a UTC
 * date does not need.
 */
char *
bl_iso8601(int64_t ms, char buf[64])
{
	int64_t	 s = ms / 1000, frac = ms % 1000, days, sod, era, doe, yoe, doy, mp;
	int64_t	 y, m, d;

	if (frac < 0) {
		frac += 1000;
		s--;
	}
	days = s / 86400;
	sod = s % 86400;
	if (sod < 0) {
		sod += 86400;
		days--;
	}
	days += 719468;				/* from 0000-03-01 */
	era = (days >= 0 ? days : days - 146096) / 146097;
	doe = days - era * 146097;		/* [0, 146096] */
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;		/* March = 0 */
	d = doy - (153 * mp + 2) / 5 + 1;
	m = mp < 10 ? mp + 3 : mp - 9;
	y = yoe + era * 400 + (m <= 2);
	if (y < 0 || y > 9999) {
		buf[0] = '\0';
		return buf;
	}
	snprintf(buf, 64, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", (int)y, (int)m, (int)d,
	    (int)(sod / 3600), (int)(sod / 60 % 60), (int)(sod % 60), (int)frac);
	return buf;
}

/* Wall-clock time in milliseconds since the epoch. */
int64_t
bl_now_ms(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Reads the array field f of o, each item one of the strings of names (n of
 * them), into the mask of their bits (1 << index): 0 when it is absent or
 * null (the table says none), at most lim's maximum of items, no other item.
 * BL_OK, or the field's error.
 */
enum bl_err
bl_field_names(const struct bl_limits *lim, enum bl_field f, json_object *o,
    const char *const *names, size_t n, unsigned *out)
{
	const struct bl_field_info	*fi = bl_field_info(f);
	json_object			*v, *it;
	size_t				 i, k, len;
	int				 is_null;

	assert(fi->type == BL_FT_ARRAY);
	*out = 0;
	if (!field_value(f, o, &v, &is_null))
		return is_null && fi->null == BL_NULL_INVALID ? fi->err : BL_OK;
	if (!json_object_is_type(v, json_type_array))
		return fi->err;
	len = json_object_array_length(v);
	if ((int64_t)len < lim->f[f].min || (int64_t)len > lim->f[f].max)
		return fi->err;
	for (i = 0; i < len; i++) {
		it = json_object_array_get_idx(v, i);
		if (!json_object_is_type(it, json_type_string))
			return fi->err;
		for (k = 0; k < n; k++)
			if (strcmp(json_object_get_string(it), names[k]) == 0)
				break;
		if (k == n)
			return fi->err;
		*out |= 1u << k;
	}
	return BL_OK;
}

/*
 * Checks an e-mail address and writes it lower-cased (ASCII) to out: at most
 * 254 bytes of UTF-8, no white space or control characters, one "@" with
 * something on each side. 1 if valid.
 */
int
bl_email_normalise(const char *s, size_t len, char out[BL_EMAIL_MAX + 1])
{
	const char	*at;
	size_t		 i;

	if (len < 3 || len > BL_EMAIL_MAX || !bl_text_valid(s, len))
		return 0;
	if ((at = memchr(s, '@', len)) == NULL || at == s || at == s + len - 1 ||
	    memchr(at + 1, '@', len - (size_t)(at - s) - 1) != NULL)
		return 0;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == ' ')
			return 0;
		out[i] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : (char)c;
	}
	out[len] = '\0';
	return 1;
}

/*
 * A time of burnlink-admin audit --since or --until, or of GET
 * /api/admin/activity since= and until=: ISO 8601 (a date, or a date and time in UTC
 * with Z or an offset; seconds and fractions optional), or a time ago
 * (N followed by s, m, h, d or w). 0 and *ms set, or -1.
 */
int
bl_parse_when(const char *v, int64_t now, int64_t *ms)
{
	struct tm	 tm;
	const char	*p = v;
	char		*end;
	long long	 n;
	int		 off = 0, sign = 1, frac = 0, digits = 0;
	time_t		 t;

	if (*v >= '0' && *v <= '9' && strchr("smhdw", v[strlen(v) - 1]) != NULL &&
	    strspn(v, "0123456789") == strlen(v) - 1 && strlen(v) <= 10) {
		n = strtoll(v, &end, 10);
		switch (*end) {
		case 's': n *= 1; break;
		case 'm': n *= 60; break;
		case 'h': n *= 3600; break;
		case 'd': n *= 86400; break;
		default: n *= 7 * 86400; break;
		}
		*ms = now - n * 1000;
		return 0;
	}
	memset(&tm, 0, sizeof(tm));
	if ((p = strptime(v, "%Y-%m-%d", &tm)) == NULL)
		return -1;
	if (*p == 'T' || *p == ' ') {
		if ((end = strptime(p + 1, "%H:%M", &tm)) == NULL)
			return -1;
		p = end;
		if (*p == ':') {
			if ((end = strptime(p + 1, "%S", &tm)) == NULL)
				return -1;
			p = end;
			if (*p == '.')
				for (p++; *p >= '0' && *p <= '9'; p++)
					if (digits++ < 3)
						frac = frac * 10 + (*p - '0');
			while (digits > 0 && digits < 3)
				frac *= 10, digits++;
		}
		if (*p == 'Z')
			p++;
		else if (*p == '+' || *p == '-') {
			sign = *p == '-' ? -1 : 1;
			if (strlen(p) != 6 || p[3] != ':' || strspn(p + 1, "0123456789") != 2 ||
			    strspn(p + 4, "0123456789") != 2)
				return -1;
			off = sign * (((p[1] - '0') * 10 + p[2] - '0') * 3600 +
			    ((p[4] - '0') * 10 + p[5] - '0') * 60);
			p += 6;
		}
	}
	if (*p != '\0' || (t = timegm(&tm)) == (time_t)-1)
		return -1;
	*ms = ((int64_t)t - off) * 1000 + frac;
	return 0;
}
