/*
 * json_members.c: builds one JSON object of 40 members through bl_json_add()
 * and frees it; tests/faults/json.test.mjs runs it under the failmalloc shim
 * with each allocation failing in turn. json-c's table grows past its 10th
 * member; a name it had copied leaked when that growth failed. The exit
 * status is the number of members added (no stdio: its buffer would stay).
 */
#include "internal.h"

int
main(void)
{
	static const char *const names[] = {
		"m00", "m01", "m02", "m03", "m04", "m05", "m06", "m07", "m08", "m09",
		"m10", "m11", "m12", "m13", "m14", "m15", "m16", "m17", "m18", "m19",
		"m20", "m21", "m22", "m23", "m24", "m25", "m26", "m27", "m28", "m29",
		"m30", "m31", "m32", "m33", "m34", "m35", "m36", "m37", "m38", "m39",
	};
	json_object	*o;
	size_t		 i;

	if ((o = json_object_new_object()) == NULL)
		return 0;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (bl_json_add(o, names[i], json_object_new_int((int)i)) != 0)
			break;
	json_object_put(o);
	return (int)i;
}
