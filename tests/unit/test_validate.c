/* test_validate.c: every validator at and around its bounds. */
#include <stdlib.h>
#include <time.h>

#include "burnlink.h"
#include "unit.h"

static int
json_int(const char *text, int64_t min, int64_t max, int64_t *out)
{
	json_object	*o = json_tokener_parse(text);
	int		 rc = bl_json_int(o, min, max, out);

	json_object_put(o);
	return rc;
}

static void
test_json_int(void)
{
	int64_t	 v = 0;

	CHECK(json_int("1800", 1800, 7776000, &v) == 0 && v == 1800);
	CHECK(json_int("7776000", 1800, 7776000, &v) == 0 && v == 7776000);
	CHECK(json_int("1799", 1800, 7776000, &v) != 0);
	CHECK(json_int("7776001", 1800, 7776000, &v) != 0);
	CHECK(json_int("3600.0", 1800, 7776000, &v) == 0 && v == 3600);
	CHECK(json_int("3.6e3", 1800, 7776000, &v) == 0 && v == 3600);
	CHECK(json_int("3600.5", 1800, 7776000, &v) != 0);
	CHECK(json_int("\"3600\"", 1800, 7776000, &v) != 0);
	CHECK(json_int("true", 1800, 7776000, &v) != 0);
	CHECK(json_int("null", 1800, 7776000, &v) != 0);
	CHECK(json_int("99999999999999999999999", 1800, 7776000, &v) != 0);
	CHECK(json_int("-99999999999999999999999", 1800, 7776000, &v) != 0);
	CHECK(json_int("1e400", 1800, 7776000, &v) != 0);
	CHECK(json_int("1", 1, 999, &v) == 0 && v == 1);
	CHECK(json_int("999", 1, 999, &v) == 0 && v == 999);
	CHECK(json_int("0", 1, 999, &v) != 0);
	CHECK(json_int("1000", 1, 999, &v) != 0);
	CHECK(json_int("-1", 1, 999, &v) != 0);
}

static void
test_keys(void)
{
	CHECK(bl_key_valid("AAAAAAAAAAAAAAAAAAAAAA", 22));
	CHECK(bl_key_valid("abcdefghij-_0123456789", 22));
	CHECK(!bl_key_valid("AAAAAAAAAAAAAAAAAAAAA", 21));
	CHECK(!bl_key_valid("AAAAAAAAAAAAAAAAAAAAAAA", 23));
	CHECK(!bl_key_valid("AAAAAAAAAAAAAAAAAAAAA+", 22));
	CHECK(!bl_key_valid("AAAAAAAAAAAAAAAAAAAAA/", 22));
	CHECK(!bl_key_valid("AAAAAAAAAAAAAAAAAAAAA=", 22));
	CHECK(!bl_key_valid("AAAAAAAAAAAAAAAAAAAAA.", 22));
	CHECK(!bl_key_valid("AAAAAAAAAA\0AAAAAAAAAAA", 22));
	CHECK(!bl_key_valid(NULL, 0));
}

static void
test_utf8(void)
{
	CHECK(bl_utf8_codepoints("abcd", 4) == 4);
	CHECK(bl_utf8_codepoints("", 0) == 0);
	CHECK(bl_utf8_codepoints("\xc3\xa9t\xc3\xa9", 5) == 3);		/* été */
	CHECK(bl_utf8_codepoints("\xe2\x82\xac", 3) == 1);		/* € */
	CHECK(bl_utf8_codepoints("\xf0\x9f\x94\xa5", 4) == 1);		/* emoji */
	CHECK(bl_utf8_codepoints("a\0b", 3) == SIZE_MAX);		/* NUL */
	CHECK(bl_utf8_codepoints("\xc0\x80", 2) == SIZE_MAX);		/* overlong */
	CHECK(bl_utf8_codepoints("\xe0\x80\xaf", 3) == SIZE_MAX);	/* overlong */
	CHECK(bl_utf8_codepoints("\xed\xa0\x80", 3) == SIZE_MAX);	/* surrogate */
	CHECK(bl_utf8_codepoints("\xf4\x90\x80\x80", 4) == SIZE_MAX);	/* > U+10FFFF */
	CHECK(bl_utf8_codepoints("\xe2\x82", 2) == SIZE_MAX);		/* truncated */
	CHECK(bl_utf8_codepoints("\x80", 1) == SIZE_MAX);
	CHECK(bl_utf8_codepoints("\xff", 1) == SIZE_MAX);
}

static void
test_time(void)
{
	char	 buf[64];

	CHECK(strcmp(bl_iso8601(0, buf), "1970-01-01T00:00:00.000Z") == 0);
	CHECK(strcmp(bl_iso8601(1795000000123LL, buf), "2026-11-18T11:06:40.123Z") == 0);
	CHECK(bl_now_ms() > 1700000000000LL);
	CHECK(strcmp(bl_iso8601(951782400000LL, buf), "2000-02-29T00:00:00.000Z") == 0);
	CHECK(strcmp(bl_iso8601(4107542399999LL, buf), "2100-02-28T23:59:59.999Z") == 0);
	CHECK(strcmp(bl_iso8601(-1, buf), "1969-12-31T23:59:59.999Z") == 0);
	CHECK(strcmp(bl_iso8601(253402300799999LL, buf), "9999-12-31T23:59:59.999Z") == 0);
	CHECK(bl_iso8601(253402300800000LL, buf)[0] == '\0');
	/* The date arithmetic agrees with gmtime_r, day by day from 1970 to 2400. */
	{
		char		 want[64];
		struct tm	 tm;
		time_t		 t;
		int64_t		 ms;
		int		 bad = 0;

		for (ms = 0; ms < 13569465600000LL; ms += 86400000LL + 3723001) {
			t = (time_t)(ms / 1000);
			gmtime_r(&t, &tm);
			snprintf(want, sizeof(want), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
			    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
			    tm.tm_min, tm.tm_sec, (int)(ms % 1000));
			bad += strcmp(bl_iso8601(ms, buf), want) != 0;
		}
		CHECK(bad == 0);
	}
}

static void
test_errors(void)
{
	int	 i;

	for (i = 1; i < BL_ERR__MAX; i++) {
		const struct bl_error_info *e = bl_error_info((enum bl_err)i);
		CHECK(e->status >= 400 && e->status < 600);
		CHECK(e->code != NULL && e->hint != NULL && e->hint[0] != '\0');
	}
	CHECK(bl_error_info(BL_ERR__MAX)->status == 500);
	CHECK(strcmp(bl_error_info(BL_ERR_NOT_FOUND)->code, "NOT_FOUND") == 0);
	/*
	 * A field's own error is its row's (lib/fields.c), and no other's: not
	 * also in lib/error.c (whose row would win), nor in a second field's.
	 */
	for (i = 0; i < BL_F__MAX; i++) {
		const struct bl_field_info *fi = bl_field_info((enum bl_field)i);
		int j;

		if (fi->error.code == NULL)
			continue;
		CHECK(bl_error_info(fi->err) == &fi->error);
		for (j = 0; j < BL_F__MAX; j++)
			CHECK(j == i || bl_field_info((enum bl_field)j)->err != fi->err);
	}
	CHECK(strcmp(bl_error_info(BL_ERR_INVALID_TTL)->code, "INVALID_TTL") == 0 &&
	    bl_error_info(BL_ERR_INVALID_TTL)->status == 400);
}

/* Each hint that names a limit reads as it did when the numbers were text. */
static void
test_hints(void)
{
	static const struct { enum bl_err e; const char *want; } hints[] = {
		{BL_ERR_INVALID_CONTENT_SIZE, "Text and files together may hold at most 2 MiB (2097152 bytes) of plaintext."},
		{BL_ERR_INVALID_TTL, "ttl must be a whole number of seconds from 1800 to 7776000 (30 minutes to 90 days)."},
		{BL_ERR_INVALID_MAX_VIEWS, "maxViews must be a whole number from 1 to 999, or null for unlimited views until expiry."},
		{BL_ERR_INVALID_PASSPHRASE_FORMAT, "passphrase must be a string of 4 to 256 characters without NUL."},
		{BL_ERR_INVALID_FILES, "files must be an array of at most 20 items, each {filename, mimeType, data}."},
		{BL_ERR_INVALID_CIPHERTEXT, "ciphertext must be canonical standard base64 (with padding) of the AES-256-GCM output including its 16-byte tag."},
		{BL_ERR_INVALID_IV, "iv must be canonical standard base64 of exactly 12 bytes."},
		{BL_ERR_PAYLOAD_TOO_LARGE, "The JSON body may be at most 4 MiB (4194304 bytes)."},
		{BL_ERR_TOO_MANY_ATTEMPTS, "At most 5 attempts a minute are allowed for one secret; wait for the seconds in Retry-After."},
		{BL_ERR_INVALID_EMAIL, "email must be an address such as name@example.org, at most 254 bytes."},
		{BL_ERR_INVALID_PASSWORD, "A password must be a string of 8 to 256 characters."},
		{BL_ERR_INVALID_NAME, "name must be a string of 1 to 128 bytes without control characters."},
		{BL_ERR_NOT_SIGNED_IN, "Sign in on the dashboard; sessions end after 2 hours without use and 12 hours after sign-in."},
		{BL_ERR_KEY_LIMIT, "Revoke a key you no longer use (at most 100 valid keys per account)."},
	};
	struct bl_limits	 lim;
	struct bl_bounds	 b;
	char			 buf[256];
	size_t			 i;
	int			 e;

	bl_limits_init(&lim);
	for (i = 0; i < sizeof(hints) / sizeof(hints[0]); i++) {
		bl_error_hint(hints[i].e, &lim, buf, sizeof(buf));
		if (strcmp(buf, hints[i].want) != 0)
			fprintf(stderr, "hint: %s\n want: %s\n", buf, hints[i].want);
		CHECK(strcmp(buf, hints[i].want) == 0);
	}
	/* No hint keeps a reference that names nothing. */
	for (e = 1; e < BL_ERR__MAX; e++)
		CHECK(strstr(bl_error_hint((enum bl_err)e, &lim, buf, sizeof(buf)), "${") == NULL);
	CHECK(strcmp(bl_error_hint(BL_ERR_INVALID_TTL, NULL, buf, sizeof(buf)),
	    hints[1].want) == 0);
	/* Truncated, never overrun. */
	CHECK(bl_hint_format(&lim, "ttl ${ttl.max:time}", buf, 8) == 7 && strcmp(buf, "ttl 90 ") == 0);
	CHECK(bl_hint_format(&lim, "${ttl.nope} ${nope.max} ${ttl.max:x} ${ttl", buf, sizeof(buf)) > 0 &&
	    strcmp(buf, "${ttl.nope} ${nope.max} ${ttl.max:x} ${ttl") == 0);
	bl_hint_format(&lim, "${ttl.default:time} ${sealedMeta.max:size} ${filename.max:size}", buf, sizeof(buf));
	CHECK(strcmp(buf, "1 day 1 KiB 255 bytes") == 0);

	/* An instance may tighten a limit, never loosen it; hints follow. */
	b = (struct bl_bounds){3600, 604800, 3600};
	CHECK(bl_limits_tighten(&lim, BL_F_TTL, &b) == 0);
	bl_error_hint(BL_ERR_INVALID_TTL, &lim, buf, sizeof(buf));
	CHECK(strcmp(buf, "ttl must be a whole number of seconds from 3600 to 604800 (1 hour to 7 days).") == 0);
	b = (struct bl_bounds){1800, 7776001, 86400};
	CHECK(bl_limits_tighten(&lim, BL_F_TTL, &b) != 0);
	b = (struct bl_bounds){1799, 86400, 86400};
	CHECK(bl_limits_tighten(&lim, BL_F_TTL, &b) != 0);
	b = (struct bl_bounds){3600, 7200, 86400};
	CHECK(bl_limits_tighten(&lim, BL_F_TTL, &b) != 0);
	CHECK(lim.f[BL_F_TTL].min == 3600 && lim.f[BL_F_TTL].max == 604800);
	CHECK(bl_limits_tighten(&lim, BL_F__MAX, &b) != 0);
}

/* The table's fields of a JSON object, with the defaults and nulls it declares. */
static void
test_fields(void)
{
	struct bl_limits	 lim;
	json_object		*o;
	int64_t			 v;
	const char		*s;
	size_t			 len;
	int			 b;

	bl_limits_init(&lim);
	o = json_tokener_parse("{\"ttl\": null, \"maxViews\": null, \"passphrase\": null, \"deletable\": null}");
	CHECK(bl_field_int(&lim, BL_F_TTL, o, &v) == BL_OK && v == 86400);
	CHECK(bl_field_int(&lim, BL_F_MAX_VIEWS, o, &v) == BL_OK && v == -1);
	CHECK(bl_field_string(&lim, BL_F_PASSPHRASE, o, &s, &len) == BL_OK && s == NULL);
	CHECK(bl_field_bool(&lim, BL_F_DELETABLE, o, &b) == BL_OK && b == 1);
	json_object_put(o);
	o = json_tokener_parse("{}");
	CHECK(bl_field_int(&lim, BL_F_MAX_VIEWS, o, &v) == BL_OK && v == 1);
	json_object_put(o);
	o = json_tokener_parse("{\"ttl\": 1799, \"maxViews\": 1000, \"passphrase\": \"abc\", \"deletable\": 0}");
	CHECK(bl_field_int(&lim, BL_F_TTL, o, &v) == BL_ERR_INVALID_TTL);
	CHECK(bl_field_int(&lim, BL_F_MAX_VIEWS, o, &v) == BL_ERR_INVALID_MAX_VIEWS);
	CHECK(bl_field_string(&lim, BL_F_PASSPHRASE, o, &s, &len) == BL_ERR_INVALID_PASSPHRASE_FORMAT);
	CHECK(bl_field_bool(&lim, BL_F_DELETABLE, o, &b) == BL_ERR_INVALID_DELETABLE);
	json_object_put(o);
	o = json_tokener_parse("{\"ttl\": 7776000, \"maxViews\": 999, \"passphrase\": \"\u00e9\u00e9\u00e9\u00e9\", \"deletable\": false}");
	CHECK(bl_field_int(&lim, BL_F_TTL, o, &v) == BL_OK && v == 7776000);
	CHECK(bl_field_int(&lim, BL_F_MAX_VIEWS, o, &v) == BL_OK && v == 999);
	CHECK(bl_field_string(&lim, BL_F_PASSPHRASE, o, &s, &len) == BL_OK && len == 8);
	CHECK(bl_field_bool(&lim, BL_F_DELETABLE, o, &b) == BL_OK && b == 0);
	/* The request's limits, not the table's, decide. */
	lim.f[BL_F_MAX_VIEWS].max = 10;
	CHECK(bl_field_int(&lim, BL_F_MAX_VIEWS, o, &v) == BL_ERR_INVALID_MAX_VIEWS);
	json_object_put(o);
}

int
main(void)
{
	test_json_int();
	test_keys();
	test_utf8();
	test_time();
	test_errors();
	test_hints();
	test_fields();
	UNIT_END("unit validate");
}
