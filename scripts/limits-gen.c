/*
 * limits-gen.c: prints www/assets/limits.js, the table of lib/fields.c as an
 * ES module for the page and the CLI (`make limits` writes it; the CLI tests
 * fail when the committed file differs from what this prints).
 */
#include <stdio.h>

#include "internal.h"

static const char *const types[] = {
	[BL_FT_INTEGER] = "integer", [BL_FT_STRING] = "string", [BL_FT_BYTES] = "bytes",
	[BL_FT_BOOLEAN] = "boolean", [BL_FT_ARRAY] = "array", [BL_FT_SIZE] = "size",
	[BL_FT_COUNT] = "count", [BL_FT_SECONDS] = "seconds",
};

static const char *const nulls[] = {
	[BL_NULL_INVALID] = "invalid", [BL_NULL_DEFAULT] = "default",
	[BL_NULL_UNLIMITED] = "unlimited", [BL_NULL_NONE] = "none",
};

int
main(void)
{
	const struct bl_field_info	*fi;
	int				 f;

	printf("// limits.js: the limits of docs/API.md, printed from the table of lib/fields.c\n"
	    "// by scripts/limits-gen.c (`make limits`). Do not edit: change the table.\n"
	    "// type: what min and max count (string: code points, bytes: UTF-8 bytes);\n"
	    "// null: what a JSON null means; code: the error when a value is outside.\n"
	    "\n"
	    "export const LIMITS = Object.freeze({\n");
	for (f = 0; f < BL_F__MAX; f++) {
		fi = bl_field_info((enum bl_field)f);
		printf("\t%s: Object.freeze({ member: ", fi->id);
		if (fi->member != NULL)
			printf("'%s'", fi->member);
		else
			printf("null");
		printf(", type: '%s', min: %lld, max: %lld, default: ", types[fi->type],
		    (long long)fi->spec.min, (long long)fi->spec.max);
		/* Only a number or a boolean has a default of its own. */
		if (fi->type == BL_FT_INTEGER)
			printf("%lld", (long long)fi->spec.dflt);
		else if (fi->type == BL_FT_BOOLEAN)
			printf("%s", fi->spec.dflt ? "true" : "false");
		else
			printf("null");
		printf(", null: '%s', code: '%s' }),\n", nulls[fi->null],
		    bl_error_info(fi->err)->code);
	}
	printf("});\n");
	return ferror(stdout) || fflush(stdout) != 0 ? 1 : 0;
}
