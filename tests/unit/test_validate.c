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
}

int
main(void)
{
	test_json_int();
	test_keys();
	test_utf8();
	test_time();
	test_errors();
	UNIT_END("unit validate");
}
